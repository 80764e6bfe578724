// The built launcher and the real process/daemon-client adapters. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { IPC_EXIT_CODES } from '@arslan/protocol';
import { type CliDeps, type CliIo } from './cli-context';
import { createDaemonClientConnector } from './daemon-connector.client';
import { processAlive, spawnDetachedDaemon } from './daemon-process';
import { runCli } from './run-cli';

const repo = join(__dirname, '..', '..', '..');
const launcher = join(repo, 'apps', 'cli', 'bin', 'memories.cjs');
const bundle = join(repo, 'dist', 'cli', 'memories.cjs');
const fakeDaemonScript = join(__dirname, 'testing', 'fake-daemon.cjs');

function cli(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'memories-cfg-')) };
  const r = spawnSync(process.execPath, [launcher, ...args], {
    input,
    encoding: 'utf8',
    env,
    timeout: 10_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the built `memories` launcher', () => {
  beforeAll(() => {
    if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` before this spec`);
  });

  it('runs --help from the bundle', () => {
    const r = cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: memories/);
    expect(r.stdout).toMatch(/vault create NAME \[--device-only\]/);
  });

  it('exits 2 with one JSON document when no daemon listens', () => {
    const data = mkdtempSync(join(tmpdir(), 'memories-nodaemon-'));
    const r = cli(['--json', '--data', data, 'status']);
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      error: { code: 'daemon_unavailable', message: expect.any(String) },
    });
    expect(r.stderr).toMatch(/memories daemon start/);
  });

  it('IPC-17: refuses --password with exit 1', () => {
    const r = cli(['unlock', '--password', 'hunter2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/passwords are never taken from the command line/);
    expect(r.stderr).not.toMatch(/hunter2/);
  });
});

describe('daemon lifecycle against a stand-in daemon (real spawn, socket and client)', () => {
  const data = mkdtempSync(join(tmpdir(), 'memories-life-'));
  const run = async (
    argv: string[],
    stdinText = '',
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    let stdout = '';
    let stderr = '';
    const stdin = new PassThrough();
    stdin.end(stdinText);
    const io: CliIo = {
      stdin,
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      isTTY: false,
      env: {},
      cwd: data,
    };
    const deps: CliDeps = {
      connector: createDaemonClientConnector(),
      spawnDaemon: (dir) => spawnDetachedDaemon(fakeDaemonScript, dir),
      processAlive,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: () => Date.now(),
      platform: 'linux',
      homedir: data,
    };
    const code = await runCli(['--data', data, ...argv], io, deps);
    return { code, stdout, stderr };
  };
  let pid = 0;

  afterAll(() => {
    if (pid > 0 && processAlive(pid)) process.kill(pid, 'SIGTERM');
  });

  it('daemon start spawns it detached, logs to daemon.log (0600) and prints the pid', async () => {
    const started = await run(['daemon', 'start', '--json']);
    expect(started.code).toBe(0);
    const doc = JSON.parse(started.stdout) as { pid: number; socket: string; already_running: boolean };
    pid = doc.pid;
    expect(doc.already_running).toBe(false);
    expect(doc.socket).toBe(join(data, 'run', 'vault.sock'));
    expect(readFileSync(join(data, 'daemon.pid'), 'utf8')).toBe(String(pid));
    expect(statSync(join(data, 'daemon.log')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(data, 'daemon.log'), 'utf8')).toMatch(/ARSLAN_VAULT_SOCKET=/);
    expect((await run(['daemon', 'start'])).stdout).toBe(`the daemon is already running (pid ${pid})\n`);
  });

  it('the built bundle talks to it; IPC errors map to exit codes', async () => {
    const env = { ...process.env, XDG_CONFIG_HOME: data };
    const status = spawnSync(process.execPath, [launcher, '--data', data, '--json', 'status'], {
      encoding: 'utf8',
      env,
    });
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ pid, initialized: false });
    const unlock = spawnSync(process.execPath, [launcher, '--data', data, 'unlock', '--password-stdin'], {
      input: 'wrong\n',
      encoding: 'utf8',
      env,
    });
    expect(unlock.status).toBe(IPC_EXIT_CODES.bad_password);
    expect(unlock.stderr).toBe('memories: bad_password: wrong password\n');
  });

  it('daemon stop shuts it down and waits for the pid to exit', async () => {
    const stopped = await run(['daemon', 'stop']);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`daemon stopped (pid ${pid})\n`);
    expect(processAlive(pid)).toBe(false);
    const status = await run(['daemon', 'status']);
    expect(status.code).toBe(2);
  });
});
