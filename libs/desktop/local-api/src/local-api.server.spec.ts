// The local API over a real socket: the real RunService and loop, a scripted provider over HTTP,
// a real `ws` client.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentRuntime,
  type RunEvent,
  createAgentRuntime,
  createModelProvider,
} from '@arslan/desktop-agent';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import WebSocket from 'ws';
import {
  type LocalApi,
  PREFERRED_PORT,
  type StreamFrame,
  WS_PROTOCOL,
  WS_TOKEN_PROTOCOL_PREFIX,
  startLocalApi,
} from './index';
import { callApi } from './local-api.spec-support';

jest.setTimeout(30_000);

class Stream {
  readonly frames: StreamFrame[] = [];
  readonly binary: boolean[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      this.binary.push(isBinary);
      this.frames.push(JSON.parse(data.toString('utf8')) as StreamFrame);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }
  static open(api: LocalApi, query: string, how: 'header' | 'protocol' = 'header'): Promise<Stream> {
    const url = `ws://127.0.0.1:${api.port}/ws?${query}`;
    const ws =
      how === 'header'
        ? new WebSocket(url, { headers: { authorization: `Bearer ${api.token}` } })
        : new WebSocket(url, [WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${api.token}`]);
    const stream = new Stream(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(stream));
      ws.once('error', reject);
    });
  }
  events(): RunEvent[] {
    const out: RunEvent[] = [];
    for (const frame of this.frames) {
      if (frame.type === 'snapshot') out.push(...(frame.snapshot?.events ?? []));
      else out.push(frame.event);
    }
    return out;
  }
  async until(predicate: (events: RunEvent[]) => boolean, timeoutMs = 10_000): Promise<RunEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events())) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out; events: ${this.events()
            .map((e) => e.type)
            .join(',')}`,
        );
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.events();
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/** Rejected upgrades: the status the server answered. */
function upgradeStatus(url: string, options: WebSocket.ClientOptions, protocols?: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = protocols ? new WebSocket(url, protocols, options) : new WebSocket(url, options);
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => undefined);
  });
}

const seqs = (events: RunEvent[]): number[] => events.map((e) => e.seq);
const contiguous = (events: RunEvent[]): boolean => seqs(events).every((seq, i) => seq === i + 1);

describe('local API (ARCH-05/09/10, CKPT-04, APPR-010)', () => {
  let root: string;
  let workspace: string;
  let provider: ScriptedProviderServer;
  let runtime: AgentRuntime;
  let api: LocalApi;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-local-api-'));
    workspace = mkdtempSync(join(tmpdir(), 'arslan-local-api-ws-'));
    provider = await ScriptedProviderServer.start();
    runtime = createAgentRuntime({
      dataDir: join(root, 'agent'),
      resolveProvider: (name) => {
        if (name !== 'fake') throw new Error(`unknown provider ${name}`);
        return createModelProvider('openai-compatible', {
          baseUrl: provider.baseUrlFor('openai-compatible'),
        });
      },
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

  beforeEach(() => provider.reset());

  it('ARCH-10: writes a 256-bit token to a 0600 file and binds loopback only', () => {
    expect(api.token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(api.tokenFile, 'utf8').trim()).toBe(api.token);
    expect(statSync(api.tokenFile).mode & 0o777).toBe(0o600);
    expect(api.origin).toBe(`http://127.0.0.1:${api.port}`);
  });

  it('ARCH-10: HTTP without a token, or with a wrong one, is 401', async () => {
    expect((await callApi(api, 'GET', '/api/health', { token: null })).status).toBe(401);
    const wrong = await callApi(api, 'GET', '/api/health', { token: 'a'.repeat(64) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect((await callApi(api, 'GET', '/api/health', { token: api.token.slice(0, 10) })).status).toBe(401);
    const health = await callApi(api, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true, port: api.port });
  });

  it('ARCH-10: a foreign Host (DNS rebinding) or Origin (another site) is 403, even with the token', async () => {
    for (const host of [`evil.example:${api.port}`, '127.0.0.1:1', `127.0.0.1.nip.io:${api.port}`]) {
      expect((await callApi(api, 'GET', '/api/health', { headers: { host } })).status).toBe(403);
    }
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${api.port + 1}`]) {
      expect((await callApi(api, 'GET', '/api/cards', { headers: { origin } })).status).toBe(403);
    }
    expect((await callApi(api, 'GET', '/api/health', { headers: { origin: api.origin } })).status).toBe(200);
    expect(
      (await callApi(api, 'GET', '/api/health', { headers: { host: `localhost:${api.port}` } })).status,
    ).toBe(200);
  });

  it('ARCH-10: the WebSocket upgrade needs the token (401) and the right Origin/Host (403)', async () => {
    const url = `ws://127.0.0.1:${api.port}/ws?conversation=c-none`;
    expect(await upgradeStatus(url, {})).toBe(401);
    expect(await upgradeStatus(url, { headers: { authorization: 'Bearer nope' } })).toBe(401);
    expect(await upgradeStatus(url, {}, [WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}nope`])).toBe(401);
    expect(
      await upgradeStatus(url, {
        headers: { authorization: `Bearer ${api.token}` },
        origin: 'https://evil.example',
      }),
    ).toBe(403);
    expect(
      await upgradeStatus(url, {
        headers: { authorization: `Bearer ${api.token}`, host: `evil.example:${api.port}` },
      }),
    ).toBe(403);
    // A browser presents the token as a subprotocol; the server answers with `arslan.v1` only.
    const ok = await Stream.open(api, 'conversation=c-none', 'protocol');
    expect(ok.ws.protocol).toBe(WS_PROTOCOL);
    await ok.until(() => ok.frames.length > 0);
    expect(ok.frames[0]).toEqual({ type: 'snapshot', conversationId: 'c-none', snapshot: null });
    await ok.close();
  });

  it('strict bodies: unknown fields, bad JSON, wrong type and oversize bodies are typed 4xx errors with no run started', async () => {
    const inboxBefore = (await callApi(api, 'GET', '/api/inbox')).body;
    const unknown = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'hi', workspace, extra: true },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { code: 'invalid_body' } });
    expect(String((unknown.body['error'] as { message: string }).message)).toContain('extra');
    expect((await callApi(api, 'POST', '/api/runs', { raw: '{"message":' })).body).toMatchObject({
      error: { code: 'invalid_json' },
    });
    const text = await callApi(api, 'POST', '/api/runs', {
      raw: JSON.stringify({ message: 'hi', workspace }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const big = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'x'.repeat(1_100_000), workspace },
    });
    expect(big.status).toBe(413);
    expect(
      (await callApi(api, 'POST', '/api/runs', { body: { message: 'hi', workspace: 'relative/dir' } })).body,
    ).toMatchObject({
      error: { code: 'bad_workspace' },
    });
    expect(
      (await callApi(api, 'POST', '/api/runs', { body: { message: 'hi', workspace, allow: ['everything'] } }))
        .status,
    ).toBe(400);
    expect(
      (
        await callApi(api, 'POST', '/api/cards/call_x/answer', {
          body: { kind: 'workspace_write', option: 'once' },
        })
      ).status,
    ).toBe(400);
    expect((await callApi(api, 'GET', '/api/runs')).status).toBe(405);
    expect((await callApi(api, 'GET', '/api/nothing')).status).toBe(404);
    expect((await callApi(api, 'GET', '/api/runs/no-such-run')).status).toBe(404);
    expect(provider.requests).toHaveLength(0);
    expect((await callApi(api, 'GET', '/api/inbox')).body).toEqual(inboxBefore);
  });

  it('ARCH-09/CKPT-04/APPR-010: a run streams over a real WebSocket (binary JSON frames); a card answered over HTTP, first answer wins and the second is 409; a reconnect mid-run gets snapshot + the rest with no gap or duplicate', async () => {
    provider.enqueue(
      {
        steps: [
          { text: 'Writing it.' },
          { toolCall: { name: 'write_file', args: { path: 'out.txt', content: 'hi\n' } } },
        ],
      },
      {
        steps: [{ text: 'Done: ' }, { stall: 400 }, { text: 'wrote out.txt.' }],
        usage: { input: 10, output: 5 },
      },
    );
    const started = await callApi(api, 'POST', '/api/runs', {
      body: { message: 'write out.txt', workspace },
    });
    expect(started.status).toBe(201);
    const { runId, conversationId } = started.body as { runId: string; conversationId: string };

    const first = await Stream.open(api, `run=${encodeURIComponent(runId)}`);
    await first.until((events) => events.some((e) => e.type === 'card_opened'));
    expect(first.frames[0]?.type).toBe('snapshot');
    expect(first.binary.every(Boolean)).toBe(true);

    const cards = (await callApi(api, 'GET', '/api/cards')).body['cards'] as {
      callId: string;
      kind: string;
      runId: string;
      options: string[];
    }[];
    const card = cards.find((c) => c.runId === runId);
    expect(card).toMatchObject({ kind: 'workspace_write' });
    const inbox = (await callApi(api, 'GET', '/api/inbox')).body;
    expect(inbox).toHaveProperty('items');

    // A client that drops mid-run: the run keeps going (ARCH-15).
    const seenByFirst = first.events().length;
    await first.close();

    const callId = encodeURIComponent(card!.callId);
    const option = card!.options[0]!;
    const answer = { kind: 'workspace_write', option, surface: 'window' };
    const won = await callApi(api, 'POST', `/api/cards/${callId}/answer`, { body: answer });
    expect(won.status).toBe(200);
    expect(won.body).toEqual({ callId: card!.callId, resolution: { status: 'approved', option } });
    const lost = await callApi(api, 'POST', `/api/cards/${callId}/answer`, {
      body: { ...answer, surface: 'inbox' },
    });
    expect(lost.status).toBe(409);
    expect(lost.body).toMatchObject({ error: { code: 'already_answered' } });

    // Reconnect while the second model reply is still streaming.
    const second = await Stream.open(api, `run=${encodeURIComponent(runId)}`);
    const events = await second.until((es) => es.some((e) => e.type === 'run_finished'));
    const snapshot = second.frames[0];
    expect(snapshot?.type).toBe('snapshot');
    expect(snapshot?.type === 'snapshot' && snapshot.snapshot!.events.length).toBeGreaterThanOrEqual(
      seenByFirst,
    );
    expect(second.frames.filter((f) => f.type === 'event').length).toBeGreaterThan(0); // streamed, not all in the snapshot
    expect(contiguous(events)).toBe(true);
    expect(new Set(seqs(events)).size).toBe(events.length);
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      status: 'succeeded',
      answer: 'Done: wrote out.txt.',
    });
    expect(events.some((e) => e.type === 'card_closed')).toBe(true);
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('hi\n');
    await second.close();

    // A run that already ended: its snapshot, then the server closes the socket (1000).
    const late = await Stream.open(api, `run=${encodeURIComponent(runId)}`);
    const code = await new Promise<number>((resolve) => late.ws.once('close', (c: number) => resolve(c)));
    expect(code).toBe(1000);
    expect(late.frames).toHaveLength(1);
    expect(late.events().at(-1)).toMatchObject({ type: 'run_finished' });

    const run = await callApi(api, 'GET', `/api/runs/${encodeURIComponent(runId)}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      runId,
      conversationId,
      status: 'succeeded',
      result: { answer: 'Done: wrote out.txt.' },
    });
    expect(
      (await callApi(api, 'POST', `/api/runs/${encodeURIComponent(runId)}/stop`, { body: {} })).status,
    ).toBe(409);
  });

  it('TURN-02/ARCH-09: a conversation stream follows the next turn started by POST /api/conversations/:id/messages; stop cancels a live run', async () => {
    provider.enqueue({ steps: [{ text: 'first answer' }] });
    const started = await callApi(api, 'POST', '/api/runs', { body: { message: 'one', workspace } });
    const { runId, conversationId } = started.body as { runId: string; conversationId: string };
    const stream = await Stream.open(api, `conversation=${encodeURIComponent(conversationId)}`);
    await stream.until((es) => es.some((e) => e.type === 'run_finished' && e.runId === runId));

    provider.enqueue({ steps: [{ text: 'second ' }, { stall: 'forever' }] });
    const sent = await callApi(
      api,
      'POST',
      `/api/conversations/${encodeURIComponent(conversationId)}/messages`,
      {
        body: { text: 'two' },
      },
    );
    expect(sent.status).toBe(201);
    const nextRun = (sent.body as { runId: string }).runId;
    expect(nextRun).not.toBe(runId);
    await stream.until((es) => es.some((e) => e.runId === nextRun && e.type === 'text_delta'));
    const snapshots = stream.frames.filter((f) => f.type === 'snapshot');
    expect(snapshots).toHaveLength(2);

    expect(
      (await callApi(api, 'POST', `/api/runs/${encodeURIComponent(nextRun)}/stop`, { body: {} })).status,
    ).toBe(202);
    const events = await stream.until((es) =>
      es.some((e) => e.runId === nextRun && e.type === 'run_finished'),
    );
    expect(events.filter((e) => e.runId === nextRun).at(-1)).toMatchObject({
      type: 'run_finished',
      status: 'stopped',
    });
    expect(contiguous(events.filter((e) => e.runId === nextRun))).toBe(true);
    await stream.close();
    expect(
      (await callApi(api, 'POST', '/api/conversations/never-seen/messages', { body: { text: 'x' } })).status,
    ).toBe(404);
  });
});

describe('local API port (ARCH-05)', () => {
  it('ARCH-05: falls back to an ephemeral loopback port when 47317 is taken', async () => {
    const dummy: Server = createServer();
    let ownDummy = true;
    await new Promise<void>((resolve) => {
      dummy.once('error', () => {
        ownDummy = false; // already taken by someone else: the fallback is exercised either way
        resolve();
      });
      dummy.listen(PREFERRED_PORT, '127.0.0.1', () => resolve());
    });
    const dir = mkdtempSync(join(tmpdir(), 'arslan-local-api-port-'));
    const runtime = createAgentRuntime({ dataDir: join(dir, 'agent') });
    try {
      const api = await startLocalApi({ service: runtime.service, dataDir: dir });
      expect(api.port).not.toBe(PREFERRED_PORT);
      expect(api.port).toBeGreaterThan(0);
      const health = await callApi(api, 'GET', '/api/health');
      expect(health.status).toBe(200);
      await api.close();
      expect(existsSync(api.tokenFile)).toBe(false);
    } finally {
      runtime.close();
      if (ownDummy) await new Promise<void>((resolve) => dummy.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
