import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { acquireDirectoryLock } from './directory-lock';
import { fastTestKdf, pw, tempDataDir } from './test-only-support';
import { initStore } from './store-init';
import { openStore } from './vault-store';

const REPO_ROOT = path.resolve(__dirname, '../../../..');
const FIXTURE = path.join(__dirname, 'lock-probe.fixture.ts');
const dirs: string[] = [];
const children: ChildProcess[] = [];

async function storeDir(): Promise<string> {
  const dir = tempDataDir();
  dirs.push(dir);
  await initStore(dir, pw('pw'), fastTestKdf);
  return dir;
}

/** Runs the fixture in another OS process and resolves with its first output line. */
function runFixture(
  mode: 'probe' | 'hold',
  dir: string,
): { child: ChildProcess; firstLine: Promise<string> } {
  // node itself with the tsx loader (not the tsx wrapper, which would fork a grandchild)
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, mode, dir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const firstLine = new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('exit', (code) => reject(new Error(`fixture exited (${code}) before output: ${err}`)));
  });
  return { child, firstLine };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.on('exit', () => resolve());
  });
}

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('exclusive writer lock (VAULT-15)', () => {
  it('VAULT-15: a second open in the same process is store_locked until the first closes', async () => {
    const dir = await storeDir();
    const first = openStore(dir, { kdf: fastTestKdf });
    expect(() => openStore(dir, { kdf: fastTestKdf })).toThrow(
      expect.objectContaining({ code: 'store_locked' }),
    );
    expect(() => acquireDirectoryLock(dir)).toThrow(expect.objectContaining({ code: 'store_locked' }));
    await expect(initStore(dir, pw('pw'), fastTestKdf)).rejects.toMatchObject({ code: 'store_locked' });
    first.close();
    openStore(dir, { kdf: fastTestKdf }).close();
  });

  it('VAULT-15: a lock released by close() can be taken again; release is idempotent', () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const lock = acquireDirectoryLock(dir);
    expect(lock.held).toBe(true);
    lock.release();
    lock.release();
    expect(lock.held).toBe(false);
    acquireDirectoryLock(dir).release();
  });

  it('VAULT-15: another OS process cannot open the store while this one holds it, and can after close', async () => {
    const dir = await storeDir();
    const store = openStore(dir, { kdf: fastTestKdf });
    try {
      expect(await runFixture('probe', dir).firstLine).toBe('store_locked');
    } finally {
      store.close();
    }
    expect(await runFixture('probe', dir).firstLine).toBe('opened');
  }, 15_000);

  it('VAULT-15: a store held by another process is store_locked here; the OS drops the lock when that process dies', async () => {
    const dir = await storeDir();
    const { child, firstLine } = runFixture('hold', dir);
    expect(await firstLine).toBe('holding');
    expect(() => openStore(dir, { kdf: fastTestKdf })).toThrow(
      expect.objectContaining({ code: 'store_locked' }),
    );
    child.kill('SIGKILL'); // no cleanup code runs in the child
    await exited(child);
    openStore(dir, { kdf: fastTestKdf }).close();
  }, 15_000);
});
