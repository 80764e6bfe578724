import { centerUrlProblem, isLoopbackHost, parseArslanConfig } from './arslan-config';

const center = (lines: string[]) => ['[[centers]]', ...lines].join('\n');

describe('[[centers]] in the shared TOML config (CTR-1, CTR-2, CTR-7, CFG-1, CFG-6)', () => {
  it('CTR-2: accepts a ticket center (the default mode) and a saas center with a credential by reference', () => {
    const parsed = parseArslanConfig(
      [
        center(['name = "desk"', 'url = "https://center.example.com"']),
        center([
          'name = "hq"',
          'url = "http://127.0.0.1:8787"',
          'mode = "saas"',
          'vault = "team"',
          'credential_env = "HQ_CREDENTIAL"',
          'timeout_ms = 5000',
        ]),
      ].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      config: {
        centers: [
          { name: 'desk', url: 'https://center.example.com' },
          {
            name: 'hq',
            url: 'http://127.0.0.1:8787',
            mode: 'saas',
            vault: 'team',
            credential_env: 'HQ_CREDENTIAL',
            timeout_ms: 5000,
          },
        ],
      },
    });
  });

  it('CFG-1/CFG-6: an inline credential is an unknown key; both env and file, or a saas center without either, are refused', () => {
    const inline = parseArslanConfig(
      center(['name = "a"', 'url = "https://c.example"', 'credential = "am_secret-value"']),
    );
    expect(inline).toEqual({
      ok: false,
      problem: expect.stringContaining('unknown key centers.0.credential'),
    });
    expect(JSON.stringify(inline)).not.toContain('am_secret-value');
    expect(
      parseArslanConfig(
        center(['name = "a"', 'url = "https://c.example"', 'credential_env = "X"', 'credential_file = "c"']),
      ),
    ).toMatchObject({ ok: false, problem: expect.stringContaining('not both') });
    expect(
      parseArslanConfig(center(['name = "a"', 'url = "https://c.example"', 'mode = "saas"'])),
    ).toMatchObject({
      ok: false,
      problem: expect.stringContaining('credential_env'),
    });
    expect(
      parseArslanConfig(center(['name = "a"', 'url = "https://c.example"', 'credential_env = "not a name"'])),
    ).toMatchObject({ ok: false });
  });

  it('CTR-7: at most one saas center (and one ticket center), unique names', () => {
    const saas = (name: string) =>
      center([`name = "${name}"`, 'url = "https://c.example"', 'mode = "saas"', 'credential_env = "K"']);
    expect(parseArslanConfig([saas('a'), saas('b')].join('\n'))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('at most one saas center'),
    });
    const ticket = (name: string) => center([`name = "${name}"`, 'url = "https://c.example"']);
    expect(parseArslanConfig([ticket('a'), ticket('b')].join('\n'))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('at most one ticket center'),
    });
    expect(parseArslanConfig([ticket('a'), saas('a')].join('\n'))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('duplicate center name'),
    });
  });

  it('URL policy: https, or plain http to a loopback literal only; no credentials, query or fragment', () => {
    expect(centerUrlProblem('https://center.example.com/base')).toBeNull();
    expect(centerUrlProblem('http://localhost:8787')).toBeNull();
    expect(centerUrlProblem('http://127.0.0.1:8787')).toBeNull();
    expect(centerUrlProblem('http://[::1]:8787')).toBeNull();
    expect(centerUrlProblem('http://center.example.com')).toMatch(/loopback/);
    expect(centerUrlProblem('http://127.0.0.1.example.com')).toMatch(/loopback/);
    expect(centerUrlProblem('https://user:pw@center.example.com')).toMatch(/credentials/);
    expect(centerUrlProblem('https://center.example.com/?token=x')).toMatch(/query/);
    expect(centerUrlProblem('ftp://center.example.com')).toMatch(/https/);
    expect(centerUrlProblem('not a url')).toMatch(/absolute/);
    expect(isLoopbackHost('127.255.0.1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    const bad = parseArslanConfig(center(['name = "a"', 'url = "https://u:hunter2@c.example"']));
    expect(bad).toMatchObject({ ok: false, problem: expect.stringContaining('centers.0.url') });
    expect(JSON.stringify(bad)).not.toContain('hunter2');
  });
});
