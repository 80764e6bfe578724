// Contract suite, data flow (ARCH-18, CTX-02/PROV-13, BUD-11/12, KNOW-06): the REAL runtime over
// REAL HTTP against the scripted provider server on 127.0.0.1. A "cloud" endpoint is the same
// server reached through a provider whose base URL names a public host (its fetch is pointed at
// the server), so only the endpoint's locality differs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecallHit, RecallPort } from '../tools/recall-tool';
import type { ModelRequestRow } from '../store/model-request.repository';
import {
  MODEL,
  contractSuite,
  makeProvider,
  offeredToolsOf,
  openHarness,
  text,
  toolCalls,
  toolResultsOf,
} from './contract-harness';

jest.setTimeout(30_000);

const suite = contractSuite();

const CLOUD_BASE = 'https://api.cloud-model.example/v1';
const SUMMARY = {
  goal: 'Answer the numbered questions',
  progress: ['Answered questions 1 to 3'],
  decisions: [],
  filesTouched: [],
  nextSteps: [],
};
const question = (k: number): string => `Turn ${k}: ${'u'.repeat(580)}`;
const answer = (k: number): string => `Answer ${k}: ${'a'.repeat(980)}`;

/** The same scripted server behind a public-looking base URL (a cloud endpoint). */
function cloudProvider() {
  const local = suite.server.baseUrlFor('openai-compatible');
  return makeProvider(suite.server, 'openai-compatible', {
    baseUrl: CLOUD_BASE,
    fetch: (input, init) => fetch(String(input as string).replace(CLOUD_BASE, local), init),
  });
}

/** A retrieval port with fixed hits (the daemon wires the real vault RAG behind this port). */
function recallPort(hits: RecallHit[]): RecallPort & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    retrieve: async (query) => {
      queries.push(query);
      return hits;
    },
  };
}

const HITS: RecallHit[] = [
  {
    citation: 'notes/plan.md#1',
    title: 'Plan',
    text: 'SECRET-PASSAGE launch in May',
    assetId: 'asset-1',
    revisionId: 'rev-7',
  },
  {
    citation: 'notes/plan.md#2',
    title: 'Plan',
    text: 'budget is small',
    assetId: 'asset-1',
    revisionId: 'rev-7',
  },
  { citation: 'notes/team.md#1', title: 'Team', text: 'Aiko leads', assetId: 'asset-2', revisionId: 'rev-2' },
];

async function turn(
  conv: string | undefined,
  k: number,
  extra: Parameters<typeof suite.server.enqueue> = [],
) {
  suite.server.enqueue(...extra, text(answer(k)));
  const run = suite.h!.start({ message: question(k), ...(conv ? { conversationId: conv } : {}) });
  const result = await run.result;
  expect(result.status).toBe('succeeded');
  return { conv: run.conversationId, runId: run.runId, result };
}

const budgetsOf = (row: ModelRequestRow) =>
  (row.context as { budgets: { window: number; history: number } }).budgets;

describe('data flow', () => {
  it('CTX-02/PROV-13: an unlisted model on 127.0.0.1 gets the local 8,192 budget without the caller passing a window', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    const first = await turn(undefined, 1);
    const [request] = suite.h.runtime.service.listRequests(first.runId)!;
    expect(budgetsOf(request!)).toMatchObject({ window: 8_192, history: 3_276 });
    // Compression happens at the local budget: the 7th turn folds the oldest turns.
    for (let k = 2; k <= 6; k += 1) await turn(first.conv, k);
    expect(suite.server.requests).toHaveLength(6);
    await turn(first.conv, 7, [text(JSON.stringify(SUMMARY))]);
    expect(suite.server.requests).toHaveLength(8);
    expect(suite.h.runtime.service.context.getSummary(first.conv)?.summary.goal).toBe(SUMMARY.goal);
  });

  it('CTX-02/PROV-13: the same unlisted model on a cloud endpoint counts as unknown (32,000)', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    suite.server.enqueue(text('ok'));
    const run = suite.h.start({ message: 'hi', provider: cloudProvider() });
    await run.result;
    const [request] = suite.h.runtime.service.listRequests(run.runId)!;
    expect(budgetsOf(request!)).toMatchObject({ window: 32_000, history: 12_800 });
    expect(request!.endpoint).toEqual({
      provider: 'openai-compatible',
      origin: 'https://api.cloud-model.example',
    });
  });

  it('ARCH-18: every model request records its endpoint, model and the stored items it carried (summary request too)', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    let conv: string | undefined;
    for (let k = 1; k <= 6; k += 1) conv = (await turn(conv, k)).conv;
    const seventh = await turn(conv, 7, [text(JSON.stringify(SUMMARY))]);
    const stored = suite.h.runtime.service.runs.listMessages(conv!);
    const rows = suite.h.runtime.service.listRequests(seventh.runId)!;
    expect(rows.map((r) => [r.purpose, r.outcome])).toEqual([
      ['summary', 'ok'],
      ['step', 'ok'],
    ]);
    const endpoint = { provider: 'openai-compatible', origin: suite.server.origin };
    for (const row of rows) expect(row).toMatchObject({ endpoint, model: MODEL, attempts: 1, step: 1 });
    const [summary, step] = rows as [ModelRequestRow, ModelRequestRow];
    // The summarization request carried the three oldest turns (their stored message ids).
    expect(summary.included.messageIds).toEqual(stored.slice(0, 6).map((m) => m.id));
    expect(summary.included.summaryId).toBeNull();
    // The step request carried the stored summary version and turns 4–7.
    const saved = suite.h.runtime.service.context.getSummary(conv!)!;
    expect(step.included.summaryId).toBe(saved.id);
    expect(step.included.messageIds).toEqual(stored.slice(6, 13).map((m) => m.id));
    expect(step.context).toMatchObject({ summarySource: 'model', referenceBlock: true, folded: 6 });
    // The next turn carries the same summary version; no new summarization.
    const eighth = await turn(conv, 8);
    const [next] = suite.h.runtime.service.listRequests(eighth.runId)! as [ModelRequestRow];
    expect(next.included.summaryId).toBe(saved.id);
    expect(suite.h.runtime.service.listRequests(eighth.runId)).toHaveLength(1);
    // Ids and counts only: never a key, a message or a summary text.
    const all = JSON.stringify([...rows, next]);
    expect(all).not.toContain('sk-contract');
    expect(all).not.toContain('uuuu');
    expect(all).not.toContain(SUMMARY.goal);
    expect(suite.h.runtime.service.listRequests('no-such-run')).toBeUndefined();
  });

  it('ARCH-18/MEM-10: recall hits are recorded as asset revisions of the requests that carried them', async () => {
    const port = recallPort(HITS);
    suite.h = openHarness(suite.server, 'anthropic', { tools: { recall: port } });
    suite.server.enqueue(
      toolCalls([{ name: 'recall', args: { query: 'launch plan' }, id: 'toolu_r' }]),
      text('Launch is in May.'),
    );
    const run = suite.h.start({ message: 'When is the launch?' });
    expect((await run.result).status).toBe('succeeded');
    expect(toolResultsOf(suite.server.lastRequest())[0]!.content).toContain('SECRET-PASSAGE');
    const [first, second] = suite.h.runtime.service.listRequests(run.runId)! as [
      ModelRequestRow,
      ModelRequestRow,
    ];
    expect(first.included.materials).toEqual([]);
    expect(second.included.materials).toEqual([
      {
        item: 2,
        callId: 'toolu_r',
        tool: 'recall',
        treatment: 'verbatim',
        sources: [
          { assetId: 'asset-1', revisionId: 'rev-7' },
          { assetId: 'asset-2', revisionId: 'rev-2' },
        ],
      },
    ]);
    expect(second.included.items).toEqual([0, 1, 2]);
    expect(JSON.stringify(second)).not.toContain('SECRET-PASSAGE');
  });

  it('ARCH-18/CTX-05: a tool result masked out of a request is named as masked, not as a carried material', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    writeFileSync(join(suite.h.workspace, 'one.txt'), `ONE ${'1'.repeat(6_000)}`);
    writeFileSync(join(suite.h.workspace, 'two.txt'), `TWO ${'2'.repeat(6_000)}`);
    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'one.txt' }, id: 'r1' }]),
      toolCalls([{ name: 'read_file', args: { path: 'two.txt' }, id: 'r2' }]),
      text('Both read.'),
    );
    const run = suite.h.start({ message: 'read one.txt then two.txt' });
    expect((await run.result).status).toBe('succeeded');
    const last = suite.h.runtime.service.listRequests(run.runId)!.at(-1)!;
    expect(last.included.items).toEqual([0, 1, 2, 3, 4]);
    expect(last.included.masked).toEqual([2]);
    expect(last.included.materials.map((m) => [m.callId, m.treatment])).toEqual([['r2', 'verbatim']]);
    expect(last.context).toMatchObject({ maskedResults: 1 });
  });

  it('BUD-11/PROV-12: the summarization request is in the run cost and usage the dollar cap checks', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible', {
      service: { prices: { [MODEL]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } } },
    });
    let conv: string | undefined;
    for (let k = 1; k <= 6; k += 1) conv = (await turn(conv, k)).conv;
    const one = 0.001 * (20 + 8); // text(): 20 input + 8 output tokens at $0.001 a token
    const sixth = suite.h.runtime.service.getResult(suite.h.runtime.service.registry.latestRunOf(conv!)!);
    expect(sixth?.costUsd).toBeCloseTo(one, 10); // one request, no summary
    const seventh = await turn(conv, 7, [text(JSON.stringify(SUMMARY))]);
    expect(seventh.result.usage.requests).toBe(2);
    expect(seventh.result.costUsd).toBeCloseTo(2 * one, 10);
    expect(seventh.result.usage.dollars).toBeCloseTo(seventh.result.costUsd, 10);
  });
});

describe('KNOW-06: document retrieval behind the conversation cloud-memory permission', () => {
  it('KNOW-06/CTX-09: with a cloud model, recall is neither offered nor callable until the conversation allows it', async () => {
    const port = recallPort(HITS);
    suite.h = openHarness(suite.server, 'openai-compatible', { tools: { recall: port } });
    const provider = cloudProvider();
    suite.server.enqueue(
      toolCalls([
        { name: 'recall', args: { query: 'direct' }, id: 'c1' },
        { name: 'use_tool', args: { name: 'recall', arguments: { query: 'via use_tool' } }, id: 'c2' },
      ]),
      text('I cannot look that up here.'),
    );
    const off = suite.h.start({ message: 'Search my documents, and turn on cloud memory.', provider });
    expect((await off.result).status).toBe('succeeded');
    expect(offeredToolsOf(suite.server.requests[0]!)).not.toContain('recall');
    expect(port.queries).toEqual([]);
    const refused = toolResultsOf(suite.server.lastRequest());
    expect(refused.map((r) => r.id)).toEqual(['c1', 'c2']);
    for (const r of refused) expect(r.content).toMatch(/not available/);
    // User text did not change the permission (CTX-09); the settings surface does.
    expect(suite.h.runtime.service.getConversationSettings(off.conversationId).cloudMemory).toBe(false);
    suite.h.runtime.service.updateConversationSettings(off.conversationId, { cloudMemory: true });
    suite.server.enqueue(toolCalls([{ name: 'recall', args: { query: 'launch' }, id: 'c3' }]), text('May.'));
    const on = suite.h.start({ message: 'Now search.', provider, conversationId: off.conversationId });
    expect((await on.result).status).toBe('succeeded');
    expect(offeredToolsOf(suite.server.requests.at(-2)!)).toContain('recall');
    expect(port.queries).toEqual(['launch']);
  });

  it('KNOW-06: a model on this machine may use recall without the cloud permission', async () => {
    const port = recallPort(HITS);
    suite.h = openHarness(suite.server, 'gemini', { tools: { recall: port } });
    suite.server.enqueue(toolCalls([{ name: 'recall', args: { query: 'team' }, id: 'g1' }]), text('Aiko.'));
    const run = suite.h.start({ message: 'Who leads?' });
    expect((await run.result).status).toBe('succeeded');
    expect(offeredToolsOf(suite.server.requests[0]!)).toContain('recall');
    expect(port.queries).toEqual(['team']);
    expect(suite.h.runtime.service.getConversationSettings(run.conversationId).cloudMemory).toBe(false);
  });

  it('CTX-09: a settings change is validated strictly and creates nothing when refused', () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    const service = suite.h.runtime.service;
    expect(() => service.updateConversationSettings('conv-x', { cloudMemory: 'yes' })).toThrow(
      /invalid conversation settings/,
    );
    expect(() => service.updateConversationSettings('conv-x', { cloudMemory: true, extra: 1 })).toThrow();
    expect(service.runs.listMessages('conv-x')).toEqual([]);
    const row = suite.h.runtime.db
      .prepare('SELECT COUNT(*) AS n FROM conversations WHERE id = ?')
      .get('conv-x');
    expect(row).toEqual({ n: 0 });
    expect(service.updateConversationSettings('conv-x', { cloudMemory: true }).cloudMemory).toBe(true);
    expect(service.getConversationSettings('conv-x')).toMatchObject({ cloudMemory: true, localMemory: true });
  });
});
