// PROV-04/05 and DATA-02 / FILE-05/06 over a real socket: the model listing and per-conversation
// choice, and artifact downloads, with the real runtime and two scripted providers over HTTP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRuntime, ModelCatalog, createAgentRuntime } from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { type LocalApi, startLocalApi } from './index';
import { callApi, runFinished } from './local-api.spec-support';

jest.setTimeout(30_000);

const KEY_A = 'sk-model-a-secret-000111';
const KEY_B = 'sk-model-b-secret-222333';
const reply = (text: string) => ({ steps: [{ text }], usage: { input: 10, output: 2 } });

describe('local API models and artifacts (PROV-04, PROV-05, DATA-02, FILE-05, FILE-06)', () => {
  let root: string;
  let workspace: string;
  let a: ScriptedProviderServer;
  let b: ScriptedProviderServer;
  let runtime: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-local-api-models-'));
    workspace = mkdtempSync(join(tmpdir(), 'arslan-local-api-models-ws-'));
    [a, b] = await Promise.all([ScriptedProviderServer.start(), ScriptedProviderServer.start()]);
    const catalog = new ModelCatalog(
      [
        {
          name: 'default',
          kind: 'openai-compatible',
          model: 'model-a',
          baseUrl: a.baseUrlFor('openai'),
          apiKey: KEY_A,
        },
        {
          name: 'fast',
          kind: 'openai-compatible',
          model: 'model-b',
          baseUrl: b.baseUrlFor('openai'),
          apiKey: KEY_B,
        },
      ],
      { summary: 'fast' },
    );
    runtime = createAgentRuntime({ dataDir: join(root, 'agent'), models: catalog, checkpoints: false });
    api = await startLocalApi({
      service: runtime.service,
      dataDir: root,
      preferredPort: 0,
      defaults: { provider: 'default', model: 'model-a' },
      ...(runtime.models ? { models: runtime.models } : {}),
      artifacts: runtime.artifacts,
    });
  });

  afterAll(async () => {
    await api.close();
    runtime.close();
    await Promise.all([a.close(), b.close()]);
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  beforeEach(() => {
    a.reset();
    b.reset();
  });

  async function run(
    message: string,
    conversationId?: string,
  ): Promise<{ runId: string; conversationId: string }> {
    const started = await callApi(api, 'POST', '/api/runs', {
      body: {
        message,
        workspace,
        ...(conversationId ? { conversationId } : {}),
      },
    });
    expect(started.status).toBe(201);
    await runFinished(api, started.body.runId as string);
    return { runId: started.body.runId as string, conversationId: started.body.conversationId as string };
  }

  it('PROV-04/05: GET /api/models lists names, kinds and roles — never keys or URLs', async () => {
    const listed = await callApi(api, 'GET', '/api/models');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      models: [
        { name: 'default', provider: 'openai-compatible', model: 'model-a', roles: ['main'] },
        { name: 'fast', provider: 'openai-compatible', model: 'model-b', roles: ['summary'] },
      ],
      roles: { main: 'default', summary: 'fast' },
    });
    const text = listed.bytes.toString('utf8');
    for (const secret of [KEY_A, KEY_B, a.origin, b.origin]) expect(text).not.toContain(secret);
    expect((await callApi(api, 'GET', '/api/models?x=1')).status).toBe(400);
    expect((await callApi(api, 'POST', '/api/models', { body: {} })).status).toBe(405);
  });

  it('PROV-04: PUT /api/conversations/:id/model switches the next run to model B only', async () => {
    a.enqueue(reply('A answers'));
    const first = await run('first');
    expect(a.requests).toHaveLength(1);
    const set = await callApi(api, 'PUT', `/api/conversations/${first.conversationId}/model`, {
      body: { model: 'fast' },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ conversationId: first.conversationId, chosen: 'fast', effective: 'fast' });
    expect(
      (await callApi(api, 'GET', `/api/conversations/${first.conversationId}/model`)).body,
    ).toMatchObject({
      chosen: 'fast',
    });
    b.enqueue(reply('B answers'));
    await run('second', first.conversationId);
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
    expect(b.lastRequest().model).toBe('model-b');
    expect(b.lastRequest().headers.authorization).toBe(`Bearer ${KEY_B}`);
  });

  it('PROV-04: unknown names and unknown fields are refused; nothing changes', async () => {
    const conv = 'conv-refusals';
    const unknown = await callApi(api, 'PUT', `/api/conversations/${conv}/model`, {
      body: { model: 'elsewhere' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_model' });
    const extra = await callApi(api, 'PUT', `/api/conversations/${conv}/model`, {
      body: {
        model: 'fast',
        baseUrl: 'http://x',
      },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: 'invalid_body' });
    expect((await callApi(api, 'GET', `/api/conversations/${conv}/model`)).body).toMatchObject({
      chosen: null,
    });
  });

  it('DATA-02/FILE-05/FILE-06: artifacts are listed per run and served only as sandboxed nosniff attachments', async () => {
    writeFileSync(join(workspace, 'page.html'), '<script>alert(1)</script><p>hi</p>');
    a.enqueue(
      {
        steps: [
          {
            toolCall: {
              name: 'use_tool',
              args: { name: 'attach_file', arguments: { path: 'page.html' } },
              id: 'call_h',
            },
          },
        ],
        usage: { input: 10, output: 2 },
      },
      reply('Attached the page.'),
    );
    const { runId } = await run('attach the page');
    const listed = await callApi(api, 'GET', `/api/runs/${runId}/artifacts`);
    expect(listed.status).toBe(200);
    const artifacts = listed.body.artifacts as Record<string, unknown>[];
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({
      fileName: 'page.html',
      mediaType: 'text/html',
      tool: 'attach_file',
      callId: 'call_h',
    });
    expect(artifacts[0]).not.toHaveProperty('storedName');
    const id = artifacts[0]!.id as string;

    const got = await callApi(api, 'GET', `/api/runs/${runId}/artifacts/${id}`);
    expect(got.status).toBe(200);
    expect(got.bytes.toString('utf8')).toBe('<script>alert(1)</script><p>hi</p>');
    expect(got.headers['content-disposition']).toBe(
      `attachment; filename="page.html"; filename*=UTF-8''page.html`,
    );
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-security-policy']).toContain('sandbox');
    expect(got.headers['cache-control']).toBe('no-store');

    // Path safety: another run's id, unknown ids and path-like ids reach nothing.
    const { runId: other } = await (async () => {
      a.enqueue(reply('nothing attached'));
      return run('no files');
    })();
    expect((await callApi(api, 'GET', `/api/runs/${other}/artifacts/${id}`)).status).toBe(404);
    expect(
      (await callApi(api, 'GET', `/api/runs/${runId}/artifacts/00000000-0000-0000-0000-000000000000`)).status,
    ).toBe(404);
    expect((await callApi(api, 'GET', `/api/runs/${runId}/artifacts/..%2F..%2Fagent.sqlite`)).status).toBe(
      404,
    );
    expect((await callApi(api, 'GET', `/api/runs/${runId}/artifacts/${id}?path=/etc/passwd`)).status).toBe(
      400,
    );
    expect((await callApi(api, 'GET', `/api/runs/nope/artifacts`)).status).toBe(404);
    expect((await callApi(api, 'POST', `/api/runs/${runId}/artifacts/${id}`, { body: {} })).status).toBe(405);
  });

  it('FILE-05: a download still needs the token', async () => {
    const res = await callApi(api, 'GET', '/api/runs/x/artifacts/00000000-0000-0000-0000-000000000000', {
      token: null,
    });
    expect(res.status).toBe(401);
  });
});
