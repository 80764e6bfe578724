// The real entry (main.ts + createVaultService) in child processes, run through tsx.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonClient } from '@arslan/daemon-client';

const MAIN = join(__dirname, 'main.ts');
const ROOT = join(__dirname, '..', '..', '..');

function startDaemon(dataDir: string): {
  child: ChildProcess;
  line: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--data', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const line = new Promise<string>((resolve) =>
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out);
    }),
  );
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, line, exit };
}

describe('daemon process (real vault service)', () => {
  let root: string;
  beforeAll(() => (root = mkdtempSync(join(tmpdir(), 'arslan-daemon-e2e-'))));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('prints ARSLAN_VAULT_SOCKET, serves status, refuses a second daemon (13), exits 0 on SIGTERM and cleans up', async () => {
    const dataDir = join(root, 'data');
    const first = startDaemon(dataDir);
    const out = await first.line;
    // The socket line comes first; ARSLAN_PORT= (the local API) may follow in the same chunk.
    const firstLine = out.split('\n')[0]!;
    expect(firstLine).toMatch(/^ARSLAN_VAULT_SOCKET=\/.+$/);
    const socketPath = firstLine.slice('ARSLAN_VAULT_SOCKET='.length);
    const client = await DaemonClient.connect(dataDir, { timeoutMs: 5000 });
    await expect(client.call('status', {})).resolves.toMatchObject({ unlocked: false, data_dir: dataDir });
    client.close();

    const second = startDaemon(dataDir);
    expect(await second.exit).toBe(13);

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(existsSync(socketPath)).toBe(false);
    expect(existsSync(join(dataDir, 'daemon.pid'))).toBe(false);
  }, 20_000);
});
