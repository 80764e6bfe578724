// "Undo this turn" over a real socket: the real runtime and loop, a scripted provider over HTTP.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRuntime, createAgentRuntime, createModelProvider } from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { type LocalApi, startLocalApi } from './index';
import { callApi, runFinished } from './local-api.spec-support';

jest.setTimeout(30_000);

describe('local API: undo this turn (CKPT-12..16)', () => {
  let root: string;
  let workspace: string;
  let provider: ScriptedProviderServer;
  let runtime: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'arslan-undo-api-')));
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'arslan-undo-api-ws-')));
    provider = await ScriptedProviderServer.start();
    runtime = createAgentRuntime({
      dataDir: join(root, 'agent'),
      resolveProvider: () =>
        createModelProvider('openai-compatible', { baseUrl: provider.baseUrlFor('openai-compatible') }),
    });
    api = await startLocalApi({
      service: runtime.service,
      dataDir: root,
      preferredPort: 0,
      defaults: { provider: 'fake', model: 'gpt-4o-mini' },
    });
  });

  afterAll(async () => {
    await api.close();
    runtime.close();
    await provider.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('CKPT-12/14: lists the turn as saved, refuses bad requests, then undoes it over HTTP', async () => {
    writeFileSync(join(workspace, 'plan.md'), 'plan v1');
    writeFileSync(join(workspace, '.env'), 'KEY=1');
    provider.enqueue(
      {
        steps: [
          { text: 'Writing. ' },
          {
            toolCall: {
              name: 'write_file',
              args: { path: 'plan.md', content: 'plan v2' },
              id: 'call_w1',
              parts: 2,
            },
          },
          {
            toolCall: {
              name: 'write_file',
              args: { path: 'extra.md', content: 'x' },
              id: 'call_w2',
              parts: 2,
            },
          },
        ],
      },
      { steps: [{ text: 'Updated the plan.' }] },
    );
    const started = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'update the plan', workspace, attended: false, allow: ['workspace_write'] },
    });
    expect(started.status).toBe(201);
    const { runId, conversationId } = started.body as { runId: string; conversationId: string };
    expect(await runFinished(api, runId)).toMatchObject({ status: 'succeeded' });
    expect(readFileSync(join(workspace, 'plan.md'), 'utf8')).toBe('plan v2');

    const base = `/api/conversations/${conversationId}`;
    expect((await callApi(api, 'GET', `${base}/checkpoints`, { token: null })).status).toBe(401);
    expect(
      (await callApi(api, 'POST', `${base}/undo`, { body: { runId }, token: 'f'.repeat(64) })).status,
    ).toBe(401);
    const listed = await callApi(api, 'GET', `${base}/checkpoints`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      conversationId,
      turns: [
        expect.objectContaining({
          runId,
          undoable: true,
          checkpoint: expect.objectContaining({ status: 'saved', notSaved: ['.env'] }),
        }),
      ],
    });

    const unknownField = await callApi(api, 'POST', `${base}/undo`, { body: { runId, force: true } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toMatchObject({ error: { code: 'invalid_body' } });
    expect((await callApi(api, 'GET', `${base}/undo`)).status).toBe(405);
    expect((await callApi(api, 'POST', `${base}/checkpoints`, { body: {} })).status).toBe(405);
    const unknownRun = await callApi(api, 'POST', `${base}/undo`, { body: { runId: 'no-such-run' } });
    expect(unknownRun).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });

    const undone = await callApi(api, 'POST', `${base}/undo`, { body: { runId } });
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({
      conversationId,
      undoneRunIds: [runId],
      removedMessages: 2,
      folders: [
        { workspace, restored: ['plan.md'], removed: ['extra.md'], changedAfter: [], notSaved: ['.env'] },
      ],
    });
    expect(readFileSync(join(workspace, 'plan.md'), 'utf8')).toBe('plan v1');
    expect(existsSync(join(workspace, 'extra.md'))).toBe(false);
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe('KEY=1');
    expect((await callApi(api, 'GET', `${base}/checkpoints`)).body).toEqual({ conversationId, turns: [] });
    expect((await callApi(api, 'POST', `${base}/undo`, { body: { runId } })).status).toBe(404);
  });

  it('CKPT-16: undo while the conversation still runs is 409 busy', async () => {
    writeFileSync(join(workspace, 'b.txt'), 'b0');
    provider.enqueue(
      {
        steps: [
          {
            toolCall: { name: 'write_file', args: { path: 'b.txt', content: 'b1' }, id: 'call_x1', parts: 1 },
          },
        ],
      },
      { steps: [{ text: 'Done.' }] },
    );
    const first = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'write b', workspace, attended: false, allow: ['workspace_write'] },
    });
    const { runId, conversationId } = first.body as { runId: string; conversationId: string };
    await runFinished(api, runId);
    provider.enqueue({ steps: [{ text: 'slow reply' }], headersDelayMs: 500 });
    const second = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'think', workspace, conversationId },
    });
    expect(second.status).toBe(201);
    const busy = await callApi(api, 'POST', `/api/conversations/${conversationId}/undo`, { body: { runId } });
    expect(busy).toMatchObject({ status: 409, body: { error: { code: 'busy' } } });
    await runFinished(api, (second.body as { runId: string }).runId);
    expect(readFileSync(join(workspace, 'b.txt'), 'utf8')).toBe('b1');
  });
});
