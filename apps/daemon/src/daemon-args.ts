// `daemon --data DIR [--config FILE] [--stdin-lifeline] [--desktop]`: never a password (IPC-17).
// --stdin-lifeline: exit cleanly when stdin reaches EOF (ARCH-12; the shell holds the pipe).
// --desktop: the packaged app's mode: implies --stdin-lifeline and takes nothing from the
// environment but the API key variable its own config names (ARCH-11).
import { resolve } from 'node:path';

export const DAEMON_USAGE = 'usage: daemon --data DIR [--config FILE] [--stdin-lifeline] [--desktop]';

export interface DaemonArgs {
  dataDir: string;
  /** Absolute path of an explicitly named TOML config (CFG-2: must exist). */
  configPath?: string;
  stdinLifeline: boolean;
  desktop: boolean;
}

export function parseDaemonArgs(argv: readonly string[], cwd: string = process.cwd()): DaemonArgs {
  let dataDir: string | undefined;
  let configPath: string | undefined;
  let stdinLifeline = false;
  let desktop = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data' && argv[i + 1] !== undefined && dataDir === undefined) dataDir = argv[++i];
    else if (arg.startsWith('--data=') && dataDir === undefined) dataDir = arg.slice('--data='.length);
    else if (arg === '--config' && argv[i + 1] !== undefined && configPath === undefined)
      configPath = argv[++i];
    else if (arg.startsWith('--config=') && configPath === undefined)
      configPath = arg.slice('--config='.length);
    else if (arg === '--stdin-lifeline') stdinLifeline = true;
    else if (arg === '--desktop') desktop = true;
    else throw new Error(`unexpected argument ${JSON.stringify(arg)}; ${DAEMON_USAGE}`);
  }
  if (!dataDir) throw new Error(DAEMON_USAGE);
  if (configPath === '') throw new Error(`--config needs a file; ${DAEMON_USAGE}`);
  return {
    dataDir: resolve(cwd, dataDir),
    stdinLifeline: stdinLifeline || desktop,
    desktop,
    ...(configPath === undefined ? {} : { configPath: resolve(cwd, configPath) }),
  };
}
