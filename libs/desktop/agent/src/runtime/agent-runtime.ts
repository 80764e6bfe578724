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

export const AGENT_DB_FILE = 'agent.sqlite';

export interface AgentRuntimeOptions {
  /** App data folder: the database, long tool outputs (DATA-03). Created 0700 if missing. */
  dataDir: string;
  tools?: BuiltinToolsOptions;
  /** Extra tools (tests, MCP proxies) registered after the built-ins. */
  extraTools?: readonly AnyTool[];
  resolveProvider?: (name: string) => ModelProvider;
  /** Everything else RunService takes (budgets, clocks, prices, system prompt). */
  service?: Partial<
    Omit<RunServiceDeps, 'db' | 'tools' | 'wrapExternal' | 'wrapToolOutput' | 'dataDir' | 'checkpoints'>
  >;
  /** CKPT-11..17: undo checkpoints (on by default; `false` turns them off). */
  checkpoints?: false | Partial<Omit<TurnCheckpointsOptions, 'db' | 'dataDir'>>;
}

export interface AgentRuntime {
  service: RunService;
  registry: ToolRegistry;
  db: AgentDb;
  /** Undo checkpoints, unless turned off. */
  checkpoints: TurnCheckpoints | undefined;
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
  const service = new RunService({
    ...options.service,
    db,
    dataDir: options.dataDir,
    tools: ({ conversationId, mode }) => registryCatalog(registry, conversationId, mode),
    wrapExternal: (content, meta) => wrapExternal(content, { source: meta.tool }),
    wrapToolOutput: (content, meta) => wrapToolOutput(content, { source: meta.tool }),
    ...(options.resolveProvider ? { resolveProvider: options.resolveProvider } : {}),
    ...(checkpoints ? { checkpoints } : {}),
  });
  return {
    service,
    registry,
    db,
    checkpoints,
    close: () => {
      checkpoints?.close();
      db.close();
    },
  };
}
