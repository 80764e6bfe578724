// Shared fixtures of the contract suite (specs only, not exported from the lib): the REAL runtime
// (`createAgentRuntime`: built-in tools, SQLite store, RunService) in temp folders, driven over
// REAL HTTP by the scripted provider server in each provider's streaming wire format.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { RunEvent } from '../loop/run-events';
import type { StartRunInput, StartedRun } from '../loop/run-service';
import type { ModelProvider, Tool, ToolResult } from '../ports';
import { createModelProvider, type ProviderKind } from '../providers/create-provider';
import { RejectedParamMemory } from '../providers/rejected-params';
import type { ProviderOptions } from '../providers/streaming-provider';
import {
  type RecordedRequest,
  type ScriptStep,
  ScriptedProviderServer,
  type StreamReply,
} from '../providers/testing/scripted-provider-server';
import { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions } from '../runtime/agent-runtime';
import type { AnyTool } from '../tools/registry';

export const KINDS: readonly ProviderKind[] = ['openai-compatible', 'anthropic', 'gemini'];
export const MODEL = 'contract-model';

export interface ContractServer {
  baseUrlFor(kind: ProviderKind): string;
}

export interface Harness {
  kind: ProviderKind;
  runtime: AgentRuntime;
  provider: ModelProvider;
  /** Real path of a fresh workspace folder. */
  workspace: string;
  /** Real path of a folder outside the workspace (link-escape targets). */
  outside: string;
  dataDir: string;
  /** Starts a run with defaults (attended, this provider, MODEL, the workspace) and tracks its events. */
  start(input: Partial<StartRunInput> & { message: string }): TrackedRun;
  /** Stops whatever still runs, waits for it to settle, closes the store. */
  close(): Promise<void>;
}

export interface TrackedRun extends StartedRun {
  events: RunEvent[];
}

export interface HarnessOptions {
  service?: AgentRuntimeOptions['service'];
  extraTools?: readonly AnyTool[];
  tools?: AgentRuntimeOptions['tools'];
  provider?: Partial<ProviderOptions>;
  /** Reuse an existing data folder (restart scenarios). */
  dataDir?: string;
}

const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

/** Removes every temp folder made so far (afterAll). */
export function removeTemps(): void {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function makeProvider(
  server: ContractServer,
  kind: ProviderKind,
  options: Partial<ProviderOptions> = {},
): ModelProvider {
  let ids = 0;
  return createModelProvider(kind, {
    baseUrl: server.baseUrlFor(kind),
    apiKey: 'sk-contract-0123456789',
    paramMemory: new RejectedParamMemory(),
    newCallId: () => `syn${ids++}`,
    ...options,
  });
}

/** Events of a run from its start on: the snapshot taken synchronously after startRun + the stream. */
export function track(runtime: AgentRuntime, started: StartedRun): TrackedRun {
  const events: RunEvent[] = [];
  const sub = runtime.service.snapshotAndSubscribe({ runId: started.runId }, (e) => events.push(e));
  if (sub) events.unshift(...sub.snapshot.events);
  return { ...started, events };
}

export function openHarness(
  server: ContractServer,
  kind: ProviderKind,
  options: HarnessOptions = {},
): Harness {
  const workspace = tempDir('arslan-contract-ws-');
  const outside = tempDir('arslan-contract-out-');
  const dataDir = options.dataDir ?? tempDir('arslan-contract-data-');
  const runtime = createAgentRuntime({
    dataDir,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.extraTools ? { extraTools: options.extraTools } : {}),
    service: { sleep: async () => undefined, ...options.service },
  });
  const provider = makeProvider(server, kind, options.provider);
  const runs: TrackedRun[] = [];
  return {
    kind,
    runtime,
    provider,
    workspace,
    outside,
    dataDir,
    start(input) {
      const started = runtime.service.startRun({
        workspace,
        provider,
        model: MODEL,
        attended: true,
        ...input,
      });
      const tracked = track(runtime, started);
      runs.push(tracked);
      return tracked;
    },
    async close() {
      for (const run of runs) runtime.service.stop(run.runId);
      await Promise.allSettled(runs.map((r) => r.result));
      runtime.close();
    },
  };
}

export interface ContractSuite {
  /** The file's scripted provider server (started in beforeAll, reset before each test). */
  readonly server: ScriptedProviderServer;
  /** The test's harness; closed and cleared after each test. */
  h: Harness | undefined;
}

export interface ContractSuiteOptions {
  /** Stop the harness's background jobs before closing it. */
  stopJobs?: boolean;
  /** After each test, every scripted reply must have been used (default true). */
  requireScriptUsed?: boolean;
}

/**
 * Registers the hooks every contract file shares: one scripted server per file, reset before each
 * test; after each test the harness is closed and the server must have seen no unscripted request.
 */
export function contractSuite(options: ContractSuiteOptions = {}): ContractSuite {
  let server: ScriptedProviderServer | undefined;
  const suite: ContractSuite = {
    get server(): ScriptedProviderServer {
      if (!server) throw new Error('the scripted server starts in beforeAll');
      return server;
    },
    h: undefined,
  };
  beforeAll(async () => {
    server = await ScriptedProviderServer.start();
  });
  afterAll(async () => {
    await server?.close();
    removeTemps();
  });
  beforeEach(() => suite.server.reset());
  afterEach(async () => {
    if (options.stopJobs) await suite.h?.runtime.jobs.stopAll();
    await suite.h?.close();
    suite.h = undefined;
    expect(suite.server.unscripted).toBe(0);
    if (options.requireScriptUsed ?? true) expect(suite.server.pending()).toBe(0);
  });
  return suite;
}

// ---- Script helpers -----------------------------------------------------------------------------

export function text(...parts: string[]): StreamReply {
  return { steps: parts.map((t) => ({ text: t })), usage: { input: 20, output: 8 } };
}

export interface CallSpec {
  name: string;
  args?: unknown;
  id: string;
}

/** Narration + tool calls, arguments split over several deltas, with a usage chunk. */
export function toolCalls(calls: CallSpec[], extra: Partial<StreamReply> = {}): StreamReply {
  const steps: ScriptStep[] = [{ text: 'Working on it. ' }];
  for (const c of calls) steps.push({ toolCall: { name: c.name, args: c.args ?? {}, id: c.id, parts: 4 } });
  return { steps, usage: { input: 30, output: 12 }, ...extra };
}

// ---- Reading what the provider was sent ---------------------------------------------------------

export interface WireToolResult {
  id: string | undefined;
  content: string;
  /** Anthropic `is_error`, Gemini `{error}`; the OpenAI wire has no flag (always false there). */
  isError: boolean;
}

/** The tool results a recorded request carried, in wire order, per format. */
export function toolResultsOf(request: RecordedRequest): WireToolResult[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are untyped JSON
  const body = request.body as any;
  switch (request.format) {
    case 'openai':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.messages as any[])
        .filter((m) => m.role === 'tool')
        .map((m) => ({ id: m.tool_call_id, content: String(m.content), isError: false }));
    case 'anthropic':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.messages as any[])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b) => b.type === 'tool_result')
        .map((b) => ({
          id: b.tool_use_id,
          content: typeof b.content === 'string' ? b.content : JSON.stringify(b.content),
          isError: b.is_error === true,
        }));
    case 'gemini':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.contents as any[])
        .flatMap((c) => c.parts)
        .filter((p) => p.functionResponse)
        .map((p) => ({
          id: p.functionResponse.id,
          content: String(p.functionResponse.response.output ?? p.functionResponse.response.error),
          isError: p.functionResponse.response.error !== undefined,
        }));
  }
}

/** Tool names offered in a recorded request. */
export function offeredToolsOf(request: RecordedRequest): string[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body = request.body as any;
  switch (request.format) {
    case 'openai':
      return ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    case 'anthropic':
      return ((body.tools ?? []) as { name: string }[]).map((t) => t.name);
    case 'gemini':
      return ((body.tools?.[0]?.functionDeclarations ?? []) as { name: string }[]).map((d) => d.name);
  }
}

export function temperatureOf(request: RecordedRequest): unknown {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body = request.body as any;
  return request.format === 'gemini' ? body.generationConfig?.temperature : body.temperature;
}

// ---- Waiting ------------------------------------------------------------------------------------

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function notices(events: readonly RunEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'notice' ? [e.code] : []));
}

// ---- Fake tools registered through extraTools --------------------------------------------------

export interface ProbeLog {
  entries: string[];
  inFlight: number;
  maxInFlight: number;
}

export function probeLog(): ProbeLog {
  return { entries: [], inFlight: 0, maxInFlight: 0 };
}

/** A tool that logs start/end and sleeps `ms` (read-only or not), to observe scheduling. */
export function probeTool(name: string, log: ProbeLog, readOnly: boolean): Tool<{ tag: string; ms: number }> {
  return {
    name,
    description: `Probe tool ${name} (contract specs).`,
    schema: z.strictObject({ tag: z.string(), ms: z.number().int().min(0).max(2000) }),
    readOnly,
    resident: true,
    approval: () => null,
    async execute(args): Promise<ToolResult> {
      log.entries.push(`start:${args.tag}`);
      log.inFlight += 1;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      log.inFlight -= 1;
      log.entries.push(`end:${args.tag}`);
      return { content: `probe ${args.tag} done` };
    },
  };
}
