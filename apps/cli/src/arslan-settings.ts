// What `arslan run` / `arslan chat` talk to: flags first, then the `[agent]` section of the TOML
// config (the same file and schema as the daemon's, CFG-1/2). The config's base URL, key variable
// and model belong to ITS provider: when --provider names another kind they are not carried over,
// so a key is never sent to an endpoint it was not configured for. API keys come only from the
// environment variable that --api-key-env or `api_key_env` names (ARCH-11, EGRESS-9).
import { resolve } from 'node:path';
import { defaultConfigFile, defaultDataDir } from '@arslan/daemon-client';
import { DEFAULT_BASE_URLS, type ProviderKind } from '@arslan/desktop-agent';
import type { AgentConfigToml } from '@arslan/protocol';
import { type AgentFlags, type Tier, UsageError } from './arslan-args';
import { loadConfig } from './cli-config';
import { UsageError as ConfigError } from './cli-errors';

export type AgentSettingsProblem = 'no_provider' | 'no_model' | 'key_env_unset' | 'bad_config';

/** A provider, model or key that neither the flags nor the config supply (exit 2, usage). */
export class AgentSettingsError extends UsageError {
  constructor(
    readonly code: AgentSettingsProblem,
    message: string,
  ) {
    super(message);
    this.name = 'AgentSettingsError';
  }
}

export interface AgentSettings {
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  /** Resolved from the environment; never printed. */
  apiKey?: string;
  tier?: Tier;
  /** The agent data folder's parent: --data, else `[storage] data_dir`, else the platform default. */
  dataDir: string;
  /** The config file read, if any. */
  configPath: string | null;
}

export interface SettingsEnv {
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
  homedir: string;
}

function readConfig(
  flags: AgentFlags,
  io: SettingsEnv,
): { path: string | null; agent?: AgentConfigToml; dataDir: string | null } {
  const platform = { platform: io.platform, homedir: io.homedir, env: io.env };
  try {
    const loaded = loadConfig(flags.config, defaultConfigFile(platform), io.cwd);
    return { path: loaded.path, dataDir: loaded.dataDir, ...(loaded.agent ? { agent: loaded.agent } : {}) };
  } catch (error) {
    if (error instanceof ConfigError) throw new AgentSettingsError('bad_config', error.message);
    throw error;
  }
}

export function resolveAgentSettings(flags: AgentFlags, io: SettingsEnv): AgentSettings {
  const config = readConfig(flags, io);
  const agent = config.agent;
  const from = config.path ? ` in ${config.path}` : '';
  const provider = flags.provider ?? agent?.provider;
  if (!provider)
    throw new AgentSettingsError(
      'no_provider',
      `no provider: pass --provider openai-compatible|anthropic|gemini or set [agent] provider${from || ' in the config'}`,
    );
  // The config's endpoint, key variable and model only for the provider it configures.
  const own = agent && agent.provider === provider ? agent : undefined;
  const model = flags.model ?? own?.model;
  if (!model)
    throw new AgentSettingsError(
      'no_model',
      agent && !own
        ? `no model: --provider ${provider} differs from the config's [agent] provider; pass --model NAME`
        : `no model: pass --model NAME or set [agent] model${from || ' in the config'}`,
    );
  let apiKey: string | undefined;
  const keyEnv = flags.apiKeyEnv ?? own?.api_key_env;
  if (keyEnv !== undefined) {
    apiKey = io.env[keyEnv] || undefined;
    if (!apiKey) {
      const namedBy = flags.apiKeyEnv !== undefined ? '--api-key-env' : `[agent] api_key_env${from}`;
      throw new AgentSettingsError(
        'key_env_unset',
        `the environment variable ${keyEnv} (named by ${namedBy}) is not set`,
      );
    }
  }
  const tier = flags.tier ?? agent?.tier;
  const dataDir = resolve(
    io.cwd,
    flags.dataDir ??
      config.dataDir ??
      defaultDataDir({ platform: io.platform, homedir: io.homedir, env: io.env }),
  );
  return {
    provider,
    model,
    baseUrl: flags.baseUrl ?? own?.base_url ?? DEFAULT_BASE_URLS[provider],
    ...(apiKey ? { apiKey } : {}),
    ...(tier ? { tier } : {}),
    dataDir,
    configPath: config.path,
  };
}
