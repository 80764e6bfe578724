// The local TOML config (CFG-1..6), shared by the CLI and the daemon so both reject the same
// files. Only non-secret settings: API keys are named by environment variable (EGRESS-9, CFG-6).
// Strict at every level, so an unknown key is rejected (CFG-2). Path resolution against the
// file (CFG-3) is done by each loader (this lib is platform:any).
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be the name of an environment variable (EGRESS-9)');
const endpointUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((raw) => {
    try {
      const url = new URL(raw);
      return (
        (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
      );
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without credentials');
const modelName = z.string().min(1).max(200);
/** EGRESS-5: `[rag] proxy`: http/https/socks5/socks5h, host and optional port only (no credentials). */
const RAG_PROXY_SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'];
const ragProxyUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((raw) => {
    try {
      const url = new URL(raw);
      return (
        RAG_PROXY_SCHEMES.includes(url.protocol) &&
        url.hostname !== '' &&
        url.username === '' &&
        url.password === '' &&
        (url.pathname === '' || url.pathname === '/') &&
        url.search === '' &&
        url.hash === ''
      );
    } catch {
      return false;
    }
  }, 'must be an http, https, socks5 or socks5h URL with host and port only (credentials only via proxy_env)');

export const RAG_EMBEDDERS = ['none', 'use-lite', 'onnx', 'remote'] as const;
export type RagEmbedderKind = (typeof RAG_EMBEDDERS)[number];

export const ragConfigSchema = z
  .strictObject({
    /** `use-lite` (default) is the bundled semantic model; `none` = lexical search only (KNOW-03). */
    embedder: z.enum(RAG_EMBEDDERS).optional(),
    /** Directory of verified ONNX model files (`rag model-install`, RAG-18); relative to the config file. */
    local_model_dir: z.string().min(1).max(4096).optional(),
    remote: z
      .strictObject({
        base_url: endpointUrl,
        model: modelName,
        dimensions: z.number().int().min(1).max(8192),
        api_key_env: envName.optional(),
      })
      .optional(),
    generation: z
      .strictObject({
        base_url: endpointUrl,
        model: modelName,
        api_key_env: envName.optional(),
      })
      .optional(),
    /**
     * EGRESS-5: proxy for the remote embedder, the `rag ask` model and `rag model-install`
     * (never for loopback; `no_proxy` still applies). Default: the proxy environment variables.
     */
    proxy: ragProxyUrl.optional(),
    /** ...or the name of an environment variable holding the proxy URL, which may carry credentials. */
    proxy_env: envName.optional(),
  })
  .superRefine((rag, ctx) => {
    if (rag.proxy !== undefined && rag.proxy_env !== undefined)
      ctx.addIssue({ code: 'custom', path: ['proxy_env'], message: 'give proxy or proxy_env, not both' });
    if (rag.embedder === 'remote' && rag.remote === undefined)
      ctx.addIssue({ code: 'custom', path: ['remote'], message: 'embedder = "remote" needs [rag.remote]' });
    if (rag.embedder === 'onnx' && rag.local_model_dir === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['local_model_dir'],
        message: 'embedder = "onnx" needs local_model_dir',
      });
  });

export const AGENT_PROVIDER_KINDS = ['openai-compatible', 'anthropic', 'gemini'] as const;
export const AGENT_TIERS = ['light', 'standard', 'deep'] as const;

/** Names of configured models: `default` is the `[agent]` table's own model (PROV-04). */
export const AGENT_DEFAULT_MODEL_NAME = 'default';
export const AGENT_MODEL_ROLES = ['main', 'summary', 'judgment'] as const;
export type AgentModelRole = (typeof AGENT_MODEL_ROLES)[number];
const agentModelName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'model names are 1-64 of a-z 0-9 . _ -');

/** `[[agent.models]]` (PROV-04): a further named model a conversation may pick. Keys only by env var. */
export const agentModelConfigSchema = z.strictObject({
  name: agentModelName,
  provider: z.enum(AGENT_PROVIDER_KINDS),
  base_url: endpointUrl.optional(),
  model: modelName,
  api_key_env: envName.optional(),
});

/**
 * `[agent]`: the model the daemon's runs (and `arslan` without flags) use — named `default` —
 * plus optional further `[[agent.models]]` and `[agent.roles]` (PROV-05: which named model does
 * the main conversation, summarization and judgment). Keys only by env var name.
 */
export const agentConfigSchema = z
  .strictObject({
    provider: z.enum(AGENT_PROVIDER_KINDS),
    /** Default: the provider's public endpoint. */
    base_url: endpointUrl.optional(),
    model: modelName,
    api_key_env: envName.optional(),
    tier: z.enum(AGENT_TIERS).optional(),
    /** KNOW-05: the vault the agent's `recall` tool searches; without it there is no `recall`. */
    recall_vault: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'vault names are 1-64 of a-z 0-9 . _ -')
      .optional(),
    models: z.array(agentModelConfigSchema).max(32).optional(),
    roles: z
      .strictObject({ main: agentModelName, summary: agentModelName, judgment: agentModelName })
      .partial()
      .optional(),
  })
  .superRefine((agent, ctx) => {
    const names = new Set<string>([AGENT_DEFAULT_MODEL_NAME]);
    (agent.models ?? []).forEach((m, i) => {
      if (names.has(m.name))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'name'], message: 'duplicate model name' });
      names.add(m.name);
    });
    for (const role of AGENT_MODEL_ROLES) {
      const name = agent.roles?.[role];
      if (name !== undefined && !names.has(name))
        ctx.addIssue({ code: 'custom', path: ['roles', role], message: 'names no configured model' });
    }
  });

/** `[[centers]]` (CTR-1..8): a Center's name, URL and mode; its credential only by reference. */
export const CENTER_MODES = ['ticket', 'saas'] as const;
export type CenterMode = (typeof CENTER_MODES)[number];

/** Loopback by literal host only (never DNS): `localhost`, 127.0.0.0/8, `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'localhost' ||
    host === '[::1]' ||
    host === '::1' ||
    /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/.test(host)
  );
}

/** HTTPS, or plain HTTP to a loopback host; no credentials, query or fragment (messages never echo it). */
export function centerUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.search !== '' || url.hash !== '') return 'must not carry a query or fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return isLoopbackHost(url.hostname) ? null : 'plain http is allowed only for loopback hosts';
  return 'must be an https URL';
}

const centerUrl = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((raw, ctx) => {
    const problem = centerUrlProblem(raw);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const centerConfigSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'center names are 1-64 of a-z 0-9 . _ -'),
    url: centerUrl,
    /** Default `ticket` (CTR-2). */
    mode: z.enum(CENTER_MODES).optional(),
    /** The Center's vault id this device belongs to (unlock tickets must name it); default `personal`. */
    vault: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'invalid vault id')
      .optional(),
    /** The member credential, by environment variable name (CFG-6): never inline. */
    credential_env: envName.optional(),
    /** ...or a file of mode 0600 holding it (relative to the config file). */
    credential_file: z.string().min(1).max(4096).optional(),
    /** Per-request deadline; default 10000. */
    timeout_ms: z.number().int().min(100).max(120_000).optional(),
  })
  .superRefine((center, ctx) => {
    if (center.credential_env !== undefined && center.credential_file !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['credential_file'],
        message: 'give credential_env or credential_file, not both',
      });
    if (center.mode === 'saas' && center.credential_env === undefined && center.credential_file === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['credential_env'],
        message: 'a saas center needs credential_env or credential_file',
      });
  });

const centersSchema = z
  .array(centerConfigSchema)
  .max(16)
  .superRefine((centers, ctx) => {
    const names = new Set<string>();
    centers.forEach((c, i) => {
      if (names.has(c.name))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'duplicate center name' });
      names.add(c.name);
    });
    // CTR-7 forwards to exactly one saas Center; which ticket Center redeems must be unambiguous too.
    for (const mode of CENTER_MODES) {
      if (centers.filter((c) => (c.mode ?? 'ticket') === mode).length > 1)
        ctx.addIssue({ code: 'custom', message: `at most one ${mode} center may be configured` });
    }
  });

export const arslanConfigSchema = z.strictObject({
  storage: z
    .strictObject({
      data_dir: z.string().min(1, 'must not be empty').max(4096),
    })
    .optional(),
  rag: ragConfigSchema.optional(),
  agent: agentConfigSchema.optional(),
  centers: centersSchema.optional(),
});

export type ArslanConfig = z.infer<typeof arslanConfigSchema>;
export type RagConfigToml = z.infer<typeof ragConfigSchema>;
export type AgentConfigToml = z.infer<typeof agentConfigSchema>;
export type AgentModelConfigToml = z.infer<typeof agentModelConfigSchema>;
export type CenterConfigToml = z.infer<typeof centerConfigSchema>;

export type ConfigParseResult = { ok: true; config: ArslanConfig } | { ok: false; problem: string };

/** Parses and validates TOML text (CFG-2); `problem` never echoes values, only key paths. */
export function parseArslanConfig(text: string): ConfigParseResult {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return { ok: false, problem: `invalid TOML: ${first}` };
  }
  const parsed = arslanConfigSchema.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const problem = parsed.error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(', ');
        return `unknown key ${keys}`;
      }
      return `${at || '(root)'}: ${issue.message}`;
    })
    .join('; ');
  return { ok: false, problem };
}
