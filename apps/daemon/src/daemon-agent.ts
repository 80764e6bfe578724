// The agent side of the daemon: the runtime under `<data dir>/agent/` (DATA-05 settings are applied
// by its store) and the models of the `[agent]` config. Only configured models can be named by
// local API callers (a model name, or for the `[agent]` table's own model 'default' or its kind):
// a caller cannot point runs at another URL (PROV-06). `[[agent.models]]` adds named models a
// conversation may choose (PROV-04); `[agent.roles]` says which does the main conversation,
// summaries and judgment (PROV-05). With `[agent] recall_vault` and the daemon's retrieval, the
// agent gets `recall` over that vault.
import { join } from 'node:path';
import {
  type ArtifactStore,
  type ConfiguredModel,
  type ConversationModels,
  DEFAULT_BASE_URLS,
  type JobService,
  ModelCatalog,
  type ModelProvider,
  type RunService,
  createAgentRuntime,
  createModelProvider,
  providerSearchFromModels,
} from '@arslan/desktop-agent';
import type { LocalApiDefaults } from '@arslan/local-api';
import { AGENT_DEFAULT_MODEL_NAME, type AgentConfigToml } from '@arslan/protocol';
import type { VaultService } from '@arslan/desktop-vault';
import type { RagService } from '@arslan/vault-rag';
import { createVaultRecall, isLoopbackUrl } from './daemon-recall';

export const AGENT_DIR_NAME = 'agent';
export const DEFAULT_PROVIDER_NAME = AGENT_DEFAULT_MODEL_NAME;

export interface DaemonAgent {
  service: RunService;
  /** Absent when no `[agent]` section is configured: runs must then fail with `no_model`. */
  defaults?: LocalApiDefaults;
  /** PROV-04/05: the configured models (absent without `[agent]`). */
  models?: ConversationModels;
  /** DATA-02: the runs' recorded files. */
  artifacts?: ArtifactStore;
  /** WORK-07..13: background jobs (the local API's /api/jobs). */
  jobs?: JobService;
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

/** Every configured model by name: `default` (the `[agent]` table) first, then `[[agent.models]]`. */
export function configuredModels(config: AgentConfigToml, lookupKey: KeyLookup): ConfiguredModel[] {
  const entries = [{ name: AGENT_DEFAULT_MODEL_NAME, ...config }, ...(config.models ?? [])];
  return entries.map((m) => {
    const apiKey = m.api_key_env === undefined ? undefined : lookupKey(m.api_key_env);
    return {
      name: m.name,
      kind: m.provider,
      model: m.model,
      baseUrl: m.base_url ?? DEFAULT_BASE_URLS[m.provider],
      ...(apiKey ? { apiKey } : {}),
    };
  });
}

export function catalogFromConfig(config: AgentConfigToml, lookupKey: KeyLookup): ModelCatalog {
  return new ModelCatalog(configuredModels(config, lookupKey), config.roles ?? {});
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
    // EGRESS-11: any configured model may serve a conversation (PROV-04), and the recall port does
    // not know which one a run uses, so vault text counts as on-device only if every model is.
    modelOnDevice: configuredModels(config, () => undefined).every((m) => isLoopbackUrl(m.baseUrl)),
  });
}

export function createDaemonAgent(
  dataDir: string,
  config: AgentConfigToml | null,
  lookupKey: KeyLookup,
  vault?: AgentVaultAccess,
): DaemonAgent {
  const catalog = config ? catalogFromConfig(config, lookupKey) : undefined;
  const recall = recallFor(config, vault);
  const runtime = createAgentRuntime({
    dataDir: join(dataDir, AGENT_DIR_NAME),
    tools: {
      ...(recall ? { recall } : {}),
      // WEB-01/02: the turn model's own provider search, with only that endpoint's key.
      ...(config
        ? { web: { providerSearch: providerSearchFromModels(configuredModels(config, lookupKey)) } }
        : {}),
    },
    ...(catalog ? { models: catalog } : {}),
    resolveProvider: (name) => {
      if (!config || !catalog) throw new Error(`unknown provider ${name}`);
      // The `[agent]` table's own model may also be named by its provider kind (older callers).
      if (name === config.provider && !catalog.has(name))
        return catalog.resolve(AGENT_DEFAULT_MODEL_NAME).provider;
      if (!catalog.has(name)) throw new Error(`unknown provider ${name}`);
      return catalog.resolve(name).provider;
    },
  });
  const main = catalog?.forRole('main');
  return {
    service: runtime.service,
    ...(config && main
      ? {
          defaults: {
            provider: main.name,
            model: main.model,
            ...(config.tier ? { tier: config.tier } : {}),
          },
        }
      : {}),
    ...(runtime.models ? { models: runtime.models } : {}),
    artifacts: runtime.artifacts,
    jobs: runtime.jobs,
    close: () => runtime.close(),
  };
}
