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
  })
  .superRefine((rag, ctx) => {
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

/** `[agent]`: the model the daemon's runs (and `arslan` without flags) use. Keys only by env var name. */
export const agentConfigSchema = z.strictObject({
  provider: z.enum(AGENT_PROVIDER_KINDS),
  /** Default: the provider's public endpoint. */
  base_url: endpointUrl.optional(),
  model: modelName,
  api_key_env: envName.optional(),
  tier: z.enum(AGENT_TIERS).optional(),
});

export const arslanConfigSchema = z.strictObject({
  storage: z
    .strictObject({
      data_dir: z.string().min(1, 'must not be empty').max(4096),
    })
    .optional(),
  rag: ragConfigSchema.optional(),
  agent: agentConfigSchema.optional(),
});

export type ArslanConfig = z.infer<typeof arslanConfigSchema>;
export type RagConfigToml = z.infer<typeof ragConfigSchema>;
export type AgentConfigToml = z.infer<typeof agentConfigSchema>;

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
