// Contract suite: delegate_work workers (WORK-01..06) and background jobs (WORK-07..13) on the REAL
// runtime, with the REAL loop talking over REAL HTTP to the scripted provider server.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest, ScriptedReply } from '../providers/testing/scripted-provider-server';
import { WORKER_SYSTEM } from '../workers/worker-pool';
import {
  MODEL,
  contractSuite,
  offeredToolsOf,
  openHarness,
  text,
  toolCalls,
  toolResultsOf,
  waitFor,
} from './contract-harness';

jest.setTimeout(30_000);

/** How long the scripted server holds a worker's reply (WORK-01: concurrency is read from arrivals). */
const WORKER_REPLY_MS = 1_000;

const suite = contractSuite({ stopJobs: true, requireScriptUsed: false });

const isWorkerRequest = (req: RecordedRequest): boolean =>
  JSON.stringify(req.body).includes(WORKER_SYSTEM.slice(0, 60));
/** The subtask (tag `S1`..`S4`) a worker request is about. */
const subtaskOf = (req: RecordedRequest): string =>
  /research item (S\d)/.exec(JSON.stringify(req.body))?.[1] ?? '?';
const hasToolResult = (req: RecordedRequest): boolean => toolResultsOf(req).length > 0;

/** One entry per expected request, each answered by `dispatch` (workers run concurrently). */
function script(count: number, dispatch: (req: RecordedRequest) => ScriptedReply): void {
  for (let i = 0; i < count; i++) suite.server.enqueue((req) => dispatch(req));
}

const subtasks = (n: number): string[] => Array.from({ length: n }, (_, i) => `research item S${i + 1}`);

describe('WORK-01..06: delegate_work workers', () => {
  it('WORK-01/03/05: 4 subtasks run as workers, at most 2 at once; outputs return matched; cost goes to the parent', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible', {
      service: { prices: { [MODEL]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } } },
    });
    let parentCalls = 0;
    script(6, (req) => {
      if (isWorkerRequest(req)) {
        return { ...text(`finding for ${subtaskOf(req)}`), headersDelayMs: 150 };
      }
      parentCalls += 1;
      if (parentCalls === 1)
        return toolCalls([{ name: 'delegate_work', args: { subtasks: subtasks(4) }, id: 'call_d1' }]);
      return text('Synthesis: S1..S4 cross-checked.');
    });
    const run = suite.h.start({ message: 'research four things' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toContain('Synthesis');
    const workerReqs = suite.server.requests.filter(isWorkerRequest);
    expect(workerReqs.map(subtaskOf).sort()).toEqual(['S1', 'S2', 'S3', 'S4']);
    // WORK-01: never more than 2 workers at once.
    expect(suite.h.runtime.workers.peak.get(run.runId)).toBe(2);
    // WORK-03: the outputs come back to the parent as the delegate_work tool result, per subtask.
    const last = suite.server.lastRequest();
    const [delegated] = toolResultsOf(last);
    expect(delegated!.id).toBe('call_d1');
    for (const tag of ['S1', 'S2', 'S3', 'S4']) expect(delegated!.content).toContain(`finding for ${tag}`);
    expect(delegated!.content.indexOf('finding for S1')).toBeLessThan(
      delegated!.content.indexOf('finding for S4'),
    );
    // SEC-002: worker output reaches the parent as external data.
    expect(delegated!.content).toMatch(/external|untrusted/i);
    // WORK-05 / BUD-06: 2 parent requests + 4 worker requests, all in the parent's usage and dollars.
    expect(result.usage.requests).toBe(6);
    expect(result.usage.inputTokens).toBe(30 + 20 + 4 * 20);
    expect(result.usage.dollars).toBeCloseTo(((30 + 12 + 20 + 8 + 4 * 28) * 1_000) / 1_000_000, 6);
  });

  it('WORK-01: the 2-at-once limit holds on the wire (3 subtasks: the third starts only after one ends)', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    let parentCalls = 0;
    const arrivals: Array<{ tag: string; at: number }> = [];
    script(5, (req) => {
      if (isWorkerRequest(req)) {
        arrivals.push({ tag: subtaskOf(req), at: Date.now() });
        return { ...text(`finding for ${subtaskOf(req)}`), headersDelayMs: WORKER_REPLY_MS };
      }
      parentCalls += 1;
      if (parentCalls === 1)
        return toolCalls([{ name: 'delegate_work', args: { subtasks: subtasks(3) }, id: 'toolu_d1' }]);
      return text('done');
    });
    const result = await suite.h.start({ message: 'three things' }).result;
    expect(result.status).toBe('succeeded');
    expect(arrivals).toHaveLength(3);
    const [a, b, c] = arrivals.sort((x, y) => x.at - y.at);
    // The server holds each worker reply for WORKER_REPLY_MS: arriving within that window means
    // running together (timing margins, not tight stamps, so a loaded CI machine cannot flake it).
    expect(b!.at - a!.at).toBeLessThan(WORKER_REPLY_MS); // the first two together
    expect(c!.at - a!.at).toBeGreaterThanOrEqual(WORKER_REPLY_MS - 50); // the third waited for a free slot
  });

  it('WORK-02/04: a worker is offered only web_search and web_extract, no persona; write_file and delegate_work are refused', async () => {
    suite.h = openHarness(suite.server, 'gemini');
    let parentCalls = 0;
    script(4, (req) => {
      if (isWorkerRequest(req)) {
        if (!hasToolResult(req))
          return toolCalls([
            { name: 'write_file', args: { path: 'pwned.txt', content: 'x' }, id: 'w1' },
            { name: 'delegate_work', args: { subtasks: ['research item S9'] }, id: 'w2' },
          ]);
        return text('worker: could not write, reporting only');
      }
      parentCalls += 1;
      if (parentCalls === 1)
        return toolCalls([{ name: 'delegate_work', args: { subtasks: subtasks(1) }, id: 'p1' }]);
      return text('parent done');
    });
    const result = await suite.h.start({ message: 'one thing' }).result;
    expect(result.status).toBe('succeeded');
    const workerReqs = suite.server.requests.filter(isWorkerRequest);
    expect(workerReqs).toHaveLength(2);
    expect(offeredToolsOf(workerReqs[0]!).sort()).toEqual(['web_extract', 'web_search']);
    // WORK-04: no Arslan persona in a worker's instructions.
    expect(JSON.stringify(workerReqs[0]!.body)).not.toContain('Arslan');
    // WORK-02: both calls were refused without running; nothing was written; no nested worker.
    const refused = toolResultsOf(workerReqs[1]!);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.content).toMatch(/not available|no tool/i);
    expect(existsSync(join(suite.h.workspace, 'pwned.txt'))).toBe(false);
    expect(suite.server.requests.filter((r) => subtaskOf(r) === 'S9' && isWorkerRequest(r))).toHaveLength(0);
  });

  it('WORK-05/02: a parent stop cancels its running workers; a worker cannot delegate', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    let parentCalls = 0;
    script(3, (req) => {
      if (isWorkerRequest(req)) return { headersDelayMs: 'forever', steps: [] };
      parentCalls += 1;
      return toolCalls([{ name: 'delegate_work', args: { subtasks: subtasks(3) }, id: 'call_s1' }]);
    });
    const run = suite.h.start({ message: 'slow research' });
    await waitFor(() => suite.server.requests.filter(isWorkerRequest).length === 2, 'two workers in flight');
    // WORK-02: a live worker's run cannot delegate in turn (no recursion), even if it reached the tool.
    const [worker] = suite.h.runtime.db
      .prepare("SELECT id FROM runs WHERE conversation_id LIKE 'worker-%'")
      .all() as {
      id: string;
    }[];
    await expect(
      suite.h.runtime.workers.delegate(worker!.id, ['x'], new AbortController().signal),
    ).rejects.toThrow(/cannot delegate/);
    suite.h.runtime.service.stop(run.runId);
    const result = await run.result;
    expect(result.status).toBe('stopped');
    // The third worker never started; the two running ones ended stopped.
    expect(suite.server.requests.filter(isWorkerRequest)).toHaveLength(2);
    const workerRuns = suite.h.runtime.db
      .prepare("SELECT status FROM runs WHERE conversation_id LIKE 'worker-%'")
      .all() as { status: string }[];
    expect(workerRuns.map((r) => r.status)).toEqual(['stopped', 'stopped']);
    expect(parentCalls).toBe(1);
  });
});

describe('WORK-07..13: background jobs', () => {
  it('WORK-09/12: 4 jobs → 3 run, 1 waits; each finishing completed counts as completed', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    script(4, () => ({ ...text('job finished'), headersDelayMs: 250 }));
    const origin = 'conv-origin';
    const cards: string[] = [];
    suite.h.runtime.jobs.subscribe((e) => cards.push(`${e.job.id}:${e.job.status}`));
    const jobs = [1, 2, 3, 4].map((i) =>
      suite.h!.runtime.jobs.create({
        originConversationId: origin,
        message: `long task ${i}`,
        workspace: suite.h!.workspace,
        provider: suite.h!.provider,
        model: MODEL,
      }),
    );
    expect(jobs.map((j) => j.status)).toEqual(['running', 'running', 'running', 'queued']);
    expect(suite.h.runtime.jobs.runningCount()).toBe(3);
    expect(suite.h.runtime.jobs.get(jobs[3]!.id)!.queuePosition).toBe(1);
    const finished = await Promise.all(jobs.map((j) => suite.h!.runtime.jobs.settled(j.id)!));
    expect(finished.map((j) => j.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const firstEnd = Math.min(...finished.slice(0, 3).map((j) => j.endedAt!));
    expect(finished[3]!.startedAt!).toBeGreaterThanOrEqual(firstEnd);
    for (const j of suite.h.runtime.jobs.list(origin)) {
      expect(j.taskStatus).toBe('succeeded'); // WORK-12: the task shows done
      expect(j.answer).toBe('job finished');
      expect(suite.h.runtime.service.tasks.getTask(j.taskId!).status).toBe('succeeded');
    }
    // WORK-08: the card went queued → running → completed.
    expect(cards).toContain(`${jobs[3]!.id}:queued`);
    expect(cards).toContain(`${jobs[3]!.id}:completed`);
    // WORK-07: each job had its own context (own conversation), none in the origin's history.
    expect(suite.h.runtime.service.runs.listMessages(origin)).toHaveLength(0);
  });

  it('WORK-13: a job asks with its origin conversation; the card offers the window options; the grant applies', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    const origin = 'conv-approvals';
    const write = (id: string) =>
      toolCalls([{ name: 'write_file', args: { path: 'report.md', content: `# ${id}` }, id }]);
    suite.server.enqueue(write('call_j1'), text('wrote the report'));
    const first = suite.h.runtime.jobs.create({
      originConversationId: origin,
      message: 'write the report',
      workspace: suite.h.workspace,
      provider: suite.h.provider,
      model: MODEL,
    });
    await waitFor(() => suite.h!.runtime.service.listCards().length === 1, 'the card');
    const [card] = suite.h.runtime.service.listCards();
    expect(card!.kind).toBe('workspace_write');
    // The options of a window card for a file write in chat (APPR-005: task-scoped).
    expect(card!.options).toEqual(['task', 'conversation', 'always', 'no']);
    suite.h.runtime.service.answerCard({
      callId: card!.callId,
      kind: card!.kind,
      option: 'conversation',
      surface: 'window',
    });
    expect((await suite.h.runtime.jobs.settled(first.id)!).status).toBe('completed');
    expect(existsSync(join(suite.h.workspace, 'report.md'))).toBe(true);
    // The "for this conversation" grant was stored for the ORIGIN conversation: a second job from
    // it writes without a card, although it runs in a conversation of its own.
    suite.server.enqueue(write('call_j2'), text('updated the report'));
    const second = suite.h.runtime.jobs.create({
      originConversationId: origin,
      message: 'update the report',
      workspace: suite.h.workspace,
      provider: suite.h.provider,
      model: MODEL,
    });
    const done = await suite.h.runtime.jobs.settled(second.id)!;
    expect(done.status).toBe('completed');
    expect(done.jobConversationId).not.toBe(origin);
    expect(suite.h.runtime.service.listCards()).toHaveLength(0);
  });

  it('WORK-13 / APPR-017: a job from a headless origin has nobody to ask — the step is refused, not carded', async () => {
    suite.h = openHarness(suite.server, 'gemini');
    suite.server.enqueue(
      toolCalls([{ name: 'write_file', args: { path: 'x.md', content: 'x' }, id: 'call_h1' }]),
      text('could not write'),
    );
    const job = suite.h.runtime.jobs.create({
      originConversationId: 'conv-headless',
      message: 'write x',
      workspace: suite.h.workspace,
      provider: suite.h.provider,
      model: MODEL,
      attended: false,
    });
    const done = await suite.h.runtime.jobs.settled(job.id)!;
    expect(suite.h.runtime.service.listCards()).toHaveLength(0);
    expect(existsSync(join(suite.h.workspace, 'x.md'))).toBe(false);
    expect(done.status).toBe('completed');
  });

  it('WORK-11: start_background_job is the model’s explicit choice; the job reports to the conversation', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    let n = 0;
    script(4, (req) => {
      n += 1;
      const body = JSON.stringify(req.body);
      if (body.includes('the background part')) return text('background part done');
      if (n === 1)
        return toolCalls([
          {
            name: 'use_tool',
            args: { name: 'start_background_job', arguments: { task: 'the background part' } },
            id: 'toolu_b1',
          },
        ]);
      return text('Started it in the background.');
    });
    const run = suite.h.start({ message: 'do the long thing in the background' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    await waitFor(
      () => suite.h!.runtime.jobs.list(run.conversationId).some((j) => j.status === 'completed'),
      'job done',
    );
    const [job] = suite.h.runtime.jobs.list(run.conversationId);
    expect(job!.answer).toBe('background part done');
    expect(job!.jobConversationId).not.toBe(run.conversationId);
  });

  it('WORK-11: a plain chat reply never becomes a job by itself', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    suite.server.enqueue(text('a long answer, still in chat'));
    const run = suite.h.start({ message: 'a long task' });
    expect((await run.result).status).toBe('succeeded');
    expect(suite.h.runtime.jobs.list()).toHaveLength(0);
  });
});
