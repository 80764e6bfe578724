// argv of the `arslan` command. API keys never come from argv: only `--api-key-env VAR` names the
// environment variable that holds one (EGRESS-9, CFG-6); any key-looking option is a usage error.
// --provider/--model/--base-url/--api-key-env/--tier override the config's `[agent]` section
// (arslan-settings.ts), so none of them is required here.
import { ACTION_KINDS, type ActionKind, PROVIDER_KINDS, type ProviderKind } from '@arslan/desktop-agent';

export const ARSLAN_USAGE = [
  'usage:',
  '  arslan run "<task>" --workspace DIR [--provider openai-compatible|anthropic|gemini] [--model NAME]',
  '             [--base-url URL] [--api-key-env VAR] [--allow KINDS] [--tier light|standard|deep]',
  '             [--config FILE] [--data DIR] [--json]',
  '  arslan chat --workspace DIR [--provider KIND] [--model NAME] [--base-url URL] [--api-key-env VAR]',
  '              [--allow KINDS] [--tier TIER] [--config FILE] [--data DIR]',
  '  arslan --help',
  '',
  'provider, model, base URL, key variable and tier default to the [agent] section of the config',
  '(--config FILE, else the default memories.toml); flags override it. Keys only via env variables.',
  '',
  'KINDS: comma-separated action kinds pre-approved for the run, e.g. workspace_write,command',
  `       (${ACTION_KINDS.join(', ')})`,
  '',
  'exit codes: 0 done · 1 run failed or interrupted · 2 usage · 3 done, but steps were refused',
  '            (no --allow) · 4 budget exceeded · 5 data dir in use · 16 internal · 130 stopped',
].join('\n');

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  budget: 4,
  busy: 5,
  internal: 16,
  stopped: 130,
} as const;

export class UsageError extends Error {}

export type Tier = 'light' | 'standard' | 'deep';

export interface AgentFlags {
  workspace: string;
  /** Else `[agent] provider`. */
  provider?: ProviderKind;
  /** Else `[agent] model` (when the provider is the config's). */
  model?: string;
  baseUrl?: string;
  /** The TOML config; else the platform default path, read only if it exists. */
  config?: string;
  apiKeyEnv?: string;
  allow: ActionKind[];
  tier?: Tier;
  dataDir?: string;
  json: boolean;
}

export type ArslanCommand =
  { command: 'help' } | ({ command: 'run'; task: string } & AgentFlags) | ({ command: 'chat' } & AgentFlags);

const VALUE_FLAGS = new Set([
  '--workspace',
  '--provider',
  '--model',
  '--base-url',
  '--api-key-env',
  '--allow',
  '--tier',
  '--data',
  '--config',
]);
const SECRET_LIKE = /^--?(api-?key|key|token|secret|password|pass|pwd|bearer)(=|$)/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function parseArslanArgs(argv: readonly string[]): ArslanCommand {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help')
    return { command: 'help' };
  if (command !== 'run' && command !== 'chat')
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const values = new Map<string, string>();
  const positional: string[] = [];
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (SECRET_LIKE.test(arg))
      throw new UsageError(
        `${arg.split('=')[0]} is not accepted: name the key's variable with --api-key-env VAR`,
      );
    if (arg === '--help' || arg === '-h') return { command: 'help' };
    if (arg === '--json') {
      json = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (VALUE_FLAGS.has(name)) {
      const value = eq > 0 && name !== arg ? arg.slice(eq + 1) : rest[++i];
      if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
      if (values.has(name)) throw new UsageError(`${name} given twice`);
      values.set(name, value);
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    positional.push(arg);
  }
  const workspace = values.get('--workspace');
  if (!workspace) throw new UsageError('--workspace DIR is required');
  const provider = values.get('--provider');
  if (provider !== undefined && !(PROVIDER_KINDS as readonly string[]).includes(provider))
    throw new UsageError(`--provider must be one of ${PROVIDER_KINDS.join(', ')}`);
  const model = values.get('--model');
  const baseUrl = values.get('--base-url');
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new UsageError('--base-url must be an http(s) URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
      throw new UsageError('--base-url must be an http(s) URL without credentials');
  }
  const apiKeyEnv = values.get('--api-key-env');
  if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv))
    throw new UsageError('--api-key-env must name an environment variable');
  const allow: ActionKind[] = [];
  for (const kind of (values.get('--allow') ?? '').split(',').map((k) => k.trim())) {
    if (kind === '') continue;
    if (!(ACTION_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`--allow: unknown action kind ${JSON.stringify(kind)}`);
    if (!allow.includes(kind as ActionKind)) allow.push(kind as ActionKind);
  }
  const tier = values.get('--tier');
  if (tier !== undefined && tier !== 'light' && tier !== 'standard' && tier !== 'deep')
    throw new UsageError('--tier must be light, standard or deep');
  const flags: AgentFlags = {
    workspace,
    ...(provider !== undefined ? { provider: provider as ProviderKind } : {}),
    ...(model !== undefined ? { model } : {}),
    allow,
    json,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    ...(tier !== undefined ? { tier } : {}),
    ...(values.has('--data') ? { dataDir: values.get('--data')! } : {}),
    ...(values.has('--config') ? { config: values.get('--config')! } : {}),
  };
  if (command === 'chat') {
    if (positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positional[0])}`);
    if (json) throw new UsageError('--json is for `arslan run`');
    return { command: 'chat', ...flags };
  }
  if (positional.length !== 1) throw new UsageError('arslan run takes exactly one "<task>"');
  return { command: 'run', task: positional[0]!, ...flags };
}
