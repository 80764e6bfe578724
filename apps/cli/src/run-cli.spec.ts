import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPC_ERROR_CODES, IPC_EXIT_CODES, IpcError } from '@arslan/protocol';
import { ASSET, REV_A, REV_B, STATUS, fakeDaemon, fakeTty, run } from './testing/fake-cli';

function oneJsonDocument(stdout: string): unknown {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

const WRITE_RESULT = { vault: 'default', asset_id: ASSET, revision_id: REV_A };

describe('runCli: commands call the daemon with the right op and args', () => {
  const cases: [string[], string, Record<string, unknown>][] = [
    [['status'], 'status', {}],
    [['lock'], 'lock', {}],
    [['audit', 'verify'], 'audit_verify', {}],
    [['vault', 'create', 'work', '--device-only'], 'vault_create', { name: 'work', device_only: true }],
    [['vault', 'create', 'work'], 'vault_create', { name: 'work' }],
    [['vault', 'list'], 'vault_list', {}],
    [['write', '--title', 'T', '--body', 'B'], 'write', { title: 'T', body: 'B' }],
    [
      ['write', '--vault', 'work', '--asset', ASSET, '--title', 'T', '--body', 'B'],
      'write',
      { vault: 'work', asset_id: ASSET, title: 'T', body: 'B' },
    ],
    [['read', ASSET], 'read', { asset_id: ASSET }],
    [['read', ASSET, '--revision', REV_A], 'read', { asset_id: ASSET, revision_id: REV_A }],
    [['list'], 'list', {}],
    [['list', '--all', '--vault', 'work'], 'list', { vault: 'work', include_deleted: true }],
    [['history', ASSET], 'history', { asset_id: ASSET }],
    [['diff', ASSET, REV_A, REV_B], 'diff', { asset_id: ASSET, from: REV_A, to: REV_B }],
    [['delete', ASSET], 'delete', { asset_id: ASSET }],
    [
      ['resolve', ASSET, '--title', 'T', '--body', 'B'],
      'resolve',
      { asset_id: ASSET, title: 'T', body: 'B' },
    ],
  ];
  it.each(cases)('%j → %s', async (argv, op, args) => {
    const daemon = fakeDaemon();
    const result = await run(daemon, argv);
    expect(result.code).toBe(0);
    expect(daemon.calls).toEqual([{ op, args }]);
  });

  it('write reads the body from stdin when it is not a TTY', async () => {
    const daemon = fakeDaemon({ write: () => WRITE_RESULT });
    const result = await run(daemon, ['write', '--title', 'T'], { stdin: 'line 1\nline 2\n' });
    expect(result.code).toBe(0);
    expect(daemon.calls[0]?.args).toEqual({ title: 'T', body: 'line 1\nline 2\n' });
    expect(result.stdout).toBe(`wrote ${ASSET} revision ${REV_A}\n`);
  });

  it('write reads --body-file relative to the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memories-cli-'));
    writeFileSync(join(dir, 'note.md'), 'from file');
    const daemon = fakeDaemon();
    expect((await run(daemon, ['write', '--title', 'T', '--body-file', 'note.md'], { cwd: dir })).code).toBe(
      0,
    );
    expect(daemon.calls[0]?.args).toEqual({ title: 'T', body: 'from file' });
  });

  it.each([
    [['write', '--body', 'B'], /needs --title/],
    [['write', '--title', 'T', '--body', 'B', '--body-file', 'f'], /not both/],
    [['write', '--title', 'T', '--body-file', '/nonexistent/f'], /cannot read \(ENOENT\)/],
    [['read', 'not-an-id'], /asset id: asset ids are 32 lowercase hex/],
    [['read', ASSET, '--revision', 'short'], /--revision: revision ids are 64 lowercase hex/],
    [['vault', 'create', 'Bad Name'], /NAME: vault names/],
    [['write', '--title', 'x'.repeat(1025), '--body', 'B'], /--title/],
  ])('%j is a usage error before any daemon contact', async (argv, message) => {
    const daemon = fakeDaemon();
    const result = await run(daemon, argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^memories: usage: /);
    expect(result.stderr).toMatch(message);
    expect(daemon.connects).toBe(0);
  });

  it('write without a body on a TTY is a usage error', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['write', '--title', 'T'], { isTTY: true, stdin: fakeTty() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pipe the body on stdin/);
  });
});

describe('runCli: output', () => {
  it('--json prints exactly one JSON document, the result object', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['status', '--json']);
    expect(result.code).toBe(0);
    expect(oneJsonDocument(result.stdout)).toEqual(STATUS);
    expect(result.stderr).toBe('');
  });

  it('--json on errors prints one {"ok":false,"error":{code,message}} document and the message on stderr', async () => {
    const daemon = fakeDaemon({
      read: () => {
        throw new IpcError('not_found', 'no such asset');
      },
    });
    const result = await run(daemon, ['--json', 'read', ASSET]);
    expect(result.code).toBe(IPC_EXIT_CODES.not_found);
    expect(oneJsonDocument(result.stdout)).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'no such asset' },
    });
    expect(result.stderr).toBe('memories: not_found: no such asset\n');
  });

  it('--json on usage errors prints one JSON document too', async () => {
    const result = await run(fakeDaemon(), ['--json', 'bogus']);
    expect(result.code).toBe(1);
    expect(oneJsonDocument(result.stdout)).toEqual({
      ok: false,
      error: { code: 'usage', message: expect.stringMatching(/unknown command/) },
    });
  });

  it('--json --help prints the usage as one JSON document', async () => {
    const result = await run(fakeDaemon(), ['--help', '--json']);
    expect(result.code).toBe(0);
    expect(oneJsonDocument(result.stdout)).toEqual({ usage: expect.stringMatching(/^usage: memories/) });
  });

  it('--json on a read with a conflicted asset keeps stderr quiet and stdout one document', async () => {
    const daemon = fakeDaemon({
      read: () => ({
        ...WRITE_RESULT,
        title: 't',
        body: 'b',
        state: 'conflicted',
        heads: [REV_A, REV_B],
        created_at: 0,
      }),
    });
    const result = await run(daemon, ['read', ASSET, '--json']);
    expect(oneJsonDocument(result.stdout)).toMatchObject({ state: 'conflicted' });
  });

  it('read prints the body; a conflict note goes to stderr', async () => {
    const daemon = fakeDaemon({
      read: () => ({
        ...WRITE_RESULT,
        title: 't',
        body: 'hello\n',
        state: 'conflicted',
        heads: [REV_A, REV_B],
        created_at: 0,
      }),
    });
    const result = await run(daemon, ['read', ASSET]);
    expect(result.stdout).toBe('hello\n');
    expect(result.stderr).toMatch(/conflicted \(2 heads\)/);
  });

  it('list and history print tables; diff prints the diff text', async () => {
    const daemon = fakeDaemon({
      list: () => ({
        vault: 'default',
        assets: [
          { asset_id: ASSET, title: 'A title', kind: 'memory', state: 'live', heads: [REV_A], updated_at: 0 },
        ],
      }),
      history: () => ({
        vault: 'default',
        asset_id: ASSET,
        revisions: [
          {
            revision_id: REV_A,
            parents: [],
            tombstone: false,
            created_at: 0,
            device_fingerprint: 'f'.repeat(64),
          },
        ],
      }),
      diff: () => ({
        vault: 'default',
        asset_id: ASSET,
        from: REV_A,
        to: REV_B,
        diff: '--- a\n+++ b\n-x\n+y\n',
      }),
    });
    const list = await run(daemon, ['list']);
    expect(list.stdout).toBe(
      `ASSET ID                          KIND    STATE  UPDATED                   TITLE\n${ASSET}  memory  live   1970-01-01T00:00:00.000Z  A title\n`,
    );
    expect((await run(daemon, ['history', ASSET])).stdout).toMatch(
      /^REVISION +CREATED +PARENTS +TOMBSTONE +DEVICE\naaaa/,
    );
    expect((await run(daemon, ['diff', ASSET, REV_A, REV_B])).stdout).toBe('--- a\n+++ b\n-x\n+y\n');
  });

  it('audit verify reports a broken chain with the corrupt exit code', async () => {
    const daemon = fakeDaemon({
      audit_verify: () => ({ ok: false, entries: 3, head: null, problem: 'gap at 2' }),
    });
    const result = await run(daemon, ['audit', 'verify']);
    expect(result.code).toBe(IPC_EXIT_CODES.corrupt);
    expect(result.stdout).toMatch(/BROKEN after 3 entries: gap at 2/);
  });
});

describe('runCli: exit codes', () => {
  it.each(IPC_ERROR_CODES.map((code) => [code, IPC_EXIT_CODES[code]]))(
    'IPC error %s exits with %i',
    async (code, exit) => {
      const daemon = fakeDaemon({
        lock: () => {
          throw new IpcError(code, `failed: ${code}`);
        },
      });
      const result = await run(daemon, ['lock']);
      expect(result.code).toBe(exit);
      expect(result.stderr).toBe(`memories: ${code}: failed: ${code}\n`);
    },
  );

  it('daemon not running exits 2 with a `memories daemon start` hint', async () => {
    const daemon = fakeDaemon();
    daemon.running = false;
    const result = await run(daemon, ['list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/memories daemon start/);
  });

  it('usage errors exit 1; --help exits 0', async () => {
    expect((await run(fakeDaemon(), ['nope'])).code).toBe(1);
    expect((await run(fakeDaemon(), ['--help'])).code).toBe(0);
    expect((await run(fakeDaemon(), [])).code).toBe(1);
  });

  it('import reports how many items went in before a failing batch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memories-cli-'));
    const lines = Array.from({ length: 501 }, (_, i) => JSON.stringify({ title: `t${i}`, body: 'b' }));
    writeFileSync(join(dir, 'in.jsonl'), lines.join('\n'));
    let batch = 0;
    const daemon = fakeDaemon({
      import: (args) => {
        if (++batch === 2) throw new IpcError('locked', 'store is locked');
        const items = args['items'] as { title: string }[];
        return {
          vault: 'default',
          imported: items.map((it) => ({ asset_id: ASSET, revision_id: REV_A, title: it.title })),
        };
      },
    });
    const result = await run(daemon, ['import', 'in.jsonl'], { cwd: dir });
    expect(result.code).toBe(IPC_EXIT_CODES.locked);
    expect(result.stderr).toMatch(/500 of 501 items were imported before this failure/);
  });

  it('import sends ≤ 500 items per request and prints one JSON document for all batches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memories-cli-'));
    const lines = Array.from({ length: 1201 }, (_, i) => JSON.stringify({ title: `t${i}`, body: 'b' }));
    writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
    const daemon = fakeDaemon({
      import: (args) => ({
        vault: 'work',
        imported: (args['items'] as { title: string }[]).map((it) => ({
          asset_id: ASSET,
          revision_id: REV_A,
          title: it.title,
        })),
      }),
    });
    const result = await run(daemon, ['import', join(dir, 'in.jsonl'), '--vault', 'work', '--json']);
    expect(result.code).toBe(0);
    expect(daemon.calls.map((c) => (c.args['items'] as unknown[]).length)).toEqual([500, 500, 201]);
    expect(daemon.calls.every((c) => c.args['vault'] === 'work')).toBe(true);
    const doc = oneJsonDocument(result.stdout) as { vault: string; imported: unknown[] };
    expect(doc.vault).toBe('work');
    expect(doc.imported).toHaveLength(1201);
  });

  it('a bad JSONL line is rejected with its line number before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memories-cli-'));
    writeFileSync(join(dir, 'in.jsonl'), '{"title":"a","body":"b"}\n{"title":"a","body":"b","tags":[]}\n');
    const daemon = fakeDaemon();
    const result = await run(daemon, ['import', 'in.jsonl'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/in\.jsonl:2: unknown key\(s\) tags/);
    expect(daemon.connects).toBe(0);
  });
});
