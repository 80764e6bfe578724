import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASSET, REV_A, fakeDaemon, fakeTty, run } from './testing/fake-cli';

const OTHER = 'fedcba9876543210fedcba9876543210';

describe('memories card write / link / graph (MCP-5)', () => {
  it('card write sends title, fields and a body file; --field k= clears a field (OTP-9)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memories-card-'));
    writeFileSync(join(dir, 'card.md'), 'card body');
    const daemon = fakeDaemon();
    const result = await run(
      daemon,
      [
        'card',
        'write',
        '--title',
        'Router',
        '--asset',
        ASSET,
        '--body-file',
        'card.md',
        '--field',
        'ip=10.0.0.1',
        '--field',
        'model=',
      ],
      { cwd: dir },
    );
    expect(result.code).toBe(0);
    expect(daemon.calls).toEqual([
      {
        op: 'card_write',
        args: { card_id: ASSET, title: 'Router', body: 'card body', fields: { ip: '10.0.0.1', model: '' } },
      },
    ]);
    expect(result.stdout).toBe(`wrote card ${ASSET} revision ${REV_A}\n`);
  });

  it('without --body/--body-file the body is omitted (kept on update), never read from stdin', async () => {
    const daemon = fakeDaemon();
    expect((await run(daemon, ['card', 'write', '--title', 'T'], { stdin: 'ignored' })).code).toBe(0);
    expect(daemon.calls[0]?.args).toEqual({ title: 'T' });
  });

  it('IPC-17: --secret LABEL values come from stdin lines (one per label), then --body-file - takes the rest', async () => {
    const daemon = fakeDaemon();
    const result = await run(
      daemon,
      ['--json', 'card', 'write', '--title', 'Bank', '--secret', 'pw', '--secret', 'pin', '--body-file', '-'],
      { stdin: 'hunter2\n1234\nuse {{secret:pw}}\n' },
    );
    expect(result.code).toBe(0);
    expect(daemon.calls[0]?.args).toEqual({
      title: 'Bank',
      body: 'use {{secret:pw}}\n',
      secrets: { pw: 'hunter2', pin: '1234' },
    });
    expect(result.stdout).not.toMatch(/hunter2|1234/);
    expect(result.stderr).toBe('');
  });

  it('on a TTY each secret is asked with a hidden prompt naming its label', async () => {
    const daemon = fakeDaemon();
    const tty = fakeTty(['s3cret\r']);
    const result = await run(daemon, ['card', 'write', '--title', 'T', '--secret', 'api.key'], {
      isTTY: true,
      stdin: tty,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Secret api.key: ');
    expect(result.stderr).not.toContain('s3cret');
    expect(daemon.calls[0]?.args).toEqual({ title: 'T', secrets: { 'api.key': 's3cret' } });
  });

  it.each([
    [['card', 'write', '--body', 'b'], /needs --title/],
    [['card', 'write', '--title', 'T', '--field', 'novalue'], /NAME=VALUE/],
    [['card', 'write', '--title', 'T', '--secret', 'Bad Label'], /--secret/],
    [['card', 'write', '--title', 'T', '--secret', 'pw'], /expected 1 line/],
    [['card', 'write', '--title', 'T', '--secret', 'pw', '--secret', 'pw'], /more than once/],
    [['card', 'link', ASSET, OTHER], /needs --rel/],
    [['card', 'link', ASSET, OTHER, '--rel', 'Has Space'], /--rel/],
    [['card', 'graph', ASSET, '--depth', '4'], /--depth/],
    [['card', 'graph', ASSET, '--depth', 'two'], /--depth/],
    [['write', '--title', 'T', '--body', 'B', '--private', '--credential'], /not both/],
    [['write', '--title', 'T', '--body', 'hunter2', '--credential'], /stdin only/],
    [['card', 'write', '--title', 'T', '--secret=pw=value'], /--secret/],
  ])('%j is a usage error before any daemon contact', async (argv, message) => {
    const daemon = fakeDaemon();
    const result = await run(daemon, argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(daemon.connects).toBe(0);
  });

  it('card link and card graph call their ops', async () => {
    const daemon = fakeDaemon();
    expect((await run(daemon, ['card', 'link', ASSET, OTHER, '--rel', 'uses'])).stdout).toMatch(/^linked /);
    expect((await run(daemon, ['card', 'link', ASSET, OTHER, '--rel', 'uses', '--remove'])).code).toBe(0);
    const graph = await run(daemon, ['card', 'graph', ASSET, '--depth', '2']);
    expect(graph.code).toBe(0);
    expect(graph.stdout).toContain('Root');
    expect(daemon.calls).toEqual([
      { op: 'card_link', args: { from: ASSET, to: OTHER, rel: 'uses' } },
      { op: 'card_link', args: { from: ASSET, to: OTHER, rel: 'uses', remove: true } },
      { op: 'card_graph', args: { card_id: ASSET, depth: 2 } },
    ]);
  });

  it('write --private and write --credential (value from stdin only, one trailing newline dropped)', async () => {
    const daemon = fakeDaemon();
    expect((await run(daemon, ['write', '--private', '--title', 'T', '--body', 'B'])).code).toBe(0);
    expect((await run(daemon, ['write', '--credential', '--title', 'Key'], { stdin: 'sk-123\n' })).code).toBe(
      0,
    );
    expect(daemon.calls.map((c) => c.args)).toEqual([
      { title: 'T', body: 'B', kind: 'private' },
      { title: 'Key', body: 'sk-123', kind: 'credential' },
    ]);
  });

  it('read of a card prints body, fields and secret labels (markers literal, MCP-11)', async () => {
    const daemon = fakeDaemon({
      read: () => ({
        vault: 'default',
        asset_id: ASSET,
        revision_id: REV_A,
        title: 'Bank',
        body: 'pw {{secret:pw}}',
        kind: 'card',
        state: 'live',
        heads: [REV_A],
        created_at: 0,
        fields: { user: 'bob' },
        links: [],
        secret_labels: ['pw'],
      }),
    });
    const result = await run(daemon, ['read', ASSET]);
    expect(result.stdout).toBe('pw {{secret:pw}}\n--- fields ---\nuser: bob\n--- secrets: pw\n');
  });
});
