// Background jobs over the local API on a real socket (WORK-07..13): the real runtime and loop, a
// scripted provider over HTTP, a real `ws` client on the originating conversation.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentRuntime,
  type JobCard,
  createAgentRuntime,
  createModelProvider,
} from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import WebSocket from 'ws';
import { type JobFrame, type LocalApi, type StreamFrame, startLocalApi } from './index';
import { callApi } from './local-api.spec-support';

jest.setTimeout(30_000);

function openStream(
  api: LocalApi,
  conversationId: string,
): Promise<{ ws: WebSocket; frames: (StreamFrame | JobFrame)[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${api.port}/ws?conversation=${conversationId}`, {
    headers: { authorization: `Bearer ${api.token}` },
  });
  const frames: (StreamFrame | JobFrame)[] = [];
  ws.on('message', (data: Buffer) =>
    frames.push(JSON.parse(data.toString('utf8')) as StreamFrame | JobFrame),
  );
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, frames }));
    ws.once('error', reject);
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('local API: background jobs (WORK-07..13)', () => {
  let root: string;
  let workspace: string;
  let provider: ScriptedProviderServer;
  let runtime: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-jobs-api-'));
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'arslan-jobs-api-ws-')));
    provider = await ScriptedProviderServer.start();
    runtime = createAgentRuntime({
      dataDir: join(root, 'agent'),
      resolveProvider: (name) => {
        if (name !== 'fake') throw new Error(`unknown provider ${name}`);
        return createModelProvider('openai-compatible', {
          apiKey: 'sk-test-jobs-0123456789',
          baseUrl: provider.baseUrlFor('openai-compatible'),
        });
      },
    });
    api = await startLocalApi({
      service: runtime.service,
      jobs: runtime.jobs,
      dataDir: root,
      preferredPort: 0,
      defaults: { provider: 'fake', model: 'gpt-4o-mini' },
    });
  });

  afterAll(async () => {
    await runtime.jobs.stopAll();
    await api.close();
    runtime.close();
    await provider.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  beforeEach(() => provider.reset());

  it('WORK-08/10/12: a job created over HTTP streams its card to the origin conversation; closing the socket does not cancel it', async () => {
    provider.enqueue({
      steps: [{ text: 'background result' }],
      usage: { input: 5, output: 3 },
      headersDelayMs: 300,
    });
    const stream = await openStream(api, 'conv-jobs');
    const created = await callApi(api, 'POST', '/api/jobs', {
      body: {
        conversationId: 'conv-jobs',
        message: 'summarize everything',
        workspace,
      },
    });
    expect(created.status).toBe(201);
    const job = created.body['job'] as JobCard;
    expect(job.status).toBe('running');
    expect(job.originConversationId).toBe('conv-jobs');
    await waitFor(
      () => stream.frames.some((f) => f.type === 'job' && f.job.status === 'running'),
      'a running card',
    );
    // WORK-10: the window goes away while the job runs.
    await new Promise<void>((resolve) => {
      stream.ws.once('close', () => resolve());
      stream.ws.close();
    });
    await waitFor(() => runtime.jobs.get(job.id)?.status === 'completed', 'the job to complete');
    const got = await callApi(api, 'GET', `/api/jobs/${job.id}`);
    expect(got.status).toBe(200);
    expect(got.body['job']).toMatchObject({
      id: job.id,
      status: 'completed',
      taskStatus: 'succeeded',
      answer: 'background result',
    });
    const listed = await callApi(api, 'GET', '/api/jobs?conversationId=conv-jobs');
    expect((listed.body['jobs'] as JobCard[]).map((j) => j.id)).toEqual([job.id]);
  });

  it('WORK-09: over the API a 4th job waits; cancelling the queued one ends it without a run', async () => {
    for (let i = 0; i < 3; i++)
      provider.enqueue({
        steps: [{ text: `done ${i}` }],
        usage: { input: 5, output: 3 },
        headersDelayMs: 400,
      });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await callApi(api, 'POST', '/api/jobs', {
        body: { conversationId: 'conv-queue', message: `task ${i}`, workspace },
      });
      expect(r.status).toBe(201);
      ids.push((r.body['job'] as JobCard).id);
    }
    const fourth = (await callApi(api, 'GET', `/api/jobs/${ids[3]}`)).body['job'] as JobCard;
    expect(fourth).toMatchObject({ status: 'queued', queuePosition: 1, runId: null });
    const cancelled = await callApi(api, 'POST', `/api/jobs/${ids[3]}/cancel`, { body: {} });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ jobId: ids[3], result: 'cancelled' });
    await waitFor(
      () => ids.slice(0, 3).every((id) => runtime.jobs.get(id)?.status === 'completed'),
      'three jobs',
    );
    expect(runtime.jobs.get(ids[3]!)?.status).toBe('cancelled');
    expect(provider.pending()).toBe(0);
  });

  it('WORK-11: strict bodies and token auth on /api/jobs', async () => {
    expect((await callApi(api, 'GET', '/api/jobs', { token: null })).status).toBe(401);
    const unknownField = await callApi(api, 'POST', '/api/jobs', {
      body: {
        conversationId: 'c1',
        message: 'x',
        workspace,
        background: 'auto',
      },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toEqual({
      error: { code: 'invalid_body', message: expect.stringContaining('background') },
    });
    expect(
      (
        await callApi(api, 'POST', '/api/jobs', {
          body: { conversationId: 'c1', message: 'x', workspace: 'relative' },
        })
      ).status,
    ).toBe(400);
    expect((await callApi(api, 'GET', '/api/jobs/nope')).status).toBe(404);
    expect((await callApi(api, 'POST', '/api/jobs/nope/cancel', { body: {} })).status).toBe(404);
    expect((await callApi(api, 'DELETE', '/api/jobs')).status).toBe(405);
  });
});
