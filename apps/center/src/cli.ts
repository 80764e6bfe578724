// `arslan-center serve [--data DIR] [--port N] [--host H] [--config FILE] [--mode ticket|saas]`
// `arslan-center audit verify --data DIR [--head HASH]`
import { join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { verifyAuditFile } from '@arslan/center-data-access';
import { ConfigError, loadConfig, type CenterConfig } from './config';
import { startCenter } from './center-app';

const USAGE = `usage:
  arslan-center serve [--data DIR] [--port N] [--host HOST] [--config FILE] [--mode ticket|saas]
  arslan-center audit verify --data DIR [--head HASH]`;

export class UsageError extends Error {}

export interface ParsedArgs {
  readonly command: 'serve' | 'audit-verify' | 'help';
  readonly flags: Record<string, string>;
}

const FLAGS = new Set(['data', 'port', 'host', 'config', 'mode', 'head']);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--help' || a === '-h') return { command: 'help', flags };
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
      if (!FLAGS.has(name)) throw new UsageError(`unknown flag --${name}`);
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
    } else positional.push(a);
  }
  const cmd = positional.join(' ');
  if (cmd === 'serve' || cmd === '') return { command: 'serve', flags };
  if (cmd === 'audit verify') return { command: 'audit-verify', flags };
  throw new UsageError(`unknown command "${cmd}"`);
}

export function defaultCenterDataDir(env: Record<string, string | undefined>): string {
  return (
    env.ARSLAN_CENTER_DATA ?? join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'arslan-center')
  );
}

export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`arslan-center: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const dataDir = resolve(args.flags.data ?? defaultCenterDataDir(env));
  if (args.command === 'audit-verify') {
    const verdict = verifyAuditFile(join(dataDir, 'audit.jsonl'), args.flags.head);
    if (verdict.ok) {
      process.stdout.write(`audit ok: ${verdict.entries} entries, head ${verdict.head}\n`);
      return 0;
    }
    process.stdout.write(`audit FAILED at line ${verdict.line}: ${verdict.reason}\n`);
    return 1;
  }
  let config: CenterConfig;
  try {
    const overrides: Partial<CenterConfig> = {};
    if (args.flags.port !== undefined) {
      if (!/^\d+$/.test(args.flags.port))
        throw new ConfigError(`--port: expected a whole number, got "${args.flags.port}"`);
      overrides.port = Number(args.flags.port);
    }
    if (args.flags.host !== undefined) overrides.host = args.flags.host;
    if (args.flags.mode !== undefined) overrides.mode = args.flags.mode as CenterConfig['mode'];
    config = loadConfig({
      dataDir,
      env,
      overrides,
      ...(args.flags.config ? { configFile: args.flags.config } : {}),
    });
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`arslan-center: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const center = await startCenter({ config });
  process.stdout.write(
    `${JSON.stringify({ msg: 'arslan-center listening', url: center.url, mode: config.mode, database: center.context.store.provider, dataDir, adminTokenFile: config.adminToken ? null : join(dataDir, 'admin-token') })}\n`,
  );
  process.stdout.write(`ARSLAN_CENTER_PORT=${center.port}\n`);
  await new Promise<void>((done) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => done());
  });
  await center.close();
  return 0;
}
