// Parent pid of a process, for binding sudo to the terminal command's parent (IPC-12).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Parses `/proc/<pid>/stat`: `pid (comm) state ppid ...`. `comm` may contain spaces and
 * parentheses, so the fields after it start at the LAST `)`.
 */
export function parseProcStatParentPid(stat: string): number | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // fields[0] = state (field 3), fields[1] = ppid (field 4)
  const ppid = Number(fields[1]);
  return /^\d+$/.test(fields[1] ?? '') && Number.isSafeInteger(ppid) ? ppid : undefined;
}

/** The parent pid of `pid`, or undefined when the process is gone or unreadable (callers fail closed). */
export function parentPidOf(pid: number, platform: NodeJS.Platform = process.platform): number | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    if (platform === 'linux') return parseProcStatParentPid(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    if (platform === 'darwin') {
      const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 2000,
      }).trim();
      return /^\d+$/.test(out) ? Number(out) : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
