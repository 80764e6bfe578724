// `daemon --data DIR [--config FILE]`: never a password (IPC-17).
import { resolve } from 'node:path';

export const DAEMON_USAGE = 'usage: daemon --data DIR [--config FILE]';

export interface DaemonArgs {
  dataDir: string;
  /** Absolute path of an explicitly named TOML config (CFG-2: must exist). */
  configPath?: string;
}

export function parseDaemonArgs(argv: readonly string[], cwd: string = process.cwd()): DaemonArgs {
  let dataDir: string | undefined;
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data' && argv[i + 1] !== undefined && dataDir === undefined) dataDir = argv[++i];
    else if (arg.startsWith('--data=') && dataDir === undefined) dataDir = arg.slice('--data='.length);
    else if (arg === '--config' && argv[i + 1] !== undefined && configPath === undefined)
      configPath = argv[++i];
    else if (arg.startsWith('--config=') && configPath === undefined)
      configPath = arg.slice('--config='.length);
    else throw new Error(`unexpected argument ${JSON.stringify(arg)}; ${DAEMON_USAGE}`);
  }
  if (!dataDir) throw new Error(DAEMON_USAGE);
  if (configPath === '') throw new Error(`--config needs a file; ${DAEMON_USAGE}`);
  return {
    dataDir: resolve(cwd, dataDir),
    ...(configPath === undefined ? {} : { configPath: resolve(cwd, configPath) }),
  };
}
