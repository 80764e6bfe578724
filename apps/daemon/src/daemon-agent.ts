// The agent side of the daemon: the runtime under `<data dir>/agent/` (DATA-05 settings are applied
// by its store) and the provider of the `[agent]` config. Only the configured provider can be
// named by local API callers ('default' or its kind): a caller cannot point runs at another URL.
// With `[agent] recall_vault` and the daemon's retrieval, the agent gets `recall` over that vault.
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
import type { VaultService } from '@arslan/desktop-vault';
import type { RagService } from '@arslan/vault-rag';
import { createVaultRecall, isLoopbackUrl } from './daemon-recall';

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

/** The vault side the agent may read through `recall`. */
export interface AgentVaultAccess {
  service: VaultService;
  rag?: RagService;
}

function recallFor(config: AgentConfigToml | null, vault: AgentVaultAccess | undefined) {
  if (!config?.recall_vault || !vault?.rag) return undefined;
  return createVaultRecall({
    service: vault.service,
    rag: vault.rag,
    vault: config.recall_vault,
    modelOnDevice: isLoopbackUrl(config.base_url ?? DEFAULT_BASE_URLS[config.provider]),
  });
}

export function createDaemonAgent(
  dataDir: string,
  config: AgentConfigToml | null,
  lookupKey: KeyLookup,
  vault?: AgentVaultAccess,
): DaemonAgent {
  let provider: ModelProvider | undefined;
  const recall = recallFor(config, vault);
  const runtime = createAgentRuntime({
    dataDir: join(dataDir, AGENT_DIR_NAME),
    ...(recall ? { tools: { recall } } : {}),
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
