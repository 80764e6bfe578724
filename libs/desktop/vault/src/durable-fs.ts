// VAULT-16: durable, non-overwriting publication of a finished file.
import fs from 'node:fs';
import { VaultStoreError } from './vault-store.errors';

/** fsync a file's contents to disk. */
export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** fsync a directory entry table (POSIX). Windows cannot open directories: no-op there. */
export function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Publish a synced temp file at `target` without ever overwriting it: link(2) fails
 * with EEXIST when the target exists (rename would replace it). The temp name is
 * always removed and the directory synced.
 */
export function publishWithoutOverwrite(tmp: string, target: string, dir: string): void {
  try {
    fs.linkSync(tmp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new VaultStoreError('store_exists', undefined, { cause: error });
    throw new VaultStoreError('io_failed', 'publishing the new store failed', { cause: error });
  } finally {
    fs.rmSync(tmp, { force: true });
    fsyncDirectory(dir);
  }
}
