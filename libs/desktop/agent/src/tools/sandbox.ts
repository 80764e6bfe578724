// SEC-007: after a turn read external content, commands run with network denied by the OS, never
// by filtering text. The sandbox fails closed: if it cannot be applied, the command does not run.
import { spawn } from 'node:child_process';

export interface CommandSandbox {
  /** Human name for messages ("unshare --net", "sandbox-exec"). */
  readonly name: string;
  /**
   * The argv that runs `argv` with network denied, or null when the OS rule cannot be applied
   * here (the caller then refuses to run the command).
   */
  offline(argv: readonly string[]): Promise<string[] | null>;
}

function probe(argv: readonly string[], timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (ok: boolean) => {
      if (!settled) {
        settled = true;
        resolve(ok);
      }
    };
    try {
      const child = spawn(argv[0]!, argv.slice(1), {
        stdio: 'ignore',
        env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done(false);
      }, timeoutMs);
      child.on('error', () => {
        clearTimeout(timer);
        done(false);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        done(code === 0);
      });
    } catch {
      done(false);
    }
  });
}

export interface UnshareSandboxOptions {
  /** Path of util-linux `unshare` (default /usr/bin/unshare). */
  unsharePath?: string;
}

/**
 * Linux: a new, empty network namespace (`unshare --net`; unprivileged users get
 * `--map-root-user` as well). Only loopback exists inside, and it is down.
 */
export function createUnshareSandbox(options: UnshareSandboxOptions = {}): CommandSandbox {
  const unshare = options.unsharePath ?? '/usr/bin/unshare';
  let prefix: Promise<string[] | null> | null = null;
  const detect = async (): Promise<string[] | null> => {
    for (const candidate of [
      [unshare, '--net'],
      [unshare, '--map-root-user', '--net'],
    ]) {
      if (await probe([...candidate, '--', '/bin/true'])) return candidate;
    }
    return null;
  };
  return {
    name: 'unshare --net',
    async offline(argv) {
      prefix ??= detect();
      const p = await prefix;
      return p ? [...p, '--', ...argv] : null;
    },
  };
}

const SEATBELT_OFFLINE = '(version 1)(allow default)(deny network*)';

/** macOS: `sandbox-exec` with a profile denying all network operations. */
export function createSeatbeltSandbox(sandboxExec = '/usr/bin/sandbox-exec'): CommandSandbox {
  let ok: Promise<boolean> | null = null;
  return {
    name: 'sandbox-exec',
    async offline(argv) {
      ok ??= probe([sandboxExec, '-p', SEATBELT_OFFLINE, '/usr/bin/true']);
      return (await ok) ? [sandboxExec, '-p', SEATBELT_OFFLINE, ...argv] : null;
    },
  };
}

/** A sandbox that can never be applied: every offline command is refused. */
export const UNAVAILABLE_SANDBOX: CommandSandbox = { name: 'none', offline: async () => null };

export function defaultCommandSandbox(platform: NodeJS.Platform = process.platform): CommandSandbox {
  if (platform === 'linux') return createUnshareSandbox();
  if (platform === 'darwin') return createSeatbeltSandbox();
  return UNAVAILABLE_SANDBOX;
}
