import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

describe('Center config (file + env, strict)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'center-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to ticket mode on SQLite in the data dir (CTR-2)', () => {
    const c = loadConfig({ dataDir: dir, env: {} });
    expect(c).toMatchObject({
      mode: 'ticket',
      port: 8787,
      host: '127.0.0.1',
      dataDir: dir,
      bodyLimitBytes: 65536,
    });
    expect(c.databaseUrl).toBeUndefined();
  });

  it('env overrides the file and flags override env', () => {
    writeFileSync(join(dir, 'center.json'), JSON.stringify({ port: 1000, mode: 'saas' }));
    const c = loadConfig({
      dataDir: dir,
      env: {
        ARSLAN_CENTER_PORT: '2000',
        DATABASE_URL: 'postgresql://u@h/db',
        ARSLAN_CENTER_STORE_PASSWORD: 'long enough pw',
      },
      overrides: { port: 3000 },
    });
    expect(c).toMatchObject({ port: 3000, mode: 'saas', databaseUrl: 'postgresql://u@h/db' });
  });

  it('rejects unknown keys, wrong types and bad env with errors that name the field', () => {
    writeFileSync(join(dir, 'center.json'), JSON.stringify({ prot: 1, port: 'x' }));
    expect(() => loadConfig({ dataDir: dir, env: {} })).toThrow(ConfigError);
    try {
      loadConfig({ dataDir: dir, env: {} });
    } catch (e) {
      expect((e as Error).message).toMatch(/port/);
      expect((e as Error).message).toMatch(/prot/);
    }
    rmSync(join(dir, 'center.json'));
    expect(() => loadConfig({ dataDir: dir, env: { ARSLAN_CENTER_PORT: 'eighty' } })).toThrow(
      /ARSLAN_CENTER_PORT/,
    );
    expect(() => loadConfig({ dataDir: dir, env: { DATABASE_URL: 'mysql://x' } })).toThrow(/databaseUrl/);
    expect(() => loadConfig({ dataDir: dir, env: { ARSLAN_CENTER_ADMIN_TOKEN: 'short' } })).toThrow(
      /adminToken/,
    );
    writeFileSync(join(dir, 'center.json'), '{oops');
    expect(() => loadConfig({ dataDir: dir, env: {} })).toThrow(/not a JSON object/);
  });
});
