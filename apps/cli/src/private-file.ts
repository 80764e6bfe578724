// Reads a small bearer-secret file (a grant file, a Center ticket): a regular file that no other
// user can read (mode 0600 or stricter), checked on the open descriptor so a swap between the
// check and the read cannot slip another file in. Errors name the file, never its content.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { UsageError } from './cli-errors';

/** `label` names what the file should hold ("grant file", "Center ticket") in error messages. */
export function readPrivateFile(path: string, label: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new UsageError(
      `cannot open ${label} ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${path} is not a file`);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
      throw new UsageError(`${path} is readable by other users; run chmod 600 on it`);
    if (stat.size > maxBytes) throw new UsageError(`${path} does not hold a ${label}`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
