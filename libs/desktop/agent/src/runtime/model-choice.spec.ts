// PROV-04/05 and DATA-02 through the REAL runtime over REAL HTTP: two scripted provider servers
// stand for two configured models. Assertions read what each server recorded and what the store
// wrote.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelCatalog, UnknownModelError } from '../providers/model-catalog';
import {
  type RecordedRequest,
  ScriptedProviderServer,
  type StreamReply,
} from '../providers/testing/scripted-provider-server';
import { type AgentRuntime, createAgentRuntime } from './agent-runtime';

jest.setTimeout(30_000);

const text = (t: string): StreamReply => ({ steps: [{ text: t }], usage: { input: 20, output: 8 } });
const SUMMARY = {
  goal: 'Answer the numbered questions',
  progress: ['Answered questions 1 to 3'],
  decisions: [],
  filesTouched: [],
  nextSteps: [],
};
const isSummarization = (r: RecordedRequest): boolean =>
  JSON.stringify(r.body.messages?.[0] ?? '').includes('rolling summary');

let a: ScriptedProviderServer;
let b: ScriptedProviderServer;
const temps: string[] = [];
let runtime: AgentRuntime | undefined;

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

function open(roles: { summary?: string } = {}): { runtime: AgentRuntime; workspace: string } {
  const catalog = new ModelCatalog(
    [
      { name: 'default', kind: 'openai-compatible', model: 'model-a', baseUrl: a.baseUrlFor('openai') },
      { name: 'second', kind: 'openai-compatible', model: 'model-b', baseUrl: b.baseUrlFor('openai') },
    ],
    roles,
  );
  runtime = createAgentRuntime({
    dataDir: temp('arslan-model-choice-data-'),
    models: catalog,
    service: { sleep: async () => undefined },
    checkpoints: false,
  });
  return { runtime, workspace: temp('arslan-model-choice-ws-') };
}

beforeAll(async () => {
  [a, b] = await Promise.all([ScriptedProviderServer.start(), ScriptedProviderServer.start()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  a.reset();
  b.reset();
});
afterEach(() => {
  runtime?.close();
  runtime = undefined;
  expect(a.unscripted + b.unscripted).toBe(0);
  expect(a.pending() + b.pending()).toBe(0);
});

describe('per-conversation model (PROV-04)', () => {
  it('PROV-04: a conversation switched to model B sends its next request to B only', async () => {
    const { runtime: rt, workspace } = open();
    a.enqueue(text('from A'));
    const first = rt.service.startRun({
      message: 'hi',
      workspace,
      provider: 'default',
      model: 'model-a',
      attended: true,
    });
    expect((await first.result).answer).toBe('from A');
    expect(a.requests).toHaveLength(1);

    expect(rt.models!.set(first.conversationId, 'second')).toMatchObject({
      chosen: 'second',
      effective: 'second',
    });
    b.enqueue(text('from B'));
    // The caller still names the default model: the conversation's trusted choice decides.
    const second = rt.service.startRun({
      conversationId: first.conversationId,
      message: 'again',
      workspace,
      provider: 'default',
      model: 'model-a',
      attended: true,
    });
    expect((await second.result).answer).toBe('from B');
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
    expect(b.lastRequest().model).toBe('model-b');
    expect(rt.service.runs.getRun(second.runId)?.model).toBe('model-b');

    // Another conversation is unaffected.
    a.enqueue(text('A again'));
    const other = rt.service.startRun({
      message: 'new',
      workspace,
      provider: 'default',
      model: 'model-a',
      attended: true,
    });
    expect((await other.result).answer).toBe('A again');
    expect(b.requests).toHaveLength(1);
  });

  it('PROV-04: only configured names are accepted; null returns to the main role model', () => {
    const { runtime: rt } = open();
    expect(() => rt.models!.set('conv-1', 'elsewhere')).toThrow(UnknownModelError);
    expect(rt.models!.get('conv-1')).toEqual({
      conversationId: 'conv-1',
      chosen: null,
      effective: 'default',
    });
    rt.models!.set('conv-1', 'second');
    expect(rt.models!.set('conv-1', null)).toMatchObject({ chosen: null, effective: 'default' });
    // The other trusted settings keep their defaults beside the choice (CTX-09).
    expect(rt.service.getConversationSettings('conv-1')).toMatchObject({
      localMemory: true,
      cloudMemory: false,
    });
  });

  it('PROV-04: listings carry names, kinds and model ids — never URLs or keys', () => {
    const catalog = new ModelCatalog(
      [
        {
          name: 'cloud',
          kind: 'anthropic',
          model: 'claude-x',
          baseUrl: 'https://api.example.test',
          apiKey: 'sk-secret-123',
        },
      ],
      {},
    );
    const listed = JSON.stringify(catalog.list());
    expect(listed).not.toContain('sk-secret');
    expect(listed).not.toContain('example.test');
    expect(catalog.list()).toEqual([
      { name: 'cloud', provider: 'anthropic', model: 'claude-x', roles: ['main'] },
    ]);
  });
});

describe('model roles (PROV-05)', () => {
  it('PROV-05: the summary role model receives the summarization request; the main model the step', async () => {
    const { runtime: rt, workspace } = open({ summary: 'second' });
    let conv: string | undefined;
    // Six turns fit a local window (8,192); the seventh folds the oldest turns (CTX-06).
    for (let k = 1; k <= 7; k += 1) {
      a.enqueue(text(`Answer ${k}: ${'a'.repeat(980)}`));
      if (k === 7) b.enqueue(text(JSON.stringify(SUMMARY)));
      const run = rt.service.startRun({
        message: `Turn ${k}: ${'u'.repeat(580)}`,
        workspace,
        provider: 'default',
        model: 'model-a',
        attended: true,
        contextWindow: { kind: 'local' },
        ...(conv ? { conversationId: conv } : {}),
      });
      conv = run.conversationId;
      expect((await run.result).status).toBe('succeeded');
      if (k === 7) {
        // ARCH-18: the summary request is recorded against the summary model's endpoint.
        const summaryRecord = rt.service.listRequests(run.runId)?.find((r) => r.purpose === 'summary');
        expect(summaryRecord).toMatchObject({ model: 'model-b', endpoint: { origin: b.origin } });
      }
    }
    expect(b.requests).toHaveLength(1);
    expect(isSummarization(b.lastRequest())).toBe(true);
    expect(b.lastRequest().model).toBe('model-b');
    expect(a.requests.some(isSummarization)).toBe(false);
    expect(a.requests).toHaveLength(7);
  });
});

describe('artifacts (DATA-02)', () => {
  it('DATA-02: an attached file is copied into the app data folder and referenced from the database', async () => {
    const { runtime: rt, workspace } = open();
    const original = join(workspace, 'report.csv');
    writeFileSync(original, 'a,b\n1,2\n');
    a.enqueue(
      {
        steps: [
          {
            toolCall: {
              name: 'use_tool',
              args: { name: 'attach_file', arguments: { path: 'report.csv' } },
              id: 'call_1',
            },
          },
        ],
        usage: { input: 10, output: 5 },
      },
      text('Attached.'),
    );
    const run = rt.service.startRun({
      message: 'attach it',
      workspace,
      provider: 'default',
      model: 'model-a',
      attended: true,
    });
    expect((await run.result).status).toBe('succeeded');
    const [row, ...more] = rt.artifacts.list(run.runId);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({
      runId: run.runId,
      callId: 'call_1',
      tool: 'attach_file',
      fileName: 'report.csv',
      mediaType: 'text/csv',
      bytes: 8,
    });
    const opened = rt.artifacts.open(run.runId, row!.id)!;
    expect(opened.path.startsWith(rt.artifacts.dir)).toBe(true);
    // The copy survives a later change of the original, and its digest is recorded.
    writeFileSync(original, 'changed');
    const bytes = readFileSync(opened.path);
    expect(bytes.toString()).toBe('a,b\n1,2\n');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(row!.sha256);
    // Only for its own run.
    expect(rt.artifacts.open('another-run', row!.id)).toBeUndefined();
    // The model was told what was saved.
    expect(JSON.stringify(a.lastRequest().body.messages)).toContain(`artifact ${row!.id}`);
  });
});
