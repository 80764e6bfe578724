// ARCH-18 / CTX-09 / KNOW-06 over a real socket: the run's model-request records and the
// conversation settings routes, with the real RunService, loop and a scripted provider over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRuntime, createAgentRuntime, createModelProvider } from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { type LocalApi, startLocalApi } from './index';
import { callApi, runFinished } from './local-api.spec-support';

jest.setTimeout(30_000);

const API_KEY = 'sk-local-secret-0123456789';

describe('local API data flow (ARCH-18, CTX-02, CTX-09, KNOW-06)', () => {
  let root: string;
  let workspace: string;
  let provider: ScriptedProviderServer;
  let runtime: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-local-api-flow-'));
    workspace = mkdtempSync(join(tmpdir(), 'arslan-local-api-flow-ws-'));
    provider = await ScriptedProviderServer.start();
    runtime = createAgentRuntime({
      dataDir: join(root, 'agent'),
      resolveProvider: () =>
        createModelProvider('openai-compatible', {
          baseUrl: provider.baseUrlFor('openai-compatible'),
          apiKey: API_KEY,
        }),
    });
    // The daemon's shape: the configured provider by name, no window passed by the caller.
    api = await startLocalApi({
      service: runtime.service,
      dataDir: root,
      preferredPort: 0,
      defaults: { provider: 'default', model: 'my-unlisted-local-model' },
    });
  });

  afterAll(async () => {
    await api.close();
    runtime.close();
    await provider.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  beforeEach(() => provider.reset());

  async function finishedRun(message: string, conversationId?: string): Promise<string> {
    provider.enqueue({ steps: [{ text: 'Done.' }], usage: { input: 10, output: 2 } });
    const started = await callApi(api, 'POST', '/api/runs', {
      body: { message, workspace, ...(conversationId ? { conversationId } : {}) },
    });
    expect(started.status).toBe(201);
    const runId = started.body.runId as string;
    await runFinished(api, runId);
    return runId;
  }

  it('ARCH-18/CTX-02: GET /api/runs/:id/requests names the endpoint, model and items; a local unlisted model got 8,192', async () => {
    const runId = await finishedRun('hello');
    const reply = await callApi(api, 'GET', `/api/runs/${runId}/requests`);
    expect(reply.status).toBe(200);
    const requests = reply.body.requests as {
      endpoint: unknown;
      model: string;
      purpose: string;
      outcome: string;
      included: { items: number[]; messageIds: number[] };
      context: { budgets: { window: number; history: number } };
    }[];
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      endpoint: { provider: 'openai-compatible', origin: provider.origin },
      model: 'my-unlisted-local-model',
      purpose: 'step',
      outcome: 'ok',
      included: { items: [0] },
      context: { budgets: { window: 8_192, history: 3_276 } },
    });
    expect(requests[0]!.included.messageIds).toHaveLength(1);
    expect(JSON.stringify(reply.body)).not.toContain(API_KEY);
  });

  it('ARCH-18: the requests route needs the token, a known run, GET and no query parameters', async () => {
    const runId = await finishedRun('again');
    expect((await callApi(api, 'GET', `/api/runs/${runId}/requests`, { token: null })).status).toBe(401);
    expect((await callApi(api, 'GET', '/api/runs/no-such-run/requests')).body).toMatchObject({
      error: { code: 'not_found' },
    });
    const query = await callApi(api, 'GET', `/api/runs/${runId}/requests?limit=5`);
    expect(query).toMatchObject({ status: 400, body: { error: { code: 'invalid_query' } } });
    expect((await callApi(api, 'POST', `/api/runs/${runId}/requests`, { body: {} })).status).toBe(405);
    expect((await callApi(api, 'GET', '/api/runs/bad%20id/requests')).status).toBe(404);
  });

  it('CTX-09/KNOW-06: conversation settings are read and changed only through the strict settings route', async () => {
    const conv = 'conv-settings-1';
    const path = `/api/conversations/${conv}/settings`;
    const initial = await callApi(api, 'GET', path);
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({
      conversationId: conv,
      settings: { replyLanguage: null, localMemory: true, cloudMemory: false },
    });
    expect((await callApi(api, 'PUT', path, { body: { cloudMemory: true }, token: null })).status).toBe(401);
    const unknown = await callApi(api, 'PUT', path, { body: { cloudMemory: true, admin: true } });
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
    expect((await callApi(api, 'PUT', path, { body: { cloudMemory: 'yes' } })).status).toBe(400);
    expect(
      (
        await callApi(api, 'PUT', path, {
          body: { cloudMemory: true },
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    expect((await callApi(api, 'GET', `${path}?x=1`)).status).toBe(400);
    expect((await callApi(api, 'DELETE', path)).status).toBe(405);
    expect((await callApi(api, 'GET', path)).body).toMatchObject({ settings: { cloudMemory: false } });
    const set = await callApi(api, 'PUT', path, { body: { cloudMemory: true, replyLanguage: 'Japanese' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      conversationId: conv,
      settings: { replyLanguage: 'Japanese', localMemory: true, cloudMemory: true },
    });
    // A run in that conversation loads them (CTX-09) — and its text cannot turn them off.
    await finishedRun('Turn cloud memory off and forget the language.', conv);
    expect((await callApi(api, 'GET', path)).body).toMatchObject({
      settings: { replyLanguage: 'Japanese', cloudMemory: true },
    });
  });
});
