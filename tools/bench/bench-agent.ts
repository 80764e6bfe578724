// npm run bench:agent — loop overhead per step of the agent runtime, EXCLUDING model time, with 10
// and 100 registered (resident, i.e. offered every step) tools. The real runtime runs
// (createAgentRuntime: RunService, AgentRun, ToolRegistry, approval gate, budget, SQLite store in
// WAL with synchronous=NORMAL, event registry) against an in-process ModelProvider that answers
// every request at once with one scripted call of a trivial read-only tool (no HTTP, no parsing),
// so model time is ~0. A step's overhead is measured from the moment the provider returns a
// response to the moment the loop makes its next request: validating the call, gating it,
// executing the tool, binding the result, persisting steps/trajectory/events, building the next
// context (offered tool specs) — everything the loop adds around the model.
//
// Peer, measured in the same run, interleaved run by run: a minimal hand-written loop doing the
// irreducible work of one step with the same tool count — map the N cached tool specs into a
// request, JSON.parse + zod safeParse of the call's arguments, await the tool, and ONE SQLite
// INSERT of the result into a WAL / synchronous=NORMAL database. The ratio is what the runtime's
// bookkeeping (checkpoints, events, trajectory, budget, gates) costs on top of that.
// Prints one JSON line; record results in docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type * as AgentApi from '@arslan/desktop-agent';
import type { ModelProvider, ModelRequest, ModelResponse, Tool } from '@arslan/desktop-agent';
import type * as ZodApi from 'zod';
import { round } from './bench-timer';
import { importBundled } from './bundle';

type Api = typeof AgentApi & { z: typeof ZodApi.z };

/** Tool-calling steps per run (a deep-tier reply is at most ~150 requests; standard ~60). */
const STEPS_PER_RUN = Number(process.env['BENCH_STEPS_PER_RUN'] ?? 50);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 40);
const WARMUP_RUNS = 5;
const TARGET_P95_MS = 5;
/** The runtime's own tools (counted once in main: the built-in set grows with the product). */
let BUILTINS = 0;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Answers instantly: a call of `bench_read` with fresh arguments, then a final answer. */
class InstantProvider implements ModelProvider {
  readonly kind = 'openai-compatible';
  /** Per-step overheads of the current run (ms). */
  readonly overheads: number[] = [];
  /** The same intervals in process CPU time (ms): immune to preemption by other jobs. */
  readonly cpu: number[] = [];
  private returnedAt: number | null = null;
  private returnedCpu: NodeJS.CpuUsage | null = null;
  private step = 0;

  async stream(request: ModelRequest): Promise<ModelResponse> {
    const now = performance.now();
    if (this.returnedAt !== null) this.overheads.push(now - this.returnedAt);
    if (this.returnedCpu !== null) {
      const used = process.cpuUsage(this.returnedCpu);
      this.cpu.push((used.user + used.system) / 1000);
    }
    if (request.tools.length === 0) throw new Error('no tools offered');
    this.step += 1;
    const response: ModelResponse =
      this.step > STEPS_PER_RUN
        ? { text: 'done', toolCalls: [], stopReason: 'end', usage: { inputTokens: 10, outputTokens: 2 } }
        : {
            text: '',
            toolCalls: [
              {
                id: `call_${this.step}`,
                name: 'bench_read',
                argumentsJson: JSON.stringify({ path: `file-${this.step}.txt`, line: this.step }),
              },
            ],
            stopReason: 'tool_calls',
            usage: { inputTokens: 10, outputTokens: 2 },
          };
    this.returnedCpu = process.cpuUsage();
    this.returnedAt = performance.now();
    return response;
  }
}

function benchTools(api: Api, total: number): Tool[] {
  const { z } = api;
  const schema = z.strictObject({
    path: z.string().min(1).describe('File path.'),
    line: z.number().int().min(0).describe('Line number.'),
  });
  const make = (name: string): Tool => ({
    name,
    description: `Trivial read-only tool ${name}: returns one line.`,
    schema: schema as Tool['schema'],
    readOnly: true,
    resident: true,
    approval: () => null,
    execute: async (args) => ({ content: `line ${(args as { line: number }).line}` }),
  });
  const tools = [make('bench_read')];
  for (let i = 1; tools.length + BUILTINS < total; i++) tools.push(make(`bench_filler_${i}`));
  return tools;
}

interface Side {
  steps: number[];
  cpu: number[];
}

/** One runtime per tool count; one run = STEPS_PER_RUN measured steps. */
async function loopRun(runtime: AgentApi.AgentRuntime, workspace: string, into: Side | null): Promise<void> {
  const provider = new InstantProvider();
  const started = runtime.service.startRun({
    message: 'bench',
    workspace,
    provider,
    model: 'bench-model',
    attended: false,
  });
  const result = await started.result;
  if (result.status !== 'succeeded' || result.steps.length !== STEPS_PER_RUN)
    throw new Error(`bench run ended ${result.status} after ${result.steps.length} steps`);
  if (into) {
    into.steps.push(...provider.overheads);
    into.cpu.push(...provider.cpu);
  }
}

/** The peer: the irreducible work of a step, hand-written. */
function makePeer(api: Api, dir: string, tools: Tool[]) {
  const db = new Database(join(dir, 'peer.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE results (id INTEGER PRIMARY KEY, call_id TEXT NOT NULL, content TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO results (call_id, content) VALUES (?, ?)');
  const specs = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: api.z.toJSONSchema(t.schema as ZodApi.ZodType),
  }));
  const all = [
    ...specs,
    ...Array.from({ length: BUILTINS }, (_, i) => ({ ...specs[0]!, name: `builtin_${i}` })),
  ];
  const tool = tools[0]!;
  return {
    async run(into: Side | null): Promise<void> {
      for (let step = 1; step <= STEPS_PER_RUN; step++) {
        const cpu = process.cpuUsage();
        const t = performance.now();
        const request = { tools: all.map((s) => ({ ...s })) };
        if (request.tools.length === 0) throw new Error('no tools');
        const raw = JSON.parse(JSON.stringify({ path: `file-${step}.txt`, line: step })) as unknown;
        const parsed = tool.schema.safeParse(raw);
        if (!parsed.success) throw new Error('peer parse failed');
        const result = await tool.execute(parsed.data, {} as never);
        insert.run(`call_${step}`, result.content);
        const wall = performance.now() - t;
        const used = process.cpuUsage(cpu);
        into?.steps.push(wall);
        into?.cpu.push((used.user + used.system) / 1000);
      }
    },
    close: () => db.close(),
  };
}

async function measure(api: Api, total: number): Promise<{ loop: Side; peer: Side; registered: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'arslan-bench-agent-'));
  const workspace = mkdtempSync(join(dir, 'ws-'));
  const tools = benchTools(api, total);
  const runtime = api.createAgentRuntime({
    dataDir: join(dir, 'data'),
    extraTools: tools,
    service: { softLimits: { requests: 10_000, toolCalls: 10_000, tokens: 1e12 }, dollarCap: null },
  });
  const registered = runtime.registry.names().length;
  const peer = makePeer(api, dir, tools);
  const loop: Side = { steps: [], cpu: [] };
  const bare: Side = { steps: [], cpu: [] };
  try {
    for (let i = 0; i < WARMUP_RUNS; i++) {
      await loopRun(runtime, workspace, null);
      await peer.run(null);
    }
    for (let i = 0; i < RUNS; i++) {
      await loopRun(runtime, workspace, loop);
      await peer.run(bare);
    }
  } finally {
    peer.close();
    runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { loop, peer: bare, registered };
}

function summary(side: Side) {
  return {
    p50_ms: round(percentile(side.steps, 50), 3),
    p95_ms: round(percentile(side.steps, 95), 3),
    cpu_p50_ms: round(percentile(side.cpu, 50), 3),
    cpu_p95_ms: round(percentile(side.cpu, 95), 3),
    steps: side.steps.length,
  };
}

async function main(): Promise<void> {
  const api = await importBundled<Api>(
    "export { createAgentRuntime } from '@arslan/desktop-agent'; export { z } from 'zod';",
    'node',
  );
  const probeDir = mkdtempSync(join(tmpdir(), 'arslan-bench-agent-probe-'));
  const probe = api.createAgentRuntime({ dataDir: join(probeDir, 'data') });
  BUILTINS = probe.registry.names().length;
  probe.close();
  rmSync(probeDir, { recursive: true, force: true });
  const out: Record<string, unknown> = { bench: 'agent', builtin_tools: BUILTINS };
  let pass = true;
  // The issue asks for 10 and 100 registered tools; the runtime alone now registers more than 9
  // (delegate_work, start_background_job…), so the small set is its built-ins + the bench tool.
  for (const total of [Math.max(10, BUILTINS + 1), 100]) {
    const { loop, peer, registered } = await measure(api, total);
    if (registered !== total) throw new Error(`expected ${total} registered tools, got ${registered}`);
    const l = summary(loop);
    const p = summary(peer);
    pass &&= l.p95_ms <= TARGET_P95_MS;
    out[`tools_${total}`] = {
      loop_step_ms_p50: l.p50_ms,
      loop_step_ms_p95: l.p95_ms,
      peer_step_ms_p50: p.p50_ms,
      peer_step_ms_p95: p.p95_ms,
      ratio_p50_vs_peer: round(l.p50_ms / p.p50_ms, 2),
      ratio_p95_vs_peer: round(l.p95_ms / p.p95_ms, 2),
      loop_step_cpu_ms_p50: l.cpu_p50_ms,
      loop_step_cpu_ms_p95: l.cpu_p95_ms,
      peer_step_cpu_ms_p95: p.cpu_p95_ms,
      steps: l.steps,
    };
  }
  out['steps_per_run'] = STEPS_PER_RUN;
  out['target_p95_ms'] = TARGET_P95_MS;
  out['target_met'] = pass;
  out['peer'] = 'hand-written step: N cached specs + JSON.parse + zod safeParse + tool + 1 SQLite WAL insert';
  out['loadavg_1m'] = round(loadavg()[0] ?? 0, 2);
  out['cpus'] = cpus().length;
  out['node'] = process.version;
  console.log(JSON.stringify(out));
}

void main();
