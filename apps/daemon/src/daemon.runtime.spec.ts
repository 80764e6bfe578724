import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonClient, daemonSocketPath } from '@arslan/daemon-client';
import { type VaultService, VaultServiceError } from '@arslan/desktop-vault';
import { parseDaemonArgs } from './daemon-args';
import { PID_FILE_NAME, SOCKET_LINE_PREFIX, runDaemon } from './daemon.runtime';

function stubService(closed: { count: number }): VaultService {
  return {
    state: () => ({ initialized: false, unlocked: false, deviceFingerprint: null, vaults: [] }),
    lock: () => undefined,
    close: () => void (closed.count += 1),
  } as unknown as VaultService;
}

describe('daemon runtime', () => {
  let root: string;
  const writeToml = (name: string, text: string): string => {
    const path = join(root, name);
    writeFileSync(path, text);
    return path;
  };
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'arslan-daemon-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('parses --data DIR (resolved) and rejects anything else', () => {
    const flags = { stdinLifeline: false, desktop: false };
    expect(parseDaemonArgs(['--data', 'x'], '/home/u')).toEqual({ dataDir: '/home/u/x', ...flags });
    expect(parseDaemonArgs(['--data=/abs'])).toEqual({ dataDir: '/abs', ...flags });
    // ARCH-11/12: desktop mode implies the stdin lifeline.
    expect(parseDaemonArgs(['--data=/abs', '--stdin-lifeline'])).toEqual({
      dataDir: '/abs',
      ...flags,
      stdinLifeline: true,
    });
    expect(parseDaemonArgs(['--desktop', '--data=/abs'])).toEqual({
      dataDir: '/abs',
      stdinLifeline: true,
      desktop: true,
    });
    expect(() => parseDaemonArgs([])).toThrow(/usage/);
    expect(() => parseDaemonArgs(['--data', 'a', '--password', 'p'])).toThrow(/unexpected argument/);
  });

  it('CFG-2: --config is parsed; a missing file, unknown key or bad value exits 1 before the store is opened', async () => {
    expect(parseDaemonArgs(['--data', 'x', '--config', 'c.toml'], '/home/u')).toEqual({
      dataDir: '/home/u/x',
      configPath: '/home/u/c.toml',
      stdinLifeline: false,
      desktop: false,
    });
    const bad = [
      join(root, 'missing.toml'),
      writeToml('unknown.toml', '[rag]\nembedder = "none"\nfoo = 1\n'),
      writeToml('value.toml', '[rag]\nembedder = "gpt"\n'),
      writeToml(
        'key.toml',
        '[rag.generation]\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\napi_key_env = "sk-123"\n',
      ),
    ];
    for (const config of bad) {
      let created = 0;
      const errors: string[] = [];
      const code = await runDaemon(['--data', join(root, 'data'), '--config', config], {
        createService: () => {
          created++;
          return stubService({ count: 0 });
        },
        stdout: () => undefined,
        stderr: (line) => errors.push(line),
        signals: new EventEmitter(),
      });
      expect(code).toBe(1);
      expect(created).toBe(0);
      expect(errors.join('\n')).toContain(config);
      expect(existsSync(join(root, 'data'))).toBe(false);
    }
  });

  it('passes the resolved [rag] config to createRag (CFG-3: relative paths against the file)', async () => {
    const config = writeToml('ok.toml', '[rag]\nembedder = "onnx"\nlocal_model_dir = "models/x"\n');
    const lines: string[] = [];
    let seen: unknown;
    const running = runDaemon(['--data', join(root, 'data'), '--config', config], {
      createService: () => stubService({ count: 0 }),
      createRag: (_service, rag) => {
        seen = rag;
        return { clear: () => undefined, close: async () => undefined } as never;
      },
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals: new EventEmitter(),
    });
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual({ embedder: 'onnx', localModelDir: join(root, 'models/x') });
    const client = await DaemonClient.connect(join(root, 'data'), { timeoutMs: 2000 });
    await client.call('shutdown', {});
    client.close();
    expect(await running).toBe(0);
  });

  it('creates DIR 0700, writes the pid file 0600, prints the socket line once; shutdown cleans up and exits 0', async () => {
    const dataDir = join(root, 'data');
    const lines: string[] = [];
    const closed = { count: 0 };
    const running = runDaemon(['--data', dataDir], {
      createService: () => stubService(closed),
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals: new EventEmitter(),
    });
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const socketPath = daemonSocketPath(dataDir);
    expect(lines).toEqual([`${SOCKET_LINE_PREFIX}${socketPath}`]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const pidFile = join(dataDir, PID_FILE_NAME);
    expect(statSync(pidFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(pidFile, 'utf8')).toBe(`${process.pid}\n`);

    const client = await DaemonClient.connect(dataDir, { timeoutMs: 2000 });
    await expect(client.call('status', {})).resolves.toMatchObject({ initialized: false, data_dir: dataDir });
    await expect(client.call('shutdown', {})).resolves.toEqual({});
    client.close();
    expect(await running).toBe(0);
    expect(closed.count).toBe(1);
    expect(existsSync(pidFile)).toBe(false);
    expect(existsSync(socketPath)).toBe(false);
  });

  it('SIGTERM stops it with exit 0', async () => {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const running = runDaemon(['--data', join(root, 'd')], {
      createService: () => stubService({ count: 0 }),
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals,
    });
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    signals.emit('SIGTERM');
    expect(await running).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits 13 with a stderr message when the store is locked by another process', async () => {
    const errors: string[] = [];
    const code = await runDaemon(['--data', join(root, 'd')], {
      createService: () => {
        throw new VaultServiceError('store_locked', 'locked');
      },
      stdout: () => undefined,
      stderr: (line) => errors.push(line),
    });
    expect(code).toBe(13);
    expect(errors).toEqual([`the vault in ${join(root, 'd')} is in use by another process`]);
  });

  it('exits 1 on bad arguments', async () => {
    const errors: string[] = [];
    const code = await runDaemon([], {
      createService: () => stubService({ count: 0 }),
      stdout: () => undefined,
      stderr: (l) => errors.push(l),
    });
    expect(code).toBe(1);
    expect(errors[0]).toMatch(/usage/);
  });
});
