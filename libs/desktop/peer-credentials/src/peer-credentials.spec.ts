import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PEER_CREDENTIALS_ADDON_ENV,
  addonCandidates,
  parentPidOf,
  parseProcStatParentPid,
  peerCredentials,
  peerCredentialsAvailable,
} from './index';

const CHILD = `const s = require('node:net').connect(process.argv[1]);
s.on('connect', () => process.stdout.write(String(process.pid) + '\\n'));
s.on('close', () => process.exit(0));`;

describe('peer credentials (IPC-6, IPC-12, IPC-18)', () => {
  let dir: string;
  let server: Server;
  let socketPath: string;
  const connections: Socket[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arslan-peer-'));
    socketPath = join(dir, 's.sock');
    server = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });

  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('the addon is built and loads (npm run build:native)', () => {
    expect(peerCredentialsAvailable()).toBe(true);
  });

  it('IPC-12: the server sees the real pid, uid and gid of a child process client', async () => {
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const child = spawn(process.execPath, ['-e', CHILD, socketPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const reported = new Promise<number>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    const socket = await accepted;
    const childPid = await reported;
    const creds = peerCredentials(socket);
    expect(childPid).toBe(child.pid);
    expect(creds).toEqual({ pid: child.pid, uid: process.getuid!(), gid: process.getgid!() });
    expect(creds!.pid).not.toBe(process.pid);
    expect(parentPidOf(creds!.pid)).toBe(process.pid);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    socket.destroy();
    await exited;
  });

  it('IPC-18: an in-process client is reported as this process', async () => {
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const { connect } = await import('node:net');
    const client = connect(socketPath);
    const socket = await accepted;
    expect(peerCredentials(socket)?.pid).toBe(process.pid);
    client.destroy();
  });

  it('fails closed: a socket without a handle gives undefined', async () => {
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const { connect } = await import('node:net');
    const client = connect(socketPath);
    const socket = await accepted;
    socket.destroy();
    expect(peerCredentials(socket)).toBeUndefined();
    client.destroy();
  });

  it('looks for the addon at the env override first, then next to the lib and from a dist bundle', () => {
    const candidates = addonCandidates({ [PEER_CREDENTIALS_ADDON_ENV]: '/x/peer.node' }, '/repo/dist/daemon');
    expect(candidates[0]).toBe('/x/peer.node');
    expect(candidates).toContain('/repo/libs/desktop/peer-credentials/build/Release/peer_credentials.node');
  });
});

describe('parentPidOf (IPC-12)', () => {
  it('parses /proc stat lines whose comm holds spaces and parentheses', () => {
    expect(parseProcStatParentPid('1234 (node) S 42 1234 1234 0 -1')).toBe(42);
    expect(parseProcStatParentPid('77 (a) b (c) R 9 77 77 0')).toBe(9);
    expect(parseProcStatParentPid('77 (evil) 1 (x) S 5 1 1')).toBe(5);
    expect(parseProcStatParentPid('garbage')).toBeUndefined();
    expect(parseProcStatParentPid('1 (x) S')).toBeUndefined();
  });

  it('gives the real parent of this process and undefined for a missing one', () => {
    expect(parentPidOf(process.pid)).toBe(process.ppid);
    expect(parentPidOf(0)).toBeUndefined();
    expect(parentPidOf(2 ** 22 + 12345)).toBeUndefined();
  });
});
