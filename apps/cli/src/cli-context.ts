import { type VaultOp, type VaultOpArgs, vaultOpArgs } from '@arslan/protocol';
import { type ParsedArgs } from './cli-args';
import { UsageError } from './cli-errors';
import { type DaemonConnector, type DaemonSession } from './daemon-connector';
import { type PasswordRequest, readPasswords } from './password-source';
import { type StdinReader } from './stdin-reader';
import { type TextOutput, type TtyInput } from './tty-prompt';

export interface CliIo {
  stdin: NodeJS.ReadableStream & Partial<TtyInput>;
  stdout: TextOutput;
  stderr: TextOutput;
  /** Whether stdin is a terminal. */
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export interface SpawnedDaemon {
  pid: number;
  /** True once the spawned process has exited (start failed). */
  hasExited(): boolean;
  logPath: string;
}

export interface CliDeps {
  connector: DaemonConnector;
  /** Starts `node dist/daemon/daemon.cjs --data DIR [--config FILE]` detached, logging to DIR/daemon.log. */
  spawnDaemon(dataDir: string, configPath?: string): SpawnedDaemon;
  processAlive(pid: number): boolean;
  sleep(ms: number): Promise<void>;
  now(): number;
  platform: NodeJS.Platform;
  homedir: string;
}

/** What a command hands back to runCli: the --json document, the human text, the exit code. */
export interface CommandOutcome {
  json: unknown;
  text: string;
  exitCode?: number;
  /** Print nothing (a command that used stdout as a protocol channel, `mcp serve`). */
  silent?: boolean;
}

export interface CommandContext {
  args: ParsedArgs;
  dataDir: string;
  /** The config file that was read (explicit, or the default one if it exists); passed to `daemon start`. */
  configPath?: string | null;
  io: CliIo;
  deps: CliDeps;
  reader: StdinReader;
}

export function stringFlag(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function boolFlag(ctx: CommandContext, name: string): boolean {
  return ctx.args.flags[name] === true;
}

export function positional(ctx: CommandContext, name: string): string {
  const value = ctx.args.positionals[name];
  if (value === undefined) throw new UsageError(`missing ${name.toUpperCase()}`);
  return value;
}

/** Validates op arguments with the shared wire schema, so bad input is a usage error (exit 1). */
export function checkArgs<Op extends VaultOp>(op: Op, args: VaultOpArgs<Op>): VaultOpArgs<Op> {
  const parsed = vaultOpArgs[op].safeParse(args);
  if (parsed.success) return parsed.data as VaultOpArgs<Op>;
  const problems = parsed.error.issues
    .slice(0, 3)
    .map(
      (issue) => `${FIELD_NAMES[issue.path.map(String).join('.')] ?? issue.path.join('.')}: ${issue.message}`,
    )
    .join('; ');
  throw new UsageError(problems);
}

const FIELD_NAMES: Record<string, string> = {
  vault: '--vault',
  asset_id: 'asset id',
  revision_id: '--revision',
  from: 'FROM',
  to: 'TO',
  name: 'NAME',
  title: '--title',
  body: 'body',
  password: 'password',
  backup_password: 'backup password',
  card_id: '--asset',
  rel: '--rel',
  depth: '--depth',
  fields: '--field',
  secrets: '--secret',
};

export async function withSession<T>(
  ctx: CommandContext,
  fn: (session: DaemonSession) => Promise<T>,
): Promise<T> {
  const session = await ctx.deps.connector.connect(ctx.dataDir);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/**
 * Checks that the daemon listens before a password prompt, so nobody types a password for a
 * daemon that is not there; the call itself then uses a fresh connection (the daemon closes
 * idle connections, and a prompt can take long).
 */
export async function ensureDaemonListening(ctx: CommandContext): Promise<void> {
  const session = await ctx.deps.connector.connect(ctx.dataDir);
  await session.close();
}

export function askPasswords(ctx: CommandContext, requests: readonly PasswordRequest[]): Promise<string[]> {
  return readPasswords(requests, {
    fromStdin: boolFlag(ctx, 'password-stdin'),
    isTTY: ctx.io.isTTY,
    stdin: ctx.io.stdin,
    stderr: ctx.io.stderr,
    reader: ctx.reader,
  });
}
