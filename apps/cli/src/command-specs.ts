// The command table: names, positionals, flags and help text. Parsing lives in cli-args.ts,
// behaviour in the *.command.ts files.

export type FlagType = 'string' | 'boolean';

/** Every flag the CLI knows, with its type; commands list which ones they accept. */
export const FLAG_TYPES: Record<string, FlagType> = {
  data: 'string',
  config: 'string',
  json: 'boolean',
  help: 'boolean',
  'password-stdin': 'boolean',
  vault: 'string',
  asset: 'string',
  title: 'string',
  body: 'string',
  'body-file': 'string',
  revision: 'string',
  all: 'boolean',
  'device-only': 'boolean',
};

export const GLOBAL_FLAGS = ['data', 'config', 'json', 'help'] as const;

export type CommandName =
  | 'daemon start'
  | 'daemon stop'
  | 'daemon status'
  | 'init'
  | 'unlock'
  | 'lock'
  | 'status'
  | 'sudo'
  | 'write'
  | 'read'
  | 'list'
  | 'history'
  | 'diff'
  | 'delete'
  | 'resolve'
  | 'import'
  | 'backup'
  | 'restore'
  | 'audit verify'
  | 'vault create'
  | 'vault list';

export interface CommandSpec {
  name: CommandName;
  positionals: readonly string[];
  flags: readonly string[];
  usage: string;
  summary: string;
}

const BODY = ['title', 'body', 'body-file'];

export const COMMANDS: readonly CommandSpec[] = [
  cmd('daemon start', [], [], 'start the vault daemon for the data directory'),
  cmd('daemon stop', [], [], 'stop the vault daemon'),
  cmd('daemon status', [], [], 'show whether the daemon runs, its pid and socket'),
  cmd('init', [], ['password-stdin'], 'create the store (asks for a new password twice)'),
  cmd('unlock', [], ['password-stdin'], 'unlock the store'),
  cmd('lock', [], [], 'lock the store and clear elevation'),
  cmd('status', [], [], 'show the store status'),
  cmd('sudo', [], ['password-stdin'], 'elevate this terminal for sensitive operations'),
  cmd(
    'write',
    [],
    ['vault', 'asset', ...BODY],
    'write a memory (body from --body, --body-file or stdin)',
    '[--vault V] [--asset ID] --title T (--body B | --body-file F | < stdin)',
  ),
  cmd('read', ['id'], ['vault', 'revision'], 'print a memory body', 'ID [--vault V] [--revision R]'),
  cmd('list', [], ['vault', 'all'], 'list memories (--all includes deleted)', '[--vault V] [--all]'),
  cmd('history', ['id'], ['vault'], 'list the revisions of a memory', 'ID [--vault V]'),
  cmd(
    'diff',
    ['id', 'from', 'to'],
    ['vault'],
    'unified diff between two revisions',
    'ID FROM TO [--vault V]',
  ),
  cmd('delete', ['id'], ['vault'], 'delete a memory (a tombstone; history is kept)', 'ID [--vault V]'),
  cmd(
    'resolve',
    ['id'],
    ['vault', ...BODY],
    'resolve a conflicted memory with a new revision',
    'ID [--vault V] --title T (--body B | --body-file F | < stdin)',
  ),
  cmd(
    'import',
    ['path'],
    ['vault'],
    'import a folder of .txt/.md files or a .jsonl file',
    'PATH [--vault V]',
  ),
  cmd('backup', ['file'], ['password-stdin'], 'write a password-protected backup', 'FILE [--password-stdin]'),
  cmd(
    'restore',
    ['file'],
    ['password-stdin'],
    'restore a backup into a new store',
    'FILE [--password-stdin]',
  ),
  cmd('audit verify', [], [], 'verify the signed audit chain'),
  cmd('vault create', ['name'], ['device-only'], 'create a vault', 'NAME [--device-only]'),
  cmd('vault list', [], [], 'list vaults'),
];

/** Words that start a two-word command. */
export const COMMAND_GROUPS = ['daemon', 'audit', 'vault'] as const;

function cmd(
  name: CommandName,
  positionals: string[],
  flags: string[],
  summary: string,
  usage?: string,
): CommandSpec {
  const withStdin =
    flags.includes('password-stdin') && usage === undefined ? '[--password-stdin]' : undefined;
  return { name, positionals, flags, summary, usage: `${name} ${usage ?? withStdin ?? ''}`.trim() };
}

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    'usage: memories [--data DIR] [--config FILE] [--json] <command> [args]',
    '',
    'commands:',
    ...lines,
    '',
    'global options:',
    '  --data DIR      data directory (default: the per-user data directory)',
    '  --config FILE   TOML config file (default: <config dir>/arslan/memories.toml if present)',
    '  --json          print exactly one JSON document on stdout',
    '  --help          show help',
    '',
    'Passwords are never taken from arguments or the environment: you are prompted on the',
    'terminal, or give --password-stdin to read one line per password from stdin.',
    '',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  return `usage: memories [global options] ${spec.usage}\n\n${spec.summary}\n`;
}
