// The socket's directory and file (IPC-6): directory 0700 owned by us, socket 0600, and a
// stale socket file is removed only when nothing answers on it.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { IpcError } from '@arslan/protocol';

/** Creates `dir` (and parents) and makes sure it is a real directory of ours with mode 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`socket directory ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new Error(`socket directory ${dir} belongs to another user`);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

function answers(socketPath: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(true), timeoutMs); // a listener that accepts slowly is still alive
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
  });
}

/**
 * Removes a socket file left by a dead daemon. Throws `store_locked` when a daemon still
 * answers on it, and refuses to remove anything that is not a socket.
 */
export async function removeStaleSocket(socketPath: string, probeTimeoutMs = 1000): Promise<void> {
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new Error(`${socketPath} exists and is not a socket; not removing it`);
  if (await answers(socketPath, probeTimeoutMs))
    throw new IpcError('store_locked', `another daemon is listening on ${socketPath}`);
  unlinkSync(socketPath);
}
