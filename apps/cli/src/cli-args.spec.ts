import { parseArgs } from './cli-args';
import { UsageError } from './cli-errors';
import { COMMANDS } from './command-specs';

const ID = '0123456789abcdef0123456789abcdef';

describe('parseArgs', () => {
  const cases: [string[], string, Record<string, string>, Record<string, string | boolean | string[]>][] = [
    [['daemon', 'start'], 'daemon start', {}, {}],
    [['daemon', 'stop'], 'daemon stop', {}, {}],
    [['daemon', 'status'], 'daemon status', {}, {}],
    [['init', '--password-stdin'], 'init', {}, { 'password-stdin': true }],
    [['unlock'], 'unlock', {}, {}],
    [['lock'], 'lock', {}, {}],
    [['status'], 'status', {}, {}],
    [['sudo', '--password-stdin'], 'sudo', {}, { 'password-stdin': true }],
    [
      ['write', '--vault', 'work', '--asset', ID, '--title', 'T', '--body=B'],
      'write',
      {},
      { vault: 'work', asset: ID, title: 'T', body: 'B' },
    ],
    [['write', '--title', 'T', '--body-file', 'f.md'], 'write', {}, { title: 'T', 'body-file': 'f.md' }],
    [['read', ID, '--revision', 'r'], 'read', { id: ID }, { revision: 'r' }],
    [['list', '--all'], 'list', {}, { all: true }],
    [['history', ID], 'history', { id: ID }, {}],
    [['diff', ID, 'f', 't'], 'diff', { id: ID, from: 'f', to: 't' }, {}],
    [['delete', ID], 'delete', { id: ID }, {}],
    [['resolve', ID, '--title', 'T', '--body', ''], 'resolve', { id: ID }, { title: 'T', body: '' }],
    [['import', './notes'], 'import', { path: './notes' }, {}],
    [['backup', 'b.bak', '--password-stdin'], 'backup', { file: 'b.bak' }, { 'password-stdin': true }],
    [['restore', 'b.bak'], 'restore', { file: 'b.bak' }, {}],
    [['audit', 'verify'], 'audit verify', {}, {}],
    [['vault', 'create', 'work', '--device-only'], 'vault create', { name: 'work' }, { 'device-only': true }],
    [['vault', 'list'], 'vault list', {}, {}],
    [
      ['search', 'red OR apples', '--mode', 'all', '--kind', 'lexical', '--limit', '5'],
      'search',
      { query: 'red OR apples' },
      { mode: 'all', kind: 'lexical', limit: '5' },
    ],
    [['retrieve', 'q', '--vault', 'work'], 'retrieve', { query: 'q' }, { vault: 'work' }],
    [['rag', 'index', '--vault', 'work'], 'rag index', {}, { vault: 'work' }],
    [['rag', 'status'], 'rag status', {}, {}],
    [['rag', 'search', 'q', '--kind', 'hybrid'], 'rag search', { query: 'q' }, { kind: 'hybrid' }],
    [['rag', 'ask', 'why?', '--limit', '3'], 'rag ask', { question: 'why?' }, { limit: '3' }],
    [['rag', 'model-install', '--from', './m'], 'rag model-install', {}, { from: './m' }],
    [
      ['card', 'write', '--title', 'T', '--field', 'a=1', '--field=b=2', '--secret', 'pw'],
      'card write',
      {},
      { title: 'T', field: ['a=1', 'b=2'], secret: ['pw'] },
    ],
    [
      ['card', 'link', ID, ID, '--rel', 'uses', '--remove'],
      'card link',
      { from: ID, to: ID },
      { rel: 'uses', remove: true },
    ],
    [['card', 'graph', ID, '--depth', '2'], 'card graph', { id: ID }, { depth: '2' }],
    [
      ['mcp', 'grant', '--vault', 'personal', '--minutes', '5', '--write', '--out', 'g.json'],
      'mcp grant',
      {},
      { vault: 'personal', minutes: '5', write: true, out: 'g.json' },
    ],
    [['mcp', 'serve', '--grant-file', 'g.json'], 'mcp serve', {}, { 'grant-file': 'g.json' }],
    [['mcp', 'list', '--vault', 'v'], 'mcp list', {}, { vault: 'v' }],
    [['mcp', 'revoke', ID], 'mcp revoke', { grant: ID }, {}],
    [['mcp', 'requests'], 'mcp requests', {}, {}],
    [
      ['mcp', 'approve', ID, '--scope', 'read', '--minutes', '3'],
      'mcp approve',
      { request: ID },
      { scope: 'read', minutes: '3' },
    ],
    [['mcp', 'deny', ID], 'mcp deny', { request: ID }, {}],
  ];

  it('covers every command in the table', () => {
    expect(new Set(cases.map((c) => c[1]))).toEqual(new Set(COMMANDS.map((c) => c.name)));
  });

  it.each(cases)('parses %j', (argv, name, positionals, flags) => {
    const parsed = parseArgs(argv);
    expect(parsed.command?.name).toBe(name);
    expect(parsed.positionals).toEqual(positionals);
    expect(parsed.flags).toEqual(flags);
  });

  it('takes global options anywhere', () => {
    const parsed = parseArgs(['--json', 'list', '--data', '/d', '--config=/c.toml']);
    expect(parsed.global).toEqual({ json: true, help: false, data: '/d', config: '/c.toml' });
    expect(parsed.command?.name).toBe('list');
  });

  it('treats everything after -- as positionals', () => {
    expect(parseArgs(['import', '--', '--odd-name']).positionals).toEqual({ path: '--odd-name' });
  });

  it('answers --help with or without a command', () => {
    expect(parseArgs(['--help']).command).toBeUndefined();
    expect(parseArgs(['write', '-h']).command?.name).toBe('write');
    expect(parseArgs(['vault', '--help']).global.help).toBe(true);
  });

  it.each([
    [[], /no command/],
    [['frobnicate'], /unknown command/],
    [['vault'], /needs a subcommand/],
    [['vault', 'drop'], /unknown command `vault drop`/],
    [['read'], /usage: memories read ID/],
    [['read', ID, 'extra'], /usage/],
    [['list', '--revision', 'x'], /does not take --revision/],
    [['list', '--bogus'], /unknown option --bogus/],
    [['list', '--all=yes'], /takes no value/],
    [['write', '--title'], /needs a value/],
    [['list', '--all', '--all'], /more than once/],
    [['list', '-x'], /unknown option -x/],
    [['list', '--data='], /non-empty/],
  ])('rejects %j as a usage error', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  describe('IPC-17 / THREAT-9: no password on the command line', () => {
    it.each(
      [
        ['unlock', '--password', 'hunter2'],
        ['unlock', '--password=hunter2'],
        ['init', '--pass', 'x'],
        ['sudo', '--passphrase=x'],
        ['restore', 'f', '--backup-password', 'x'],
        ['unlock', '--pwd', 'x'],
        ['card', 'write', '--secrets', 'hunter2'],
        ['card', 'write', '--secret-value=hunter2'],
        ['unlock', '-p'],
        ['--password', 'x', 'status'],
      ].map((argv) => [argv.join(' '), argv]),
    )('refuses `%s` without echoing the value', (_name, argv) => {
      let error: unknown;
      try {
        parseArgs(argv);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/passwords are never taken from the command line/);
      expect((error as Error).message).not.toMatch(/hunter2/);
    });

    it('accepts --password-stdin only on commands that need a password', () => {
      expect(parseArgs(['unlock', '--password-stdin']).flags['password-stdin']).toBe(true);
      expect(() => parseArgs(['list', '--password-stdin'])).toThrow(/does not take --password-stdin/);
    });
  });
});
