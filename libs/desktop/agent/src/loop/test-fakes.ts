// Deterministic in-test fakes for the loop specs (not exported from the lib).
import { z } from 'zod';
import type {
  ApprovalNeed,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  Tool,
  ToolContext,
  ToolResult,
} from '../ports';
import { openAgentDb } from '../store/agent-db';
import type { RunEvent } from './run-events';
import { RunService, type RunServiceDeps } from './run-service';
import { StaticToolCatalog } from './tool-catalog';

export type ScriptStep =
  | Partial<ModelResponse>
  | ((request: ModelRequest, signal: AbortSignal) => Promise<ModelResponse> | ModelResponse);

export function reply(text: string): Partial<ModelResponse> {
  return { text, toolCalls: [], stopReason: 'end' };
}

export function calls(...list: [id: string, name: string, args: unknown][]): Partial<ModelResponse> {
  return {
    text: 'Working on it.',
    toolCalls: list.map(([id, name, args]) => ({
      id,
      name,
      argumentsJson: typeof args === 'string' ? args : JSON.stringify(args),
    })),
    stopReason: 'tool_calls',
  };
}

/** A scripted ModelProvider: one step per request; records every request it received. */
export class FakeProvider implements ModelProvider {
  readonly kind = 'fake';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: ScriptStep[]) {}

  async stream(
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
    signal: AbortSignal,
  ): Promise<ModelResponse> {
    this.requests.push(structuredClone({ ...request, trajectory: [...request.trajectory] }));
    const next = this.script.shift();
    if (!next) throw new Error('script exhausted');
    const partial = typeof next === 'function' ? await next(request, signal) : next;
    const response: ModelResponse = {
      text: partial.text ?? '',
      toolCalls: partial.toolCalls ?? [],
      stopReason: partial.stopReason ?? 'end',
      usage: partial.usage ?? { inputTokens: 10, outputTokens: 5 },
    };
    if (response.text) onEvent({ type: 'text', delta: response.text });
    for (const c of response.toolCalls) onEvent({ type: 'tool_call', id: c.id, name: c.name });
    onEvent({ type: 'usage', usage: response.usage });
    return response;
  }
}

export interface FakeToolOptions {
  readOnly?: boolean;
  approval?: (args: { value?: string }, ctx: ToolContext) => ApprovalNeed | null;
  execute?: (args: { value?: string }, ctx: ToolContext) => Promise<ToolResult> | ToolResult;
}

export function fakeTool(
  name: string,
  options: FakeToolOptions = {},
): Tool<{ value?: string }> & { executed: string[] } {
  const executed: string[] = [];
  return {
    name,
    description: `fake ${name}`,
    schema: z.strictObject({ value: z.string().optional() }),
    readOnly: options.readOnly ?? true,
    resident: true,
    executed,
    approval: options.approval ?? (() => null),
    async execute(args, ctx) {
      executed.push(ctx.callId);
      return options.execute ? options.execute(args, ctx) : { content: `${name}:${args.value ?? ''}` };
    },
  };
}

/** Manual timers: nothing fires until `advance`. */
export class ManualTimers {
  private nowMs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void; every?: number }>();
  readonly now = (): number => this.nowMs;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.pending.set(id, { at: this.nowMs + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown): void => void this.pending.delete(handle as number);
  setInterval = (fn: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.pending.set(id, { at: this.nowMs + ms, fn, every: ms });
    return id;
  };
  clearInterval = (handle: unknown): void => void this.pending.delete(handle as number);

  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, t] = due;
      this.nowMs = t.at;
      if (t.every) t.at += t.every;
      else this.pending.delete(id);
      t.fn();
    }
    this.nowMs = target;
  }
}

export const wrapExternal = (content: string, meta: { tool: string; callId: string }): string =>
  `<ext ${meta.callId}>${content}</ext>`;
export const wrapToolOutput = (content: string, meta: { tool: string; callId: string }): string =>
  `<out ${meta.callId}>${content}</out>`;

export function makeService(
  tools: Tool[],
  overrides: Partial<RunServiceDeps> = {},
): { service: RunService; timers: ManualTimers; events: RunEvent[] } {
  const timers = new ManualTimers();
  const { db } = openAgentDb(':memory:');
  let id = 0;
  const service = new RunService({
    db,
    tools: () => new StaticToolCatalog(tools),
    wrapExternal,
    wrapToolOutput,
    dataDir: '/tmp/arslan-test',
    now: timers.now,
    timers,
    sleep: async () => undefined,
    newId: () => `id${++id}`,
    ...overrides,
  });
  const events: RunEvent[] = [];
  return { service, timers, events };
}

/** Lets pending promise callbacks run. */
export async function flush(times = 10): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
