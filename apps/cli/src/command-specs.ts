// The command table: names, positionals, flags and help text. Parsing lives in cli-args.ts,
// behaviour in the *.command.ts files.

/** `list`: repeatable, every value kept in order (e.g. `--field a=1 --field b=2`). */
export type FlagType = 'string' | 'boolean' | 'list';

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
  mode: 'string',
  kind: 'string',
  limit: 'string',
  from: 'string',
  model: 'string',
  private: 'boolean',
  credential: 'boolean',
  field: 'list',
  /** A secret LABEL; its value is prompted or read from stdin, never taken from argv (IPC-17). */
  secret: 'list',
  rel: 'string',
  remove: 'boolean',
  depth: 'string',
  minutes: 'string',
  write: 'boolean',
  scope: 'string',
  out: 'string',
  'grant-file': 'string',
  /** A Center ticket is a secret: read from a 0600 file or a named environment variable, never argv. */
  'center-ticket-file': 'string',
  'center-ticket-env': 'string',
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
  | 'vault list'
  | 'search'
  | 'retrieve'
  | 'rag index'
  | 'rag status'
  | 'rag search'
  | 'rag ask'
  | 'rag model-install'
  | 'card write'
  | 'card link'
  | 'card graph'
  | 'mcp grant'
  | 'mcp serve'
  | 'mcp list'
  | 'mcp revoke'
  | 'mcp requests'
  | 'mcp approve'
  | 'mcp deny';

export interface CommandSpec {
  name: CommandName;
  positionals: readonly string[];
  flags: readonly string[];
  usage: string;
  summary: string;
}

const BODY = ['title', 'body', 'body-file'];
/** CTR-1/3/4: where a Center ticket comes from (see center-ticket.ts). */
const TICKET = ['center-ticket-file', 'center-ticket-env'];
const TICKET_USAGE = '[--center-ticket-file FILE | --center-ticket-env VAR]';
const SEARCH = ['vault', 'mode', 'kind', 'limit'];

export const COMMANDS: readonly CommandSpec[] = [
  cmd('daemon start', [], [], 'start the vault daemon for the data directory'),
  cmd('daemon stop', [], [], 'stop the vault daemon'),
  cmd('daemon status', [], [], 'show whether the daemon runs, its pid and socket'),
  cmd(
    'init',
    [],
    ['password-stdin', ...TICKET],
    'create the store (asks for a new password twice); with a ticket-mode Center configured, only with its enrollment ticket',
    `[--password-stdin] ${TICKET_USAGE}`,
  ),
  cmd(
    'unlock',
    [],
    ['password-stdin', ...TICKET],
    'unlock the store; with a ticket-mode Center configured, also needs its unlock ticket',
    `[--password-stdin] ${TICKET_USAGE}`,
  ),
  cmd('lock', [], [], 'lock the store and clear elevation'),
  cmd('status', [], [], 'show the store status'),
  cmd('sudo', [], ['password-stdin'], 'elevate this terminal for sensitive operations'),
  cmd(
    'write',
    [],
    ['vault', 'asset', 'private', 'credential', ...BODY],
    'write a memory (body from --body, --body-file or stdin); --private keeps it out of search and MCP, --credential stores a secret (value from stdin only, never printed)',
    '[--vault V] [--asset ID] [--private | --credential] --title T (--body B | --body-file F | < stdin)',
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
    ['password-stdin', ...TICKET],
    'restore a backup into a new store; with a ticket-mode Center configured, only with its enrollment ticket',
    `FILE [--password-stdin] ${TICKET_USAGE}`,
  ),
  cmd('audit verify', [], [], 'verify the signed audit chain'),
  cmd('vault create', ['name'], ['device-only'], 'create a vault', 'NAME [--device-only]'),
  cmd('vault list', [], [], 'list vaults'),
  cmd(
    'search',
    ['query'],
    SEARCH,
    'search memories, one hit per memory',
    'QUERY [--mode any|all|phrase] [--kind lexical|vector|hybrid] [--limit N] [--vault V]',
  ),
  cmd(
    'retrieve',
    ['query'],
    SEARCH,
    'retrieve matching chunks with citations and UTF-8 byte offsets',
    'QUERY [--mode any|all|phrase] [--kind lexical|vector|hybrid] [--limit N] [--vault V]',
  ),
  cmd('rag index', [], ['vault'], 'build the in-memory search index of a vault now', '[--vault V]'),
  cmd('rag status', [], ['vault'], 'show the search index of a vault', '[--vault V]'),
  cmd(
    'rag search',
    ['query'],
    SEARCH,
    'like retrieve: single chunks with citations',
    'QUERY [--mode any|all|phrase] [--kind lexical|vector|hybrid] [--limit N] [--vault V]',
  ),
  cmd(
    'rag ask',
    ['question'],
    ['vault', 'mode', 'limit'],
    'answer from your memories with citations ([rag.generation] endpoint)',
    'QUESTION [--mode any|all|phrase] [--limit N] [--vault V]',
  ),
  cmd(
    'rag model-install',
    [],
    ['from', 'model'],
    'verify and install an ONNX embedding model into <data dir>/models (refuses an unpinned manifest: manifest_unpinned)',
    '[--from DIR] [--model embeddinggemma-300m-q4]',
  ),
  cmd(
    'card write',
    [],
    ['vault', 'asset', 'title', 'body', 'body-file', 'field', 'secret'],
    'create a card, or update it with --asset (omitted body/fields are kept; --field k= clears); each --secret LABEL value is prompted (or one stdin line each) and stored as a credential',
    '[--vault V] [--asset ID] --title T [--body B | --body-file F|-] [--field k=v ...] [--secret LABEL ...]',
  ),
  cmd(
    'card link',
    ['from', 'to'],
    ['vault', 'rel', 'remove'],
    'link card FROM to card TO (or --remove the link)',
    'FROM TO --rel R [--remove] [--vault V]',
  ),
  cmd(
    'card graph',
    ['id'],
    ['vault', 'depth'],
    'show the cards linked to a card, both directions (depth 1-3)',
    'ID [--depth N] [--vault V]',
  ),
  cmd(
    'mcp grant',
    [],
    ['vault', 'minutes', 'write', 'scope', 'out', ...TICKET],
    'issue an MCP grant and write it to FILE (mode 0600, never printed); read scope unless --write; with a ticket-mode Center configured, needs an MCP-grant ticket and stays within its scope and minutes',
    `--vault V --minutes N [--write | --scope read|read_write|read_write_delete] --out FILE ${TICKET_USAGE}`,
  ),
  cmd(
    'mcp serve',
    [],
    ['grant-file'],
    'serve MCP over stdio (protocol 2024-11-05 and newer) with the capability in FILE',
    '--grant-file FILE',
  ),
  cmd('mcp list', [], ['vault'], 'list active MCP grants (never their tokens)', '[--vault V]'),
  cmd('mcp revoke', ['grant'], [], 'revoke a grant and every grant issued from it', 'GRANT_ID'),
  cmd('mcp requests', [], ['vault'], 'list permission requests made by MCP clients', '[--vault V]'),
  cmd(
    'mcp approve',
    ['request'],
    ['scope', 'minutes'],
    'approve a request (optionally narrower); the client claims the grant itself',
    'REQUEST_ID [--scope S] [--minutes N]',
  ),
  cmd('mcp deny', ['request'], [], 'deny a permission request', 'REQUEST_ID'),
];

/** Words that start a two-word command. */
export const COMMAND_GROUPS = ['daemon', 'audit', 'vault', 'rag', 'card', 'mcp'] as const;

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
    'Center tickets are never taken from arguments either: --center-ticket-file FILE (mode 0600)',
    'or --center-ticket-env VAR (the name of the variable that holds it).',
    '',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  return `usage: memories [global options] ${spec.usage}\n\n${spec.summary}\n`;
}
