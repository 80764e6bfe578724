import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProvider, reply } from '../loop/test-fakes';
import { ProviderError, type TrajectoryItem } from '../ports';
import { type AgentDb, openAgentDb } from '../store/agent-db';
import { ContextRepository, ConversationSettingsError } from '../store/context.repository';
import { RunRepository } from '../store/run.repository';
import { ContextManager } from './context-manager';
import { REFERENCE_OPEN } from './reference-block';

const SUMMARY = {
  goal: 'G',
  progress: ['P'],
  decisions: [],
  filesTouched: ['f.txt'],
  nextSteps: ['N'],
};

let dir: string;
let db: AgentDb;
let repo: ContextRepository;
let messages: RunRepository;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'arslan-ctx-'));
  db = openAgentDb(join(dir, 'agent.sqlite')).db;
  repo = new ContextRepository(db, () => 1_000);
  messages = new RunRepository(db, () => 1_000);
  messages.ensureConversation('conv');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stored conversation of `turns` long turns plus a short current message. */
function storedConversation(turns: number): { items: TrajectoryItem[]; ids: number[] } {
  const items: TrajectoryItem[] = [];
  const ids: number[] = [];
  for (let t = 1; t <= turns; t += 1) {
    const q = `question ${t} ${'q'.repeat(1_200)}`;
    const a = `answer ${t} ${'a'.repeat(1_200)}`;
    ids.push(messages.addMessage('conv', 'user', q, null));
    items.push({ role: 'user', text: q });
    ids.push(messages.addMessage('conv', 'assistant', a, null));
    items.push({ role: 'assistant', text: a, toolCalls: [] });
  }
  ids.push(messages.addMessage('conv', 'user', 'current question', null));
  items.push({ role: 'user', text: 'current question' });
  return { items, ids };
}

function manager(provider: FakeProvider, ids: number[]): ContextManager {
  return new ContextManager({
    conversationId: 'conv',
    model: 'local-model',
    window: { kind: 'local' },
    provider,
    store: repo,
    messageIds: ids,
  });
}

const compose = (m: ContextManager, trajectory: readonly TrajectoryItem[]) =>
  m.compose({ trajectory, system: 'sys', toolSchemasJson: '[]', signal: new AbortController().signal });

describe('ContextManager', () => {
  it('CTX-06/07: folds older messages through the model, persists only the summary, keeps every message', async () => {
    const { items, ids } = storedConversation(8);
    const provider = new FakeProvider([reply(JSON.stringify(SUMMARY))]);
    const composed = await compose(manager(provider, ids), items);
    expect(provider.requests).toHaveLength(1); // the summarization request
    expect(composed.report.summarySource).toBe('model');
    const first = composed.trajectory[0]!;
    expect(first.role === 'user' && first.text.startsWith(REFERENCE_OPEN)).toBe(true);
    expect(first.role === 'user' && first.text).toContain('Goal: G');
    expect(composed.trajectory.at(-1)).toEqual({ role: 'user', text: 'current question' });
    expect(composed.trajectory.length).toBeLessThan(items.length);
    const stored = repo.getSummary('conv')!;
    expect(stored.summary).toEqual(SUMMARY);
    expect(stored.foldedMessageIds).toEqual(ids.slice(0, stored.foldedMessageIds.length));
    expect(messages.listMessages('conv')).toHaveLength(ids.length); // CTX-07
  });

  it('CTX-07: a failed summarization uses the fallback for this request and persists nothing', async () => {
    const { items, ids } = storedConversation(8);
    const provider = new FakeProvider([
      () => {
        throw new ProviderError('transient', 'down');
      },
    ]);
    let failed = 0;
    const m = new ContextManager({
      conversationId: 'conv',
      model: 'local-model',
      window: { kind: 'local' },
      provider,
      store: repo,
      messageIds: ids,
      onFailedRequest: () => void (failed += 1),
    });
    const composed = await compose(m, items);
    expect(composed.report).toMatchObject({ summarySource: 'fallback', fallbackReason: 'down' });
    expect(failed).toBe(1);
    const first = composed.trajectory[0]!;
    expect(first.role === 'user' && first.text).toContain('question 1');
    expect(repo.getSummary('conv')).toBeUndefined();
    expect(messages.listMessages('conv').map((r) => r.id)).toEqual(ids);
  });

  it('CTX-01: later requests of the same run reuse the summary without another model call', async () => {
    const { items, ids } = storedConversation(8);
    const provider = new FakeProvider([reply(JSON.stringify(SUMMARY))]);
    const m = manager(provider, ids);
    await compose(m, items);
    const next = await compose(m, [...items, { role: 'assistant', text: 'ok', toolCalls: [] }]);
    expect(provider.requests).toHaveLength(1);
    expect(next.report.summarySource).toBe('model');
    expect(next.trajectory.at(-1)).toEqual({ role: 'assistant', text: 'ok', toolCalls: [] });
  });

  it('CTX-09: trusted settings are read from the database on every request', async () => {
    const m = manager(new FakeProvider([]), []);
    const trajectory: TrajectoryItem[] = [{ role: 'user', text: 'Set my reply language to French.' }];
    const before = await compose(m, trajectory);
    expect(before.report.settings).toEqual({ replyLanguage: null, localMemory: true, cloudMemory: false });
    expect(before.report.referenceBlock).toBe(false);
    repo.updateSettings('conv', { replyLanguage: 'ja' });
    const after = await compose(m, trajectory);
    expect(after.report.settings.replyLanguage).toBe('ja');
    const first = after.trajectory[0]!;
    expect(first.role === 'user' && first.text).toContain('Reply language: ja');
  });

  it('CTX-09: settings change only through a validated patch', () => {
    expect(() => repo.updateSettings('conv', { replyLanguage: 'ja', admin: true })).toThrow(
      ConversationSettingsError,
    );
    expect(() => repo.updateSettings('conv', { replyLanguage: 'ignore previous; ja' })).toThrow(
      ConversationSettingsError,
    );
    expect(repo.updateSettings('conv', { cloudMemory: true })).toEqual({
      replyLanguage: null,
      localMemory: true,
      cloudMemory: true,
    });
  });

  it('CTX-07: a damaged stored summary is ignored — the full messages are used instead', () => {
    db.prepare(
      `INSERT INTO context_summaries (conversation_id, summary_json, folded_message_ids_json, model, updated_at)
       VALUES ('conv', '{"goal":1}', '[1]', 'm', 1)`,
    ).run();
    expect(repo.getSummary('conv')).toBeUndefined();
    expect(() =>
      repo.saveSummary({ conversationId: 'conv', summary: SUMMARY, foldedMessageIds: [-1], model: 'm' }),
    ).toThrow();
  });

  it('CTX-03: over-budget system instructions and tool schemas are reported, never cut', async () => {
    const m = manager(new FakeProvider([]), []);
    const composed = await m.compose({
      trajectory: [{ role: 'user', text: 'hi' }],
      system: 's'.repeat(20_000),
      toolSchemasJson: 't'.repeat(20_000),
      signal: new AbortController().signal,
    });
    expect(composed.report.overBudget).toEqual(['system', 'toolSchemas']);
    expect(composed.trajectory).toEqual([{ role: 'user', text: 'hi' }]);
  });
});
