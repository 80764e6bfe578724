// Unknown-effect operations over a real socket (CKPT-06/09): a run is cut off while a side-effect
// operation is in flight; a second runtime on the same data is the restart, and its local API lists
// the operation for the user's check and takes the user's answer.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRuntime, type Tool, createAgentRuntime, createModelProvider } from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { z } from 'zod';
import { type LocalApi, startLocalApi } from './index';
import { callApi } from './local-api.spec-support';

jest.setTimeout(30_000);

/** A side-effect operation whose answer never comes (the process "dies" while it is in flight). */
function hangingSend(): Tool<{ to: string }> {
  return {
    name: 'send_note',
    description: 'sends a note',
    schema: z.strictObject({ to: z.string() }),
    readOnly: false,
    resident: true,
    approval: (args) => ({ kind: 'send', summary: `note to ${args.to}` }),
    execute: () => new Promise<never>(() => undefined),
  };
}

describe('local API: operations of unknown effect (CKPT-06/09)', () => {
  let root: string;
  let provider: ScriptedProviderServer;
  let first: AgentRuntime;
  let second: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'arslan-reconcile-api-')));
    provider = await ScriptedProviderServer.start();
    const resolveProvider = () =>
      createModelProvider('openai-compatible', { baseUrl: provider.baseUrlFor('openai-compatible') });
    first = createAgentRuntime({ dataDir: join(root, 'agent'), resolveProvider });
    first.registry.register(hangingSend());
  });

  afterAll(async () => {
    await api?.close();
    second?.close();
    first.close();
    await provider.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('CKPT-09 lists the unanswered send; CKPT-06 settles it only for its own conversation', async () => {
    provider.enqueue({
      steps: [{ toolCall: { name: 'send_note', args: { to: 'bob' }, id: 'call_s1', parts: 1 } }],
    });
    const started = first.service.startRun({
      workspace: root,
      model: 'gpt-4o-mini',
      message: 'send bob a note',
      attended: false,
      allow: ['send'],
      provider: createModelProvider('openai-compatible', {
        baseUrl: provider.baseUrlFor('openai-compatible'),
      }),
    });
    const deadline = Date.now() + 10_000;
    while (first.db.prepare("SELECT 1 FROM actions WHERE state = 'started'").get() === undefined) {
      if (Date.now() > deadline) throw new Error('the send never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The restart: a second runtime on the same data marks the run interrupted, the send unknown.
    second = createAgentRuntime({ dataDir: join(root, 'agent') });
    api = await startLocalApi({ service: second.service, dataDir: root, preferredPort: 0 });
    const base = `/api/conversations/${started.conversationId}`;

    expect((await callApi(api, 'GET', `${base}/needs-check`, { token: null })).status).toBe(401);
    const listed = await callApi(api, 'GET', `${base}/needs-check`);
    expect(listed.status).toBe(200);
    expect(listed.body['actions']).toEqual([
      { runId: started.runId, callId: 'call_s1', tool: 'send_note', kind: 'send', summary: 'note to bob' },
    ]);

    const answer = { runId: started.runId, callId: 'call_s1', outcome: 'confirmed' };
    // Bad bodies and another conversation change nothing.
    const extra = await callApi(api, 'POST', `${base}/reconcile`, { body: { ...answer, note: 'x' } });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ error: { code: 'invalid_body' } });
    const wrongOutcome = await callApi(api, 'POST', `${base}/reconcile`, {
      body: { ...answer, outcome: 'maybe' },
    });
    expect(wrongOutcome.status).toBe(400);
    const elsewhere = await callApi(api, 'POST', '/api/conversations/other-conversation/reconcile', {
      body: answer,
    });
    expect(elsewhere.status).toBe(404);
    expect((await callApi(api, 'GET', `${base}/needs-check`)).body['actions']).toHaveLength(1);
    expect((await callApi(api, 'GET', `${base}/reconcile`)).status).toBe(405);

    const settled = await callApi(api, 'POST', `${base}/reconcile`, { body: answer });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ outcome: 'confirmed' });
    expect((await callApi(api, 'GET', `${base}/needs-check`)).body['actions']).toEqual([]);
    // Settled once: a second answer finds nothing to settle.
    expect((await callApi(api, 'POST', `${base}/reconcile`, { body: answer })).status).toBe(404);
    first.service.stop(started.runId);
  });
});
