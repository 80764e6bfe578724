// Helpers for the IPC specs: temp dirs, raw frame clients and child-process clients.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameDecoder, encodeFrame, parseFrameJson } from '@arslan/daemon-client';

export function tempSocketPath(): { dir: string; socketPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'arslan-ipc-'));
  return { dir, socketPath: join(dir, 'run', 'vault.sock') };
}

export interface RawClient {
  socket: Socket;
  /** Next decoded frame from the server. */
  next(): Promise<Record<string, unknown>>;
  request(id: number, op: string, args?: unknown): Promise<Record<string, unknown>>;
  closed: Promise<void>;
}

export async function rawClient(socketPath: string): Promise<RawClient> {
  const socket = connect(socketPath);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const decoder = new FrameDecoder();
  const frames: Record<string, unknown>[] = [];
  const waiting: ((frame: Record<string, unknown>) => void)[] = [];
  socket.on('data', (chunk) => {
    for (const body of decoder.push(chunk)) {
      const frame = parseFrameJson(body) as Record<string, unknown>;
      const waiter = waiting.shift();
      if (waiter) waiter(frame);
      else frames.push(frame);
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const next = () => {
    const ready = frames.shift();
    return ready
      ? Promise.resolve(ready)
      : new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve));
  };
  return {
    socket,
    next,
    closed,
    request(id, op, args = {}) {
      socket.write(encodeFrame({ v: 1, id, op, args }));
      return next();
    },
  };
}

// A client in another process (plain JS, so `node -e` runs it): sends one request, prints the response.
const CHILD_CLIENT = `
const net = require('node:net');
const [path, json] = process.argv.slice(1);
const s = net.connect(path);
let buf = Buffer.alloc(0);
s.on('connect', () => {
  const body = Buffer.from(json);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  s.write(Buffer.concat([head, body]));
});
s.on('data', (c) => {
  buf = Buffer.concat([buf, c]);
  if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    process.stdout.write(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString());
    s.destroy();
  }
});`;

// Runs CHILD_CLIENT one level deeper: the client's parent is then this intermediate process.
const GRANDCHILD = `
const { spawn } = require('node:child_process');
const c = spawn(process.execPath, ['-e', process.argv[1], ...process.argv.slice(2)], { stdio: ['ignore', 'inherit', 'inherit'] });
c.on('exit', (code) => process.exit(code ?? 1));`;

/** Sends one request from a child process (its parent is this test process), or a grandchild. */
export function requestFromChild(
  socketPath: string,
  request: unknown,
  depth: 'child' | 'grandchild' = 'child',
): Promise<Record<string, unknown>> {
  const args =
    depth === 'child'
      ? ['-e', CHILD_CLIENT, socketPath, JSON.stringify(request)]
      : ['-e', GRANDCHILD, CHILD_CLIENT, socketPath, JSON.stringify(request)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as Record<string, unknown>);
      } catch {
        reject(new Error(`child printed no response: ${out}`));
      }
    }),
  );
}
