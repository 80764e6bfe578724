// A listing of the working folder as the checkpoint sees it (CKPT-11/13/15): every directory,
// regular file and symbolic link, walked with lstat so no link is ever followed. Excluded entries
// (CKPT-13) are reported separately and never appear in the listing.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isRebuildableDir, isSecretShaped } from './exclusions';

export interface ManifestEntry {
  /** Path relative to the working folder, `/`-separated. */
  path: string;
  type: 'dir' | 'file' | 'symlink';
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** Files: SHA-256 of the content (filled by `hashFiles`). */
  sha256?: string;
  /** Symlinks: the link text, copied as is (never resolved). */
  target?: string;
}

export interface Manifest {
  entries: ManifestEntry[];
}

export interface ScanResult {
  entries: ManifestEntry[];
  /** Relative paths not saved (rebuildable folders end with `/`), in walk order. */
  excluded: string[];
  files: number;
  bytes: number;
  /** Set when a limit was crossed; the walk stopped there. */
  overLimit?: 'too_many_files' | 'too_large';
}

export interface ScanLimits {
  maxFiles: number;
  maxBytes: number;
}

const UNLIMITED: ScanLimits = { maxFiles: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY };

/** Walks `root` (a real path) without following links; stops early once a limit is crossed. */
export async function scanFolder(root: string, limits: ScanLimits = UNLIMITED): Promise<ScanResult> {
  const result: ScanResult = { entries: [], excluded: [], files: 0, bytes: 0 };
  const walk = async (relDir: string): Promise<boolean> => {
    const dirents = await fsp.readdir(path.join(root, relDir), { withFileTypes: true });
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      if (dirent.isDirectory() && isRebuildableDir(dirent.name)) {
        result.excluded.push(`${rel}/`);
        continue;
      }
      if (!dirent.isDirectory() && isSecretShaped(dirent.name)) {
        result.excluded.push(rel);
        continue;
      }
      let stat;
      try {
        stat = await fsp.lstat(path.join(root, rel));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // vanished during the walk
        throw error;
      }
      const base = {
        path: rel,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        ctimeMs: stat.ctimeMs,
        ino: stat.ino,
        mode: stat.mode & 0o7777,
      };
      if (stat.isDirectory()) {
        result.entries.push({ ...base, type: 'dir', size: 0 });
        if (!(await walk(rel))) return false;
        continue;
      }
      if (stat.isSymbolicLink()) {
        result.entries.push({ ...base, type: 'symlink', target: await fsp.readlink(path.join(root, rel)) });
        result.files += 1;
      } else if (stat.isFile()) {
        result.entries.push({ ...base, type: 'file' });
        result.files += 1;
        result.bytes += stat.size;
      } else {
        result.excluded.push(rel); // sockets, pipes, devices cannot be saved
        continue;
      }
      if (result.files > limits.maxFiles) {
        result.overLimit = 'too_many_files';
        return false;
      }
      if (result.bytes > limits.maxBytes) {
        result.overLimit = 'too_large';
        return false;
      }
    }
    return true;
  };
  await walk('');
  return result;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Fills `sha256` of every file entry under `root`. A file whose size, mtime and inode match an entry
 * of `known` reuses that hash (a post-turn listing mostly re-reads unchanged files otherwise).
 */
export async function hashFiles(root: string, entries: ManifestEntry[], known?: Manifest): Promise<void> {
  const byPath = new Map((known?.entries ?? []).map((e) => [e.path, e]));
  for (const entry of entries) {
    if (entry.type !== 'file') continue;
    const prior = byPath.get(entry.path);
    if (prior?.type === 'file' && prior.sha256 && sameStat(prior, entry)) {
      entry.sha256 = prior.sha256;
      continue;
    }
    entry.sha256 = await sha256File(path.join(root, entry.path));
  }
}

function sameStat(a: ManifestEntry, b: ManifestEntry): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * Same content and kind (directories: both directories). Files are compared by content hash, never
 * by timestamps alone: two same-size writes within one timestamp tick must still count as a change.
 */
export async function sameEntry(
  root: string,
  current: ManifestEntry | undefined,
  reference: ManifestEntry | undefined,
): Promise<boolean> {
  if (!current || !reference) return current === reference;
  if (current.type !== reference.type) return false;
  if (current.type === 'dir') return true;
  if (current.type === 'symlink') return current.target === reference.target;
  if (current.size !== reference.size) return false;
  current.sha256 ??= await sha256File(path.join(root, current.path));
  return current.sha256 === reference.sha256;
}
