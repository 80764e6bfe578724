import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './cli-config';
import { UsageError } from './cli-errors';
import { fakeDaemon, run } from './testing/fake-cli';
import { defaultConfigFile, defaultDataDir } from '@arslan/daemon-client';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'memories-config-'));
}

describe('CFG-2: config errors are usage errors before any daemon contact', () => {
  it.each([
    ['an explicitly named missing file', null, /cannot read \(ENOENT\)/],
    [
      'an unknown top-level key',
      '[storage]\ndata_dir = "x"\n[daemon]\nunlock_idle_minutes = 5\n',
      /unknown key daemon/,
    ],
    [
      'an unknown nested key',
      '[storage]\ndata_dir = "x"\nengine = "sqlite"\n',
      /unknown key storage\.engine/,
    ],
    ['a value of the wrong type', '[storage]\ndata_dir = 42\n', /storage\.data_dir: /],
    ['an empty path', '[storage]\ndata_dir = ""\n', /storage\.data_dir: must not be empty/],
    ['invalid TOML', '[storage\n', /invalid TOML/],
  ])('rejects %s', async (_name, text, message) => {
    const dir = tempDir();
    const path = join(dir, 'memories.toml');
    if (text !== null) writeFileSync(path, text);
    const daemon = fakeDaemon();
    const result = await run(daemon, ['--config', path, 'status']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(daemon.connects).toBe(0);
  });

  it('also checks the default config file before contacting the daemon', async () => {
    const home = tempDir();
    mkdirSync(join(home, '.config', 'arslan'), { recursive: true });
    writeFileSync(join(home, '.config', 'arslan', 'memories.toml'), 'bogus = 1\n');
    const daemon = fakeDaemon();
    const result = await run(daemon, ['status'], { deps: { homedir: home } });
    expect(result.code).toBe(1);
    expect(daemon.connects).toBe(0);
  });
});

describe('CFG-3: storage.data_dir is resolved against the config file', () => {
  it('resolves a relative data_dir against the config directory, not the cwd', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'memories.toml'), '[storage]\ndata_dir = "store/one"\n');
    expect(loadConfig('memories.toml', '/unused', dir).dataDir).toBe(join(dir, 'store', 'one'));
    expect(loadConfig(join(dir, 'memories.toml'), '/unused', '/elsewhere').dataDir).toBe(
      join(dir, 'store', 'one'),
    );
  });

  it('keeps an absolute data_dir; an empty config selects nothing', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.toml'), '[storage]\ndata_dir = "/abs/store"\n');
    writeFileSync(join(dir, 'b.toml'), '');
    expect(loadConfig(join(dir, 'a.toml'), '/unused', '/').dataDir).toBe('/abs/store');
    expect(loadConfig(join(dir, 'b.toml'), '/unused', '/').dataDir).toBeNull();
  });

  it('a missing default file is fine; a missing explicit file is not', () => {
    expect(loadConfig(undefined, '/nonexistent/memories.toml', '/')).toEqual({ path: null, dataDir: null });
    expect(() => loadConfig('/nonexistent/memories.toml', '/unused', '/')).toThrow(UsageError);
  });

  it('the daemon is contacted with the config data dir; --data overrides it (CFG-4)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'memories.toml'), '[storage]\ndata_dir = "store"\n');
    const seen: string[] = [];
    const daemon = fakeDaemon();
    const connect = daemon.connector.connect;
    daemon.connector.connect = (dataDir) => {
      seen.push(dataDir);
      return connect(dataDir);
    };
    await run(daemon, ['--config', join(dir, 'memories.toml'), 'status']);
    await run(daemon, ['--config', join(dir, 'memories.toml'), '--data', 'other', 'status'], { cwd: '/cwd' });
    expect(seen).toEqual([join(dir, 'store'), '/cwd/other']);
  });
});

describe('per-user directories', () => {
  it('uses XDG on Linux and Application Support on macOS', () => {
    const linux = { platform: 'linux' as const, homedir: '/home/u', env: {} };
    expect(defaultDataDir(linux)).toBe('/home/u/.local/share/arslan/memories');
    expect(defaultDataDir({ ...linux, env: { XDG_DATA_HOME: '/x/data' } })).toBe('/x/data/arslan/memories');
    expect(defaultDataDir({ ...linux, env: { XDG_DATA_HOME: 'relative' } })).toBe(
      '/home/u/.local/share/arslan/memories',
    );
    expect(defaultConfigFile(linux)).toBe('/home/u/.config/arslan/memories.toml');
    expect(defaultConfigFile({ ...linux, env: { XDG_CONFIG_HOME: '/x/cfg' } })).toBe(
      '/x/cfg/arslan/memories.toml',
    );
    const mac = { platform: 'darwin' as const, homedir: '/Users/u', env: {} };
    expect(defaultDataDir(mac)).toBe('/Users/u/Library/Application Support/Arslan/memories');
  });
});
