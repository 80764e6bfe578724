// The agent side of the daemon: the runtime under `<data dir>/agent/` (DATA-05 settings are applied
// by its store) and the provider of the `[agent]` config. Only the configured provider can be
// named by local API callers ('default' or its kind): a caller cannot point runs at another URL.
import { join } from 'node:path';
import {
  DEFAULT_BASE_URLS,
  type ModelProvider,
  type RunService,
  createAgentRuntime,
  createModelProvider,
} from '@arslan/desktop-agent';
import type { LocalApiDefaults } from '@arslan/local-api';
import type { AgentConfigToml } from '@arslan/protocol';

export const AGENT_DIR_NAME = 'agent';
export const DEFAULT_PROVIDER_NAME = 'default';

export interface DaemonAgent {
  service: RunService;
  /** Absent when no `[agent]` section is configured: runs must then fail with `no_model`. */
  defaults?: LocalApiDefaults;
  close(): void;
}

/** The env the API key is read from (ARCH-11: only the variable the config names). */
export type KeyLookup = (name: string) => string | undefined;

export function providerFromConfig(config: AgentConfigToml, lookupKey: KeyLookup): ModelProvider {
  const apiKey = config.api_key_env === undefined ? undefined : lookupKey(config.api_key_env);
  return createModelProvider(config.provider, {
    baseUrl: config.base_url ?? DEFAULT_BASE_URLS[config.provider],
    ...(apiKey ? { apiKey } : {}),
  });
}

export function createDaemonAgent(
  dataDir: string,
  config: AgentConfigToml | null,
  lookupKey: KeyLookup,
): DaemonAgent {
  let provider: ModelProvider | undefined;
  const runtime = createAgentRuntime({
    dataDir: join(dataDir, AGENT_DIR_NAME),
    resolveProvider: (name) => {
      if (!config || (name !== DEFAULT_PROVIDER_NAME && name !== config.provider))
        throw new Error(`unknown provider ${name}`);
      provider ??= providerFromConfig(config, lookupKey);
      return provider;
    },
  });
  return {
    service: runtime.service,
    ...(config
      ? {
          defaults: {
            provider: DEFAULT_PROVIDER_NAME,
            model: config.model,
            ...(config.tier ? { tier: config.tier } : {}),
          },
        }
      : {}),
    close: () => runtime.close(),
  };
}
