// The composition root of the agent runtime: one SQLite store, the built-in tool registry, the
// content boundaries and the RunService. The daemon's local API and `arslan run` both use it, so a
// run behaves the same whichever surface started it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BuiltinToolsOptions,
  type ToolRegistry,
  createBuiltinRegistry,
  wrapExternal,
  wrapToolOutput,
} from '../tools';
import type { AnyTool } from '../tools';
import { openAgentDb, type AgentDb, type RunMode } from '../store';
import { TurnCheckpoints, type TurnCheckpointsOptions } from '../checkpoints';
import { RunService, type RunServiceDeps, type ResolvedCall, type ToolCatalog } from '../loop';
import type { ModelProvider, Tool, ToolSpec } from '../ports';
import { WorkerPool } from '../workers/worker-pool';
import { DEFAULT_MAX_RUNNING_JOBS, JobService } from '../jobs/job-service';
import { createDelegateWorkTool } from '../tools/delegate-work-tool';
import { createBackgroundJobTool } from '../tools/background-job-tool';
import type { ModelCatalog } from '../providers/model-catalog';
import { ArtifactStore } from './artifact-store';
import { ConversationModels } from './conversation-models';

export const AGENT_DB_FILE = 'agent.sqlite';

export interface AgentRuntimeOptions {
  /** App data folder: the database, long tool outputs (DATA-03). Created 0700 if missing. */
  dataDir: string;
  tools?: BuiltinToolsOptions;
  /** Extra tools (tests, MCP proxies) registered after the built-ins. */
  extraTools?: readonly AnyTool[];
  resolveProvider?: (name: string) => ModelProvider;
  /**
   * PROV-04/05: the configured models. Conversations may then choose one by name, the summary
   * role writes summaries, and (without `resolveProvider`) runs name their provider by model name.
   */
  models?: ModelCatalog;
  /** Everything else RunService takes (budgets, clocks, prices, system prompt). */
  service?: Partial<
    Omit<RunServiceDeps, 'db' | 'tools' | 'wrapExternal' | 'wrapToolOutput' | 'dataDir' | 'checkpoints'>
  >;
  /** CKPT-11..17: undo checkpoints (on by default; `false` turns them off). */
  checkpoints?: false | Partial<Omit<TurnCheckpointsOptions, 'db' | 'dataDir'>>;
  /** WORK-09: background jobs running at once (default 3). */
  maxRunningJobs?: number;
}

export interface AgentRuntime {
  service: RunService;
  registry: ToolRegistry;
  db: AgentDb;
  /** Undo checkpoints, unless turned off. */
  checkpoints: TurnCheckpoints | undefined;
  /** DATA-02: the runs' file artifacts. */
  artifacts: ArtifactStore;
  /** PROV-04/05: present when a model catalog was given. */
  models: ConversationModels | undefined;
  /** WORK-01..06: delegate_work's temporary workers. */
  workers: WorkerPool;
  /** WORK-07..13: background jobs. */
  jobs: JobService;
  close(): void;
}

/** A conversation's view of the registry as the loop's ToolCatalog (offered set + use_tool reach). */
export function registryCatalog(registry: ToolRegistry, conversationId: string, mode: RunMode): ToolCatalog {
  const conversation = registry.forConversation(conversationId);
  void mode;
  return {
    offered(): readonly Tool[] {
      return conversation
        .specs()
        .map((spec) => conversation.get(spec.name))
        .filter((tool): tool is AnyTool => tool !== undefined) as readonly Tool[];
    },
    get(name: string): Tool | undefined {
      return conversation.get(name) as Tool | undefined;
    },
    spec(tool: Tool): ToolSpec {
      const known = registry.spec(tool.name);
      if (known) return known;
      const offered = conversation.specs().find((s) => s.name === tool.name);
      if (!offered) throw new Error(`no spec for ${tool.name}`);
      return offered;
    },
    resolve(name: string, rawArgs: unknown): ResolvedCall {
      const r = conversation.resolve(name, rawArgs);
      return r.ok ? { ok: true, tool: r.tool as Tool, args: r.args } : { ok: false, error: r.error };
    },
  };
}

/** DATA-02: the catalog with every tool's result artifacts stored (one wrapper per tool: identity is checked). */
function withArtifacts(catalog: ToolCatalog, artifacts: ArtifactStore): ToolCatalog {
  const wrapped = new WeakMap<Tool, Tool>();
  const wrap = (tool: Tool): Tool => {
    let w = wrapped.get(tool);
    if (!w) {
      w = artifacts.wrapTool(tool);
      wrapped.set(tool, w);
    }
    return w;
  };
  return {
    offered: () => catalog.offered().map(wrap),
    get: (name) => {
      const tool = catalog.get(name);
      return tool ? wrap(tool) : undefined;
    },
    ...(catalog.spec ? { spec: catalog.spec.bind(catalog) } : {}),
    ...(catalog.resolve
      ? {
          resolve: (name: string, rawArgs: unknown): ResolvedCall => {
            const r = catalog.resolve!(name, rawArgs);
            return r.ok ? { ...r, tool: wrap(r.tool) } : r;
          },
        }
      : {}),
  };
}

export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const registry = createBuiltinRegistry(options.tools);
  for (const tool of options.extraTools ?? []) registry.register(tool);
  const { db } = openAgentDb(join(options.dataDir, AGENT_DB_FILE));
  const checkpoints =
    options.checkpoints === false
      ? undefined
      : new TurnCheckpoints({ ...options.checkpoints, db, dataDir: options.dataDir });
  // CKPT-17: purge expired checkpoints now and then periodically; finish interrupted listings.
  void checkpoints?.recover().catch(() => undefined);
  checkpoints?.startPurgeTimer();
  const artifacts = new ArtifactStore(db, options.dataDir);
  const catalog = options.models;
  let models: ConversationModels | undefined;
  const resolveProvider =
    options.resolveProvider ?? (catalog ? (name: string) => catalog.resolve(name).provider : undefined);
  const service = new RunService({
    ...options.service,
    db,
    dataDir: options.dataDir,
    tools: ({ conversationId, mode }) =>
      withArtifacts(registryCatalog(registry, conversationId, mode), artifacts),
    wrapExternal: (content, meta) => wrapExternal(content, { source: meta.tool }),
    wrapToolOutput: (content, meta) => wrapToolOutput(content, { source: meta.tool }),
    ...(resolveProvider ? { resolveProvider } : {}),
    ...(catalog
      ? {
          conversationModel: (conversationId: string) => models?.forConversation(conversationId),
          summaryModel: () => models?.summaryModel(),
        }
      : {}),
    ...(checkpoints ? { checkpoints } : {}),
  });
  if (catalog) models = new ConversationModels(catalog, db, service.runs);
  // WORK-01..13: delegation and background jobs need the service, so they register after it.
  const workers = new WorkerPool({ service, tool: (name) => registry.get(name) as Tool | undefined });
  const jobs = new JobService({
    service,
    db,
    maxRunning: options.maxRunningJobs ?? DEFAULT_MAX_RUNNING_JOBS,
  });
  registry.register(createDelegateWorkTool(workers));
  registry.register(
    createBackgroundJobTool({
      parentOf: (runId) => service.parentOf(runId),
      isWorker: (runId) => workers.isWorker(runId),
      create: (input) => jobs.create(input),
    }),
  );
  return {
    service,
    registry,
    db,
    checkpoints,
    workers,
    jobs,
    artifacts,
    models,
    close: () => {
      checkpoints?.close();
      db.close();
    },
  };
}
