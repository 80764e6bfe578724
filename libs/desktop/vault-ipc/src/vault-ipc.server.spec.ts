import { spawn } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { DaemonClient, encodeFrame } from '@arslan/daemon-client';
import { MAX_FRAME_BYTES } from '@arslan/protocol';
import { FAKE_ASSET_ID, FakeVaultService } from './testing/fake-vault.service';
import { rawClient, tempSocketPath } from './testing/ipc-test-harness';
import { type VaultIpcServer, type VaultIpcServerOptions, startVaultIpcServer } from './vault-ipc.server';

describe('vault IPC server: transport (IPC-2, IPC-6, IPC-7, IPC-8)', () => {
  let dir: string;
  let socketPath: string;
  let service: FakeVaultService;
  let server: VaultIpcServer | undefined;

  async function start(extra: Partial<VaultIpcServerOptions> = {}): Promise<VaultIpcServer> {
    server = await startVaultIpcServer({ socketPath, service, onShutdown: () => undefined, ...extra });
    return server;
  }

  beforeEach(() => {
    ({ dir, socketPath } = tempSocketPath());
    service = new FakeVaultService();
    service.unlocked = true;
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('IPC-6: the socket is 0600 inside a 0700 directory, and removed on close', async () => {
    await start();
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(`${dir}/run`).mode & 0o777).toBe(0o700);
    await server!.close();
    server = undefined;
    expect(() => statSync(socketPath)).toThrow();
  });

  it('IPC-6: a stale socket file is replaced; a live one is not (store_locked)', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(`${dir}/run`, { mode: 0o700 });
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`,
        socketPath,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    await expect(start()).rejects.toMatchObject({ code: 'store_locked' });
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL'); // leaves the socket file behind
    await gone;
    expect(statSync(socketPath).isSocket()).toBe(true);
    await start();
    const client = await DaemonClient.connect(dir, { socketPath, timeoutMs: 2000 });
    await expect(client.call('status', {})).resolves.toMatchObject({ unlocked: true });
    client.close();
  });

  it('IPC-6: a peer of another uid is refused before any frame', async () => {
    await start({ peerCredentials: () => ({ pid: 1, uid: process.getuid!() + 1, gid: 0 }) });
    const raw = await rawClient(socketPath);
    await raw.closed;
    expect(service.totalCalls()).toBe(0);
  });

  it('IPC-7/IPC-8: a stalled client holds one slot but blocks none of the others; the 17th is refused; the stalled one times out', async () => {
    await start({ limits: { frameDeadlineMs: 1500 } });
    const stalled = await rawClient(socketPath);
    const stalledStart = Date.now();
    stalled.socket.write(Buffer.from([0, 0])); // 2 bytes of a length prefix, then nothing
    const stalledFrame = stalled.next().then((frame) => ({ frame, at: Date.now() }));

    const clients = await Promise.all(
      Array.from({ length: 15 }, () => DaemonClient.connect(dir, { socketPath, timeoutMs: 5000 })),
    );
    const finished = await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < 20; i++) {
          await client.call('read', { asset_id: FAKE_ASSET_ID });
          await client.call('status', {});
        }
        return Date.now();
      }),
    );
    expect(server!.clientCount).toBe(16);

    const extra = await rawClient(socketPath);
    expect(await extra.next()).toEqual({
      v: 1,
      id: 0,
      ok: false,
      error: { code: 'too_many_clients', message: 'at most 16 clients at once' },
    });
    await extra.closed;

    const { frame, at } = await stalledFrame;
    expect(frame).toMatchObject({ v: 1, id: 0, ok: false, error: { code: 'timeout' } });
    expect(at - stalledStart).toBeGreaterThanOrEqual(1400);
    expect(Math.max(...finished)).toBeLessThan(at); // all 15 were served while the stalled one waited
    await stalled.closed;
    expect(service.callsOf('read')).toBe(300);

    for (const client of clients) client.close();
  });

  it('IPC-8: idle connections are closed', async () => {
    await start({ limits: { idleConnectionMs: 200 } });
    const raw = await rawClient(socketPath);
    const started = Date.now();
    await raw.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  describe('bad frames get the typed error and never reach the service', () => {
    beforeEach(() => start());
    afterEach(() => expect(service.totalCalls()).toBe(0));

    it('IPC-2: malformed JSON → bad_request', async () => {
      const raw = await rawClient(socketPath);
      const body = Buffer.from('{"v":1,"id":3,"op":"unlock","args":{"password":"hunter2"');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length, 0);
      raw.socket.write(Buffer.concat([head, body]));
      const frame = await raw.next();
      expect(frame).toMatchObject({ id: 0, ok: false, error: { code: 'bad_request' } });
      expect(JSON.stringify(frame)).not.toContain('hunter2');
      raw.socket.destroy();
    });

    it('IPC-2: a declared length above 16 MiB → frame_too_large, then closed', async () => {
      const raw = await rawClient(socketPath);
      const head = Buffer.alloc(4);
      head.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
      raw.socket.write(head);
      expect(await raw.next()).toMatchObject({ id: 0, ok: false, error: { code: 'frame_too_large' } });
      await raw.closed;
    });

    it('IPC-2: a zero-length frame → bad_request, then closed', async () => {
      const raw = await rawClient(socketPath);
      raw.socket.write(Buffer.alloc(4));
      expect(await raw.next()).toMatchObject({ id: 0, ok: false, error: { code: 'bad_request' } });
      await raw.closed;
    });

    it('IPC-1: an unknown top-level field → bad_request with the request id', async () => {
      const raw = await rawClient(socketPath);
      raw.socket.write(encodeFrame({ v: 1, id: 5, op: 'status', args: {}, sudo: true }));
      expect(await raw.next()).toMatchObject({ id: 5, ok: false, error: { code: 'bad_request' } });
      raw.socket.destroy();
    });

    it('IPC-1: an unknown op → unknown_op', async () => {
      const raw = await rawClient(socketPath);
      expect(await raw.request(6, 'format_disk')).toMatchObject({
        id: 6,
        ok: false,
        error: { code: 'unknown_op' },
      });
      raw.socket.destroy();
    });

    it('IPC-1: wrong types and unknown args → bad_request that never echoes the values', async () => {
      const raw = await rawClient(socketPath);
      const wrong = await raw.request(7, 'write', { title: 'secret-title', body: 42 });
      expect(wrong).toMatchObject({ id: 7, ok: false, error: { code: 'bad_request' } });
      const extra = await raw.request(8, 'unlock', { password: 'hunter2', remember: 'hunter2' });
      expect(extra).toMatchObject({ id: 8, ok: false, error: { code: 'bad_request' } });
      const version = await raw.request(9, 'unlock', { password: 7 });
      expect(version).toMatchObject({ id: 9, error: { code: 'bad_request' } });
      expect(JSON.stringify([wrong, extra])).not.toMatch(/secret-title|hunter2/);
      raw.socket.destroy();
    });
  });

  it('maps a non-VaultServiceError to internal with a generic message', async () => {
    await start();
    const raw = await rawClient(socketPath);
    const frame = await raw.request(4, 'history', { asset_id: FAKE_ASSET_ID });
    expect(frame).toEqual({ v: 1, id: 4, ok: false, error: { code: 'internal', message: 'internal error' } });
    raw.socket.destroy();
  });

  it('a response larger than the frame limit becomes frame_too_large for that request only', async () => {
    await start({ limits: { maxFrameBytes: 300 } });
    const raw = await rawClient(socketPath);
    expect(await raw.request(1, 'import', { items: [{ title: 'x'.repeat(150), body: '' }] })).toMatchObject({
      id: 1,
      ok: false,
      error: { code: 'frame_too_large' },
    });
    expect(await raw.request(2, 'list', {})).toMatchObject({ id: 2, ok: true });
    raw.socket.destroy();
  });
});
