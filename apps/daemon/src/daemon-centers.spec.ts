import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDaemonConfig } from './daemon-config';

const CREDENTIAL = 'am_' + 'x'.repeat(43);

describe('daemon [[centers]] resolution (CTR-1, CFG-2, CFG-6)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'arslan-centers-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (lines: string[]) => {
    const file = join(dir, 'arslan.toml');
    writeFileSync(file, ['[[centers]]', 'name = "hq"', 'url = "https://c.example"', ...lines].join('\n'));
    return file;
  };

  it('CFG-6: the credential comes from the named variable; mode and vault default to ticket / personal', () => {
    const file = config(['credential_env = "HQ_CRED"']);
    expect(loadDaemonConfig(file, (n) => (n === 'HQ_CRED' ? CREDENTIAL : undefined)).centers).toEqual([
      {
        name: 'hq',
        url: 'https://c.example',
        mode: 'ticket',
        vault: 'personal',
        credential: CREDENTIAL,
        timeoutMs: 10_000,
      },
    ]);
    expect(() => loadDaemonConfig(file, () => undefined)).toThrow(/HQ_CRED is not set/);
  });

  it('CFG-2: a credential file must be mode 0600 (relative to the config file); values never appear in errors', () => {
    const file = config(['credential_file = "hq.credential"']);
    const cred = join(dir, 'hq.credential');
    writeFileSync(cred, `${CREDENTIAL}\n`, { mode: 0o644 });
    chmodSync(cred, 0o644);
    expect(() => loadDaemonConfig(file)).toThrow(/mode 0600/);
    chmodSync(cred, 0o600);
    expect(loadDaemonConfig(file).centers[0]!.credential).toBe(CREDENTIAL);
    writeFileSync(cred, 'short secret');
    let message = '';
    try {
      loadDaemonConfig(file);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/not a well-formed token/);
    expect(message).not.toContain('short secret');
    rmSync(cred);
    expect(() => loadDaemonConfig(file)).toThrow(/cannot read \(ENOENT\)/);
  });
});
