import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonNotRunningError } from './cli-errors';
import { type SpawnedDaemon } from './cli-context';

/** dist/cli/memories.cjs → dist/daemon/daemon.cjs (the bundles sit side by side). */
export function daemonBundlePath(cliBundleDir: string): string {
  return join(cliBundleDir, '..', 'daemon', 'daemon.cjs');
}

/**
 * Spawns the daemon detached from this terminal: stdin ignored, stdout/stderr appended to
 * DIR/daemon.log (mode 0600), unref'd so the CLI can exit.
 */
export function spawnDetachedDaemon(bundle: string, dataDir: string, configPath?: string): SpawnedDaemon {
  if (!existsSync(bundle)) {
    throw new DaemonNotRunningError(`the daemon is not built (${bundle} is missing); run \`npm run build\``);
  }
  const logPath = join(dataDir, 'daemon.log');
  const log = openSync(logPath, 'a', 0o600);
  chmodSync(logPath, 0o600);
  let exited = false;
  try {
    const args = [bundle, '--data', dataDir, ...(configPath === undefined ? [] : ['--config', configPath])];
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.on('exit', () => (exited = true));
    child.on('error', () => (exited = true));
    child.unref();
    return { pid: child.pid ?? -1, hasExited: () => exited, logPath };
  } finally {
    closeSync(log);
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
