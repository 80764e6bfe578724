// WRITE-002..004: every write creates a new file in the target's directory, flushes it and renames
// it over the name. Other hard-link names keep the old content; a failure at any step leaves the
// original untouched and removes the temporary file; new files are never executable.
import { randomBytes } from 'node:crypto';
import { promises as fsp, realpathSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { PathRefusal } from './paths';

/** The steps of a write, injectable so tests can make any of them fail. */
export interface AtomicWriteFs {
  open: typeof fsp.open;
  rename: typeof fsp.rename;
  unlink: typeof fsp.unlink;
}

export const NODE_WRITE_FS: AtomicWriteFs = { open: fsp.open, rename: fsp.rename, unlink: fsp.unlink };

export interface AtomicWriteOptions {
  /** The file being replaced (its permission bits are kept); null for a new file. */
  existing: Stats | null;
  fs?: AtomicWriteFs;
}

/** New files: rw for the owner, read for others; the umask may only remove bits, never add x. */
export const NEW_FILE_MODE = 0o644;

export async function atomicWriteFile(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions,
) {
  const ops = options.fs ?? NODE_WRITE_FS;
  const dir = path.dirname(target);
  const expectedDir = realpathSync(dir);
  const tmp = path.join(
    dir,
    `.${path.basename(target).slice(0, 40)}.arslan-tmp-${randomBytes(6).toString('hex')}`,
  );
  const mode = options.existing ? options.existing.mode & 0o7777 : NEW_FILE_MODE;
  let created = false;
  try {
    const handle = await ops.open(tmp, 'wx', mode);
    created = true;
    try {
      // open() applied the umask; a replaced file keeps its exact previous bits (WRITE-004).
      if (options.existing) await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The directory was checked as a real, non-link path; refuse if it was swapped meanwhile.
    if (realpathSync(dir) !== expectedDir)
      throw new PathRefusal('the target directory changed during the write');
    await ops.rename(tmp, target);
    created = false;
  } catch (error) {
    if (created) await ops.unlink(tmp).catch(() => undefined);
    throw error;
  }
  await fsyncDir(dir);
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await fsp.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Directory fsync is best effort (not supported everywhere); the rename already happened.
  }
}
