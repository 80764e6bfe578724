// `daemon --data DIR`: the only argument. Never a password (IPC-17).
import { resolve } from 'node:path';

export const DAEMON_USAGE = 'usage: daemon --data DIR';

export function parseDaemonArgs(argv: readonly string[], cwd: string = process.cwd()): { dataDir: string } {
  let dataDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data' && argv[i + 1] !== undefined && dataDir === undefined) dataDir = argv[++i];
    else if (arg.startsWith('--data=') && dataDir === undefined) dataDir = arg.slice('--data='.length);
    else throw new Error(`unexpected argument ${JSON.stringify(arg)}; ${DAEMON_USAGE}`);
  }
  if (!dataDir) throw new Error(DAEMON_USAGE);
  return { dataDir: resolve(cwd, dataDir) };
}
