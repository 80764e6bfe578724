import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IpcError } from '@arslan/protocol';
import { DaemonClient, DaemonUnavailableError } from './daemon-client';
import { FrameDecoder, encodeFrame, parseFrameJson } from './frame-codec';
import { SOCKET_PATH_MAX_BYTES, daemonSocketPath } from './socket-path';

type Handler = (request: { id: number; op: string; args: unknown }, socket: Socket) => void;

describe('daemonSocketPath (IPC-6)', () => {
  it('is <dataDir>/run/vault.sock when short enough', () => {
    expect(daemonSocketPath('/home/a/.arslan')).toBe('/home/a/.arslan/run/vault.sock');
  });

  it('falls back to <tmpdir>/arslan-<uid>/<16 hex>.sock above 100 bytes, stable per data dir', () => {
    const long = `/data/${'d'.repeat(120)}`;
    const path = daemonSocketPath(long, { tmpDir: '/tmp', uid: 501 });
    expect(path).toMatch(/^\/tmp\/arslan-501\/[0-9a-f]{16}\.sock$/);
    expect(daemonSocketPath(`${long}/`, { tmpDir: '/tmp', uid: 501 })).toBe(path);
    expect(daemonSocketPath(`${long}x`, { tmpDir: '/tmp', uid: 501 })).not.toBe(path);
    const edge = `/${'e'.repeat(SOCKET_PATH_MAX_BYTES - '/run/vault.sock'.length - 1)}`;
    expect(daemonSocketPath(edge)).toBe(`${edge}/run/vault.sock`);
    expect(daemonSocketPath(`${edge}e`)).not.toContain('/run/');
  });
});

describe('DaemonClient (IPC-1, IPC-2)', () => {
  let dir: string;
  let server: Server;
  let handler: Handler;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arslan-client-'));
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    server = createServer((socket) => {
      const decoder = new FrameDecoder();
      socket.on('data', (chunk) => {
        for (const body of decoder.push(chunk)) handler(parseFrameJson(body) as never, socket);
      });
    });
    await new Promise<void>((resolve) => server.listen(daemonSocketPath(dir), resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('DaemonUnavailableError when nothing listens', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'arslan-none-'));
    await expect(DaemonClient.connect(empty, { timeoutMs: 1000 })).rejects.toBeInstanceOf(
      DaemonUnavailableError,
    );
    rmSync(empty, { recursive: true, force: true });
  });

  it('sends {v:1,id,op,args} with increasing ids and matches out-of-order responses by id', async () => {
    const seen: { id: number; op: string }[] = [];
    handler = (request, socket) => {
      seen.push({ id: request.id, op: request.op });
      if (seen.length === 2)
        for (const r of [...seen].reverse())
          socket.write(encodeFrame({ v: 1, id: r.id, ok: true, result: { echo: r.op } }));
    };
    const client = await DaemonClient.connect(dir, { timeoutMs: 2000 });
    const [a, b] = await Promise.all([client.call('status', {}), client.call('vault_list', {})]);
    expect(a).toEqual({ echo: 'status' });
    expect(b).toEqual({ echo: 'vault_list' });
    expect(seen.map((s) => s.id)).toEqual([1, 2]);
    client.close();
  });

  it('throws IpcError(code, message) for an error response', async () => {
    handler = (request, socket) =>
      socket.write(
        encodeFrame({
          v: 1,
          id: request.id,
          ok: false,
          error: { code: 'locked', message: 'vault is locked' },
        }),
      );
    const client = await DaemonClient.connect(dir, { timeoutMs: 2000 });
    const failure = client.call('list', {});
    await expect(failure).rejects.toBeInstanceOf(IpcError);
    await expect(failure).rejects.toMatchObject({ code: 'locked', message: 'vault is locked' });
    client.close();
  });

  it('IPC-8: a call without a response fails with timeout after the deadline', async () => {
    handler = () => undefined;
    const client = await DaemonClient.connect(dir, { timeoutMs: 150 });
    await expect(client.call('status', {})).rejects.toMatchObject({ code: 'timeout' });
    client.close();
  });

  it('a connection-level error frame (id 0) fails pending calls, and later calls', async () => {
    handler = (_request, socket) =>
      socket.end(
        encodeFrame({ v: 1, id: 0, ok: false, error: { code: 'too_many_clients', message: 'busy' } }),
      );
    const client = await DaemonClient.connect(dir, { timeoutMs: 2000 });
    await expect(client.call('status', {})).rejects.toMatchObject({ code: 'too_many_clients' });
    await expect(client.call('status', {})).rejects.toMatchObject({ code: 'too_many_clients' });
    client.close();
  });

  it('pending calls fail with DaemonUnavailableError when the daemon hangs up', async () => {
    handler = (_request, socket) => socket.destroy();
    const client = await DaemonClient.connect(dir, { timeoutMs: 2000 });
    await expect(client.call('status', {})).rejects.toBeInstanceOf(DaemonUnavailableError);
  });
});
