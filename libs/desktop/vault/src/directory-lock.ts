// VAULT-15: one cooperating writer per data directory, enforced by an OS-level lock.
// Node has no flock(2), so the lock is SQLite's own OS lock (fcntl byte-range locks on
// POSIX, LockFileEx on Windows) on a dedicated file `.lock.sqlite`: locking_mode=EXCLUSIVE
// plus a write transaction that is begun and never committed. The OS drops the lock
// when the connection closes or the process dies.
import path from 'node:path';
import Database from 'better-sqlite3';
import { VaultStoreError } from './vault-store.errors';

export const LOCK_FILE_NAME = '.lock.sqlite';

export interface DirectoryLock {
  readonly path: string;
  readonly held: boolean;
  release(): void;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Takes the exclusive writer lock of `dir` or throws `store_locked` at once (no waiting). */
export function acquireDirectoryLock(dir: string): DirectoryLock {
  const file = path.join(dir, LOCK_FILE_NAME);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    if (db?.open) db.close();
    if (isBusy(error)) throw new VaultStoreError('store_locked', undefined, { cause: error });
    throw new VaultStoreError('io_failed', 'cannot open the directory lock', { cause: error });
  }
  const conn = db;
  return {
    path: file,
    get held() {
      return conn.open;
    },
    release() {
      if (!conn.open) return;
      try {
        if (conn.inTransaction) conn.exec('ROLLBACK');
      } finally {
        conn.close();
      }
    },
  };
}
