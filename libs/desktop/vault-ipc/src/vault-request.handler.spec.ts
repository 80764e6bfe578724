import { rmSync } from 'node:fs';
import { DaemonClient } from '@arslan/daemon-client';
import { UNLOCK_IDLE_MS } from '@arslan/protocol';
import { FAKE_ASSET_ID, FakeVaultService } from './testing/fake-vault.service';
import { type RawClient, rawClient, requestFromChild, tempSocketPath } from './testing/ipc-test-harness';
import { type VaultIpcServer, type VaultIpcServerOptions, startVaultIpcServer } from './vault-ipc.server';

const PASSWORD = 'correct horse battery';
const BACKUP = { path: '/tmp/arslan-backup.bin', backup_password: 'backup-pass' };

describe('vault IPC server: sessions (IPC-10..15)', () => {
  let dir: string;
  let socketPath: string;
  let service: FakeVaultService;
  let server: VaultIpcServer | undefined;
  let now: number;
  let shutdowns: number;
  let raw: RawClient;
  let nextId: number;

  async function start(extra: Partial<VaultIpcServerOptions> = {}): Promise<void> {
    server = await startVaultIpcServer({
      socketPath,
      service,
      dataDir: dir,
      clock: { now: () => now },
      onShutdown: () => (shutdowns += 1),
      ...extra,
    });
    raw = await rawClient(socketPath);
  }

  const call = (op: string, args: unknown = {}) => raw.request(nextId++, op, args);
  const errorCode = (frame: Record<string, unknown>) => (frame.error as { code?: string } | undefined)?.code;

  beforeEach(() => {
    ({ dir, socketPath } = tempSocketPath());
    service = new FakeVaultService();
    now = 1_000_000;
    shutdowns = 0;
    nextId = 1;
  });

  afterEach(async () => {
    raw?.socket.destroy();
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('IPC-10: write ops run one at a time across clients while reads go on concurrently', async () => {
    service.unlocked = true;
    service.asyncDelayMs = 40;
    await start();
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => DaemonClient.connect(dir, { socketPath, timeoutMs: 5000 })),
    );
    const restoreArgs = { path: '/tmp/b.bin', backup_password: 'x', password: PASSWORD };
    // Order by completion count, not wall-clock stamps (robust on a loaded machine).
    let writesFinished = 0;
    const writes = clients.map((client) =>
      client.call('restore', restoreArgs).then(() => {
        writesFinished += 1;
      }),
    );
    await clients[0]!.call('read', { asset_id: FAKE_ASSET_ID });
    const writesFinishedAtRead = writesFinished;
    await Promise.all(writes);
    expect(service.callsOf('restore')).toBe(4);
    expect(service.maxConcurrentWrites).toBe(1);
    expect(writesFinishedAtRead).toBeLessThan(4); // the read did not wait for the whole queue
    for (const client of clients) client.close();
  });

  it('IPC-11: unlock expires after 15 min without a data op; status neither refreshes nor extends it', async () => {
    await start();
    expect(await call('unlock', { password: PASSWORD })).toMatchObject({
      ok: true,
      result: { unlock_idle_expires_at: now + UNLOCK_IDLE_MS },
    });
    now += UNLOCK_IDLE_MS - 1000;
    expect(await call('read', { asset_id: FAKE_ASSET_ID })).toMatchObject({ ok: true });
    const touchedAt = now;
    now += UNLOCK_IDLE_MS - 1000;
    const status = await call('status');
    expect(status).toMatchObject({
      ok: true,
      result: {
        unlocked: true,
        unlock_idle_expires_at: touchedAt + UNLOCK_IDLE_MS,
        sudo: false,
        data_dir: dir,
      },
    });
    now += 1000; // 15 min since the read; the status above did not count
    expect(errorCode(await call('read', { asset_id: FAKE_ASSET_ID }))).toBe('locked');
    expect(service.callsOf('lock')).toBe(1);
    expect(await call('status')).toMatchObject({ result: { unlocked: false, unlock_idle_expires_at: null } });
  });

  it('IPC-12: sudo binds to the parent of the requesting process; siblings share it, others get sudo_required', async () => {
    service.unlocked = true;
    await start();
    const req = (id: number, op: string, args: unknown = {}) => ({ v: 1, id, op, args });
    expect(await requestFromChild(socketPath, req(1, 'sudo', { password: PASSWORD }))).toMatchObject({
      ok: true,
      result: { sudo_expires_at: now + 5 * 60_000 },
    });
    // a sibling: another child of this test process
    expect(await requestFromChild(socketPath, req(2, 'status'))).toMatchObject({ result: { sudo: true } });
    expect(await requestFromChild(socketPath, req(3, 'backup', BACKUP))).toMatchObject({ ok: true });
    // a grandchild (different parent) and this process itself (its parent is not us)
    expect(errorCode(await requestFromChild(socketPath, req(4, 'backup', BACKUP), 'grandchild'))).toBe(
      'sudo_required',
    );
    expect(errorCode(await call('backup', BACKUP))).toBe('sudo_required');
    expect(await call('status')).toMatchObject({ result: { sudo: false } });
    expect(service.callsOf('backup')).toBe(1);
    // 5 min idle since the last use → expired
    now += 5 * 60_000;
    expect(errorCode(await requestFromChild(socketPath, req(5, 'backup', BACKUP)))).toBe('sudo_required');
  });

  it('IPC-12: sudo expires 15 min after the grant even when used all the time', async () => {
    service.unlocked = true;
    await start({ parentPidOf: () => 4242 }); // every caller looks like a child of 4242
    await call('sudo', { password: PASSWORD });
    for (let i = 0; i < 3; i++) {
      now += 4 * 60_000;
      expect(await call('backup', BACKUP)).toMatchObject({ ok: true });
    }
    now += 3 * 60_000; // 15 min after the grant
    expect(errorCode(await call('backup', BACKUP))).toBe('sudo_required');
  });

  it('MCP-7: an MCP call never rides on terminal elevation; only its own capability counts', async () => {
    service.unlocked = true;
    await start({ parentPidOf: () => 4242 });
    expect(await call('sudo', { password: PASSWORD })).toMatchObject({ ok: true });
    const token = `amcp_${'A'.repeat(43)}`;
    const refused = await call('mcp_call', {
      token,
      tool: 'memory_search',
      arguments: { vault: 'personal', query: 'x' },
    });
    expect(errorCode(refused)).toBe('unauthorized');
    expect(JSON.stringify(refused)).not.toContain(token);
    const issued = await call('mcp_grant_issue', { vault: 'personal', minutes: 5 });
    expect(issued).toMatchObject({ ok: true, result: { scope: 'read', depth: 1 } });
    const real = (issued.result as { token: string }).token;
    // read scope: a write is refused although this caller holds sudo
    const write = await call('mcp_call', {
      token: real,
      tool: 'memory_write',
      arguments: { vault: 'personal', title: 't', body: 'b' },
    });
    expect(errorCode(write)).toBe('forbidden');
    expect(service.callsOf('write')).toBe(0);
    // MCP-9: lock suspends the grant, unlock restores it from the log
    await call('lock');
    expect(
      errorCode(
        await call('mcp_call', { token: real, tool: 'grant_list', arguments: { vault: 'personal' } }),
      ),
    ).toBe('locked');
    await call('unlock', { password: PASSWORD });
    expect(
      await call('mcp_call', { token: real, tool: 'grant_list', arguments: { vault: 'personal' } }),
    ).toMatchObject({
      ok: true,
    });
  });

  it('MCP bad input: a malformed token or unknown tool is a typed error before any lookup', async () => {
    service.unlocked = true;
    await start();
    const secretish = 'amcp_short';
    const bad = await call('mcp_call', { token: secretish, tool: 'memory_search', arguments: {} });
    expect(errorCode(bad)).toBe('bad_request');
    expect(JSON.stringify(bad)).not.toContain(secretish);
    expect(
      errorCode(
        await call('mcp_call', { token: `amcp_${'A'.repeat(43)}`, tool: 'files_read', arguments: {} }),
      ),
    ).toBe('bad_request');
    expect(service.callsOf('readGrantLog')).toBe(0);
  });

  it('IPC-13: lock clears all elevation', async () => {
    service.unlocked = true;
    await start({ parentPidOf: () => 4242 });
    expect(await call('sudo', { password: PASSWORD })).toMatchObject({ ok: true });
    await call('lock');
    await call('unlock', { password: PASSWORD });
    expect(errorCode(await call('backup', BACKUP))).toBe('sudo_required');
  });

  it('IPC-12: without peer credentials sudo fails closed (sudo_required), and a wrong password is bad_password', async () => {
    service.unlocked = true;
    await start({ peerCredentials: () => undefined });
    expect(errorCode(await call('sudo', { password: PASSWORD }))).toBe('sudo_required');
    expect(errorCode(await call('backup', BACKUP))).toBe('sudo_required');
    await server!.close();
    raw.socket.destroy();
    await start({ parentPidOf: () => 4242 });
    expect(errorCode(await call('sudo', { password: 'nope' }))).toBe('bad_password');
  });

  it('IPC-14: while locked, failed password attempts are rate-limited and never audited', async () => {
    await start();
    for (let i = 0; i < 5; i++)
      expect(errorCode(await call('unlock', { password: `wrong-${i}` }))).toBe('bad_password');
    expect(errorCode(await call('unlock', { password: PASSWORD }))).toBe('rate_limited');
    expect(service.callsOf('unlock')).toBe(5); // the limited attempt never reached the service
    now += 1000;
    expect(errorCode(await call('unlock', { password: 'wrong-again' }))).toBe('bad_password');
    now += 1999;
    expect(errorCode(await call('unlock', { password: PASSWORD }))).toBe('rate_limited'); // backoff doubled to 2 s
    now += 1;
    expect(await call('unlock', { password: PASSWORD })).toMatchObject({ ok: true });
    expect(service.audited).toEqual([]);
    expect(service.callsOf('recordFailure')).toBe(0);
  });

  it('IPC-14: concurrent guesses cannot outrun the limiter', async () => {
    await start();
    const clients = await Promise.all(Array.from({ length: 10 }, () => rawClient(socketPath)));
    const frames = await Promise.all(
      clients.map((c, i) => c.request(1, 'unlock', { password: `guess-${i}` })),
    );
    expect(frames.filter((f) => errorCode(f) === 'bad_password')).toHaveLength(5);
    expect(frames.filter((f) => errorCode(f) === 'rate_limited')).toHaveLength(5);
    for (const c of clients) c.socket.destroy();
  });

  it('IPC-15: while unlocked, failed operations are audited (op and code only)', async () => {
    service.unlocked = true;
    await start();
    expect(errorCode(await call('read', { asset_id: 'b'.repeat(32) }))).toBe('not_found');
    expect(errorCode(await call('backup', BACKUP))).toBe('sudo_required');
    await call('status');
    expect(service.audited).toEqual([
      { op: 'read', code: 'not_found' },
      { op: 'backup', code: 'sudo_required' },
    ]);
  });

  it('shutdown responds first, then calls onShutdown once', async () => {
    await start();
    const frame = await call('shutdown');
    expect(frame).toEqual({ v: 1, id: 1, ok: true, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(shutdowns).toBe(1);
  });

  it('init leaves the store unlocked with a running idle timer; vault_list needs the unlock', async () => {
    service.initialized = false;
    await start();
    expect(errorCode(await call('vault_list'))).toBe('not_initialized');
    expect(await call('init', { password: PASSWORD })).toMatchObject({ ok: true });
    expect(await call('vault_list')).toMatchObject({ ok: true, result: { vaults: [{ name: 'personal' }] } });
    expect(await call('status')).toMatchObject({ result: { unlock_idle_expires_at: now + UNLOCK_IDLE_MS } });
    await call('lock');
    expect(errorCode(await call('vault_list'))).toBe('locked');
  });

  it('RAG ops go to the rag service outside the write queue; lock clears it (RAG-6); none → bad_request', async () => {
    const seen: string[] = [];
    let cleared = 0;
    let release: () => void = () => undefined;
    const rag = {
      search: async () => {
        seen.push('search');
        await new Promise<void>((resolve) => (release = resolve));
        return { vault: 'personal', kind: 'lexical', hits: [] };
      },
      retrieve: async (op: string) => (seen.push(op), { vault: 'personal', kind: 'lexical', chunks: [] }),
      index: async () => (seen.push('rag_index'), {}),
      status: () => (seen.push('rag_status'), {}),
      ask: async () => (seen.push('rag_ask'), {}),
      clear: () => void (cleared += 1),
      close: async () => undefined,
    };
    await start({ rag: rag as unknown as VaultIpcServerOptions['rag'] });
    await call('unlock', { password: PASSWORD });
    const other = await rawClient(socketPath);
    const slow = other.request(999, 'search', { query: 'q' });
    while (!seen.includes('search')) await new Promise((resolve) => setTimeout(resolve, 5));
    // a write op still runs while the search (model work) is pending
    expect(await call('write', { title: 't', body: 'b' })).toMatchObject({ ok: true });
    for (const op of ['retrieve', 'rag_search', 'rag_index', 'rag_status'])
      expect(
        await call(op, op.startsWith('rag_i') || op === 'rag_status' ? {} : { query: 'q' }),
      ).toMatchObject({ ok: true });
    expect(await call('rag_ask', { question: 'q' })).toMatchObject({ ok: true });
    release();
    expect(await slow).toMatchObject({ ok: true });
    other.socket.destroy();
    expect(seen).toEqual(['search', 'retrieve', 'rag_search', 'rag_index', 'rag_status', 'rag_ask']);
    await call('lock');
    expect(cleared).toBe(1);
    await server?.close();
    raw.socket.destroy();
    server = undefined;
    await start();
    expect(errorCode(await call('search', { query: 'q' }))).toBe('bad_request');
  });
});
