// Spec-only helpers: a fake daemon connector and in-memory stdio for runCli.
import { PassThrough } from 'node:stream';
import { type VaultOp, type VaultOpResults } from '@arslan/protocol';
import { type CliDeps, type CliIo } from '../cli-context';
import { DaemonNotRunningError } from '../cli-errors';
import { type DaemonConnector } from '../daemon-connector';
import { runCli } from '../run-cli';

export type OpHandler = (args: Record<string, unknown>) => unknown;

export interface FakeDaemon {
  connector: DaemonConnector;
  calls: { op: VaultOp; args: Record<string, unknown> }[];
  connects: number;
  running: boolean;
  handlers: Partial<Record<VaultOp, OpHandler>>;
}

export const STATUS: VaultOpResults['status'] = {
  initialized: true,
  unlocked: true,
  unlock_idle_expires_at: 1_800_000_000_000,
  sudo: false,
  device_fingerprint: 'ab'.repeat(32),
  vaults: [{ name: 'default', vault_id: 'v1', device_only: false }],
  data_dir: '/data',
  pid: 4242,
};

const RAG_STATUS: VaultOpResults['rag_status'] = {
  vault: 'default',
  indexed: true,
  chunks: 0,
  text_bytes: 0,
  vector_bytes: 0,
  embedder: null,
  cached_vaults: 1,
};

const REVISION = { vault: 'default', asset_id: '0'.repeat(32), revision_id: 'a'.repeat(64) };
const VAULT = { name: 'work', vault_id: 'v2', device_only: true };

const GRANT = {
  grant_id: 'c'.repeat(32),
  vault: 'default',
  scope: 'read' as const,
  depth: 1,
  parent_id: null,
  issuer: 'owner',
  subject: 'owner',
  created_at: 0,
  expires_at: 60_000,
};

/** Plausible results for every op, so any command can run against the fake. */
export const DEFAULT_RESULTS: { [Op in VaultOp]: OpHandler } = {
  status: () => STATUS,
  init: () => ({ vault: 'default', vault_id: 'v1', device_fingerprint: 'ab'.repeat(32) }),
  unlock: () => ({ unlock_idle_expires_at: 0 }),
  lock: () => ({}),
  sudo: () => ({ sudo_expires_at: 0 }),
  vault_create: () => VAULT,
  vault_list: () => ({ vaults: [VAULT] }),
  write: () => REVISION,
  read: () => ({
    ...REVISION,
    title: 't',
    body: 'b',
    kind: 'memory',
    state: 'live',
    heads: [REVISION.revision_id],
    created_at: 0,
  }),
  list: () => ({ vault: 'default', assets: [] }),
  history: () => ({ vault: 'default', asset_id: REVISION.asset_id, revisions: [] }),
  diff: () => ({ vault: 'default', asset_id: REVISION.asset_id, from: 'a', to: 'b', diff: '' }),
  delete: () => REVISION,
  resolve: () => REVISION,
  import: () => ({ vault: 'default', imported: [] }),
  backup: (args) => ({ path: args['path'], bytes: 10, vaults: 1, assets: 2 }),
  restore: () => ({ vaults: [VAULT], device_fingerprint: 'cd'.repeat(32), assets: 2 }),
  audit_verify: () => ({ ok: true, entries: 1, head: 'h', problem: null }),
  shutdown: () => ({}),
  search: () => ({ vault: 'default', kind: 'lexical', hits: [] }),
  retrieve: () => ({ vault: 'default', kind: 'lexical', chunks: [] }),
  rag_search: () => ({ vault: 'default', kind: 'lexical', chunks: [] }),
  rag_index: () => RAG_STATUS,
  rag_status: () => RAG_STATUS,
  rag_ask: () => ({ vault: 'default', status: 'insufficient_evidence', answer: null, citations: [] }),
  card_write: (args) => ({
    vault: 'default',
    card_id: args['card_id'] ?? REVISION.asset_id,
    revision_id: REVISION.revision_id,
  }),
  card_link: (args) => ({
    vault: 'default',
    from: args['from'],
    to: args['to'],
    rel: args['rel'],
    revision_id: REVISION.revision_id,
    changed: true,
  }),
  card_graph: (args) => ({
    vault: 'default',
    root: args['card_id'],
    nodes: [{ card_id: args['card_id'], title: 'Root', fields: {} }],
    edges: [],
    truncated: false,
  }),
  mcp_grant_issue: () => ({ ...GRANT, token: `amcp_${'A'.repeat(43)}` }),
  mcp_grant_list: () => ({ grants: [GRANT] }),
  mcp_grant_revoke: () => ({ revoked: [GRANT.grant_id] }),
  mcp_request_list: () => ({ requests: [] }),
  mcp_request_decide: () => ({
    request_id: 'b'.repeat(32),
    vault: 'default',
    scope: 'read',
    minutes: 5,
    reason: '',
    requester_grant: GRANT.grant_id,
    subject: 'owner',
    state: 'approved',
    created_at: 0,
    updated_at: 0,
  }),
  mcp_call: () => ({}),
};

export function fakeDaemon(handlers: Partial<Record<VaultOp, OpHandler>> = {}): FakeDaemon {
  const fake: FakeDaemon = {
    calls: [],
    connects: 0,
    running: true,
    handlers: { ...DEFAULT_RESULTS, ...handlers },
    connector: {
      connect: async () => {
        fake.connects++;
        if (!fake.running) throw new DaemonNotRunningError();
        return {
          call: async (op, args) => {
            fake.calls.push({ op, args: args as Record<string, unknown> });
            const handler = fake.handlers[op];
            if (!handler) return {} as never;
            return (await handler(args as Record<string, unknown>)) as never;
          },
          close: () => undefined,
        };
      },
      socketPath: (dataDir) => `${dataDir}/run/vault.sock`,
    },
  };
  return fake;
}

export interface FakeTty extends PassThrough {
  isTTY: true;
  rawModes: boolean[];
  setRawMode(mode: boolean): FakeTty;
}

/** A fake terminal: each time raw mode is switched on (a prompt starts) it "types" the next answer. */
export function fakeTty(answers: string[] = []): FakeTty {
  const stream = new PassThrough() as unknown as FakeTty;
  const queue = [...answers];
  stream.isTTY = true;
  stream.rawModes = [];
  stream.setRawMode = (mode: boolean) => {
    stream.rawModes.push(mode);
    const next = mode ? queue.shift() : undefined;
    if (next !== undefined) setImmediate(() => stream.write(next));
    return stream;
  };
  return stream;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string | PassThrough;
  isTTY?: boolean;
  env?: Record<string, string | undefined>;
  cwd?: string;
  deps?: Partial<CliDeps>;
  /** Called after runCli started, e.g. to type into a fake TTY. */
  during?: (stdin: PassThrough) => void;
}

export async function run(daemon: FakeDaemon, argv: string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  let stdin: PassThrough;
  if (options.stdin instanceof PassThrough) stdin = options.stdin;
  else {
    stdin = new PassThrough();
    stdin.end(options.stdin ?? '');
  }
  const io: CliIo = {
    stdin,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    isTTY: options.isTTY ?? false,
    env: options.env ?? { HOME: '/home/test' },
    cwd: options.cwd ?? '/work',
  };
  const deps: CliDeps = {
    connector: daemon.connector,
    spawnDaemon: () => {
      throw new Error('spawnDaemon not expected');
    },
    processAlive: () => false,
    sleep: async () => undefined,
    now: () => 0,
    platform: 'linux',
    homedir: '/nonexistent-home-for-tests',
    ...options.deps,
  };
  const pending = runCli(argv, io, deps);
  options.during?.(stdin);
  const code = await pending;
  return { code, stdout, stderr };
}

export const ASSET = '0123456789abcdef0123456789abcdef';
export const REV_A = 'a'.repeat(64);
export const REV_B = 'b'.repeat(64);
