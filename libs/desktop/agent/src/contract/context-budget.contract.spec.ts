// Contract suite, context budgeting (CTX-01..09): the REAL runtime over REAL HTTP against the
// scripted provider server. Assertions read the request bodies the server recorded and the
// SQLite store the runtime wrote. The turns run with a local model's window (CTX-02: 8,192 →
// history budget 3,276 tokens; fold above 2,457; recent turns within 1,638).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_OPEN, stripReferenceBlock } from '../context/reference-block';
import { SUMMARIZER_SYSTEM } from '../context/summarizer';
import type { ProviderKind } from '../providers/create-provider';
import { type RecordedRequest } from '../providers/testing/scripted-provider-server';
import { KINDS, contractSuite, openHarness, text, toolCalls, toolResultsOf } from './contract-harness';

jest.setTimeout(30_000);

const suite = contractSuite();

const LOCAL = { kind: 'local' } as const;
const SUMMARY = {
  goal: 'Answer the numbered questions',
  progress: ['Answered questions 1 to 3'],
  decisions: ['Keep answers short'],
  filesTouched: [],
  nextSteps: ['Answer the next question'],
};

/** ~152 tokens of user text and ~252 tokens of answer per turn (ASCII: 4 characters a token). */
const question = (k: number): string => `Turn ${k}: ${'u'.repeat(580)}`;
const answer = (k: number): string => `Answer ${k}: ${'a'.repeat(980)}`;

interface WireText {
  role: string;
  text: string;
}

/** The user/assistant texts a request carried, in wire order (system instructions excluded). */
function textsOf(request: RecordedRequest): WireText[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are untyped JSON
  const body = request.body as any;
  switch (request.format) {
    case 'openai':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.messages as any[])
        .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string')
        .map((m) => ({ role: m.role, text: m.content }));
    case 'anthropic':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.messages as any[]).flatMap((m) =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        (m.content as any[]).filter((b) => b.type === 'text').map((b) => ({ role: m.role, text: b.text })),
      );
    case 'gemini':
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.contents as any[]).flatMap((c) =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        (c.parts as any[])
          .filter((p) => typeof p.text === 'string')
          .map((p) => ({ role: c.role, text: p.text })),
      );
  }
}

function systemOf(request: RecordedRequest): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body = request.body as any;
  return JSON.stringify(
    request.format === 'gemini' ? body.systemInstruction : (body.system ?? body.messages?.[0]),
  );
}

const isSummarization = (r: RecordedRequest): boolean => systemOf(r).includes('rolling summary');

/** Runs one turn in conversation `conv`, answering with `answer(k)`. */
async function turn(
  conv: string | undefined,
  k: number,
  extra: Parameters<typeof suite.server.enqueue> = [],
) {
  suite.server.enqueue(...extra, text(answer(k)));
  const run = suite.h!.start({
    message: question(k),
    contextWindow: LOCAL,
    ...(conv ? { conversationId: conv } : {}),
  });
  const result = await run.result;
  expect(result.status).toBe('succeeded');
  return run.conversationId;
}

async function sixTurns(): Promise<string> {
  const conv = await turn(undefined, 1);
  for (let k = 2; k <= 6; k += 1) await turn(conv, k);
  return conv;
}

function storedMessages(conv: string): { id: number; role: string; text: string }[] {
  return suite.h!.runtime.service.runs.listMessages(conv);
}

describe.each(KINDS)('CTX over the %s wire', (kind: ProviderKind) => {
  it('CTX-01/04/06/07/08: a long conversation is compressed in the request; recent turns, the store and the summary', async () => {
    suite.h = openHarness(suite.server, kind);
    const conv = await sixTurns();
    expect(suite.server.requests.some(isSummarization)).toBe(false); // six turns still fit
    const before = suite.server.requests.length;
    await turn(conv, 7, [text(JSON.stringify(SUMMARY))]);
    const [summarization, request] = suite.server.requests.slice(before) as [
      RecordedRequest,
      RecordedRequest,
    ];
    expect(suite.server.requests.length - before).toBe(2);

    // CTX-06: the summarization went to the configured model with the oldest turns as data.
    expect(isSummarization(summarization)).toBe(true);
    expect(systemOf(summarization)).toContain(JSON.stringify(SUMMARIZER_SYSTEM).slice(1, 40));
    const transcript = textsOf(summarization)
      .map((t) => t.text)
      .join('\n');
    for (const k of [1, 2, 3]) expect(transcript).toContain(`Turn ${k}:`);
    expect(transcript).not.toContain('Turn 4:');

    // CTX-01/06: the request carries the summary and recent messages only.
    const texts = textsOf(request);
    const all = texts.map((t) => t.text).join('\n');
    for (const k of [1, 2, 3]) expect(all).not.toContain(question(k));
    // CTX-04: the last 4 user turns, verbatim and in order, with their answers.
    expect(
      texts
        .filter((t) => t.role === 'user')
        .map((t) => stripReferenceBlock(t.text))
        .filter((t) => t.startsWith('Turn ')),
    ).toEqual([4, 5, 6, 7].map(question));
    for (const k of [4, 5, 6]) expect(all).toContain(answer(k));
    // CTX-08: the reference block opens the request and carries the summary fields.
    expect(texts[0]!.role).toBe('user');
    expect(texts[0]!.text.startsWith(REFERENCE_OPEN)).toBe(true);
    for (const field of [
      'Goal: Answer the numbered questions',
      'Progress:',
      'Decisions:',
      'Files touched:',
      'Next steps:',
    ])
      expect(texts[0]!.text).toContain(field);
    expect(systemOf(request)).not.toContain('Answer the numbered questions');

    // CTX-07: every original message is still stored; the summary is stored beside them.
    const stored = storedMessages(conv);
    expect(stored.map((m) => m.text)).toEqual([1, 2, 3, 4, 5, 6, 7].flatMap((k) => [question(k), answer(k)]));
    expect(stored.some((m) => m.text.includes(REFERENCE_OPEN))).toBe(false);
    const summary = suite.h.runtime.service.context.getSummary(conv)!;
    expect(summary.summary).toEqual(SUMMARY);
    expect(summary.foldedMessageIds).toEqual(stored.slice(0, 6).map((m) => m.id));
    const trajectories = suite.h.runtime.db.prepare('SELECT item_json FROM trajectory').all() as {
      item_json: string;
    }[];
    expect(trajectories.some((t) => t.item_json.includes(REFERENCE_OPEN))).toBe(false);

    // The next turn starts from the stored summary: no new summarization, same reference block.
    const next = suite.server.requests.length;
    await turn(conv, 8);
    expect(suite.server.requests.length - next).toBe(1);
    const eighth = textsOf(suite.server.lastRequest());
    expect(eighth[0]!.text).toContain('Goal: Answer the numbered questions');
    expect(eighth.map((t) => t.text).join('\n')).not.toContain(question(3));
    expect(eighth.at(-1)).toEqual({ role: 'user', text: question(8) });
  });
});

describe('CTX: failures, settings and materials', () => {
  it('CTX-07: a failing summarization leaves the originals intact and usable', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    const conv = await sixTurns();
    const before = suite.server.requests.length;
    await turn(conv, 7, [{ status: 400, body: 'summaries are not allowed today' }]);
    const request = suite.server.lastRequest();
    expect(suite.server.requests.length - before).toBe(2);
    // The request still went out, with a deterministic fallback summary in the reference block.
    const texts = textsOf(request);
    expect(texts[0]!.text.startsWith(REFERENCE_OPEN)).toBe(true);
    expect(texts[0]!.text).toContain('User asked: Turn 1:');
    expect(texts.at(-1)).toEqual({ role: 'user', text: question(7) });
    // Nothing was persisted as a summary; every message is stored unchanged.
    expect(suite.h.runtime.service.context.getSummary(conv)).toBeUndefined();
    expect(storedMessages(conv)).toHaveLength(14);
    // The next turn composes from the complete originals again, and summarizes them.
    const next = suite.server.requests.length;
    await turn(conv, 8, [text(JSON.stringify(SUMMARY))]);
    const [retry] = suite.server.requests.slice(next) as [RecordedRequest];
    expect(isSummarization(retry)).toBe(true);
    expect(
      textsOf(retry)
        .map((t) => t.text)
        .join('\n'),
    ).toContain('Turn 1:');
    expect(suite.h.runtime.service.context.getSummary(conv)?.summary).toEqual(SUMMARY);
  });

  it('CTX-07: a summary standing for messages that left the conversation (undo) is dropped', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    const conv = await sixTurns();
    await turn(conv, 7, [text(JSON.stringify(SUMMARY))]);
    const turn2 = storedMessages(conv).find((m) => m.text === question(2))!;
    suite.h.runtime.service.runs.deleteMessage(turn2.id);
    const next = suite.server.requests.length;
    await turn(conv, 8, [text(JSON.stringify({ ...SUMMARY, goal: 'Rebuilt' }))]);
    const [resummary, request] = suite.server.requests.slice(next) as [RecordedRequest, RecordedRequest];
    expect(isSummarization(resummary)).toBe(true);
    const transcript = textsOf(resummary)
      .map((t) => t.text)
      .join('\n');
    expect(transcript).toContain('Turn 1:');
    expect(transcript).not.toContain('Turn 2:');
    expect(textsOf(request)[0]!.text).toContain('Goal: Rebuilt');
    expect(suite.h.runtime.service.context.getSummary(conv)!.foldedMessageIds).not.toContain(turn2.id);
  });

  it('CTX-09: trusted settings come from the database each turn; user text cannot change them', async () => {
    suite.h = openHarness(suite.server, 'gemini');
    suite.server.enqueue(text('Sure.'));
    const first = suite.h.start({
      message: 'From now on set reply language to French and enable cloud memory.',
    });
    await first.result;
    expect(textsOf(suite.server.lastRequest())[0]!.text).not.toContain(REFERENCE_OPEN);
    expect(suite.h.runtime.service.context.getSettings(first.conversationId)).toEqual({
      replyLanguage: null,
      localMemory: true,
      cloudMemory: false,
    });
    suite.h.runtime.service.context.updateSettings(first.conversationId, { replyLanguage: 'Japanese' });
    suite.server.enqueue(text('はい。'));
    await suite.h.start({ message: 'Hello again', conversationId: first.conversationId }).result;
    const texts = textsOf(suite.server.lastRequest());
    expect(texts[0]!.text.startsWith(REFERENCE_OPEN)).toBe(true);
    expect(texts[0]!.text).toContain('Reply language: Japanese');
    expect(systemOf(suite.server.lastRequest())).not.toContain('Japanese'); // never in the fixed prefix
    expect(storedMessages(first.conversationId).map((m) => m.text)).toEqual([
      'From now on set reply language to French and enable cloud memory.',
      'Sure.',
      'Hello again',
      'はい。',
    ]);
  });

  it('CTX-03/05/08: within one turn older tool results are masked in the request; the plan is the work state', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    writeFileSync(join(suite.h.workspace, 'one.txt'), `ONE ${'1'.repeat(6_000)}`);
    writeFileSync(join(suite.h.workspace, 'two.txt'), `TWO ${'2'.repeat(6_000)}`);
    suite.server.enqueue(
      toolCalls([
        {
          name: 'plan',
          args: { steps: [{ title: 'read both files', status: 'in_progress' }] },
          id: 'toolu_p',
        },
      ]),
      toolCalls([{ name: 'read_file', args: { path: 'one.txt' }, id: 'toolu_1' }]),
      toolCalls([{ name: 'read_file', args: { path: 'two.txt' }, id: 'toolu_2' }]),
      text('Both read.'),
    );
    const run = suite.h.start({ message: 'read one.txt then two.txt', contextWindow: LOCAL });
    expect((await run.result).status).toBe('succeeded');
    const last = suite.server.lastRequest();
    const results = toolResultsOf(last);
    expect(results.map((r) => r.id)).toEqual(['toolu_p', 'toolu_1', 'toolu_2']);
    expect(results[1]!.content).toContain('omitted from this request');
    expect(results[1]!.content).not.toContain('1111');
    expect(results[2]!.content).toContain(`TWO ${'2'.repeat(100)}`);
    // The stored trajectory keeps the full result (CTX-07).
    const stored = suite.h.runtime.service.runs.loadTrajectory(run.runId) as { content?: string }[];
    expect(stored.some((i) => i.content?.includes('1'.repeat(6_000)))).toBe(true);
    // LOOP-13 / CTX-08: the plan shows as per-turn work state in the reference block.
    const texts = textsOf(last);
    expect(texts[0]!.text.startsWith(REFERENCE_OPEN)).toBe(true);
    expect(texts[0]!.text).toContain('1. [in_progress] read both files');
  });
});
