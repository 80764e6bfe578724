// Saving the working folder into a checkpoint and putting it back (CKPT-11/13/15). Copies are real
// copies (a copy-on-write clone where the volume supports it), never hard links; links are copied
// as links and nothing is written through a link.
import { constants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Manifest, type ManifestEntry, sameEntry, scanFolder, sha256File } from './manifest';

export const FILES_DIR = 'files';
export const BEFORE_MANIFEST = 'before.json';
export const AFTER_MANIFEST = 'after.json';

/** Copies the listed entries of `root` into `dest/files` and fills file hashes from the copies. */
export async function copyEntries(root: string, entries: ManifestEntry[], dest: string): Promise<void> {
  const files = path.join(dest, FILES_DIR);
  await fsp.mkdir(files, { recursive: true, mode: 0o700 });
  for (const entry of entries) {
    const to = path.join(files, entry.path);
    if (entry.type === 'dir') {
      await fsp.mkdir(to, { recursive: true, mode: 0o700 });
    } else if (entry.type === 'symlink') {
      await fsp.symlink(entry.target ?? '', to);
    } else {
      // COPYFILE_FICLONE: clone when the volume can, otherwise a plain copy (never a hard link).
      await fsp.copyFile(path.join(root, entry.path), to, constants.COPYFILE_FICLONE);
      await fsp.chmod(to, 0o600);
      entry.sha256 = await sha256File(to);
    }
  }
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(value), { mode: 0o600 });
  await fsp.rename(tmp, file);
}

export async function readManifest(file: string): Promise<Manifest> {
  return JSON.parse(await fsp.readFile(file, 'utf8')) as Manifest;
}

export interface RestoreReport {
  /** Files put back as they were before the turn. */
  restored: string[];
  /** Files and folders the undone turns created, removed again. */
  removed: string[];
  /** CKPT-15: changed after the turn (by the user or another program): left as they are. */
  changedAfter: string[];
  /** Entries that could not be put back safely (e.g. a parent became a link); left as they are. */
  skipped: string[];
}

const byDepthDesc = (a: string, b: string): number => b.split('/').length - a.split('/').length;
const byDepthAsc = (a: string, b: string): number => a.split('/').length - b.split('/').length;

/**
 * Puts `root` back to `before` (saved under `snapshotDir/files`) wherever the folder still holds
 * what the undone turns left (`after`). Anything that differs from `after` changed later and is
 * left alone and listed (CKPT-15). Excluded entries (CKPT-13) are in no listing and never touched.
 */
export async function restoreFolder(
  root: string,
  snapshotDir: string,
  before: Manifest,
  after: Manifest,
): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], removed: [], changedAfter: [], skipped: [] };
  const current = new Map((await scanFolder(root)).entries.map((e) => [e.path, e]));
  const pre = new Map(before.entries.map((e) => [e.path, e]));
  const post = new Map(after.entries.map((e) => [e.path, e]));
  const paths = [...new Set([...pre.keys(), ...post.keys(), ...current.keys()])];
  const leaf = (e: ManifestEntry | undefined): ManifestEntry | undefined =>
    e?.type === 'dir' ? undefined : e;

  const toRemove: string[] = [];
  const toRestore: ManifestEntry[] = [];
  const changedLater = new Set<string>();
  for (const rel of paths) {
    const c = leaf(current.get(rel));
    const p = leaf(post.get(rel));
    const m = leaf(pre.get(rel));
    if (!c && !p && !m) continue;
    if (!(await sameEntry(root, c, p))) {
      report.changedAfter.push(rel);
      changedLater.add(rel);
      continue;
    }
    if (m && c && (await sameEntry(root, c, m))) continue;
    if (c) toRemove.push(rel);
    if (m) toRestore.push(m);
  }

  // 1. Remove files and links the turns created or replaced.
  for (const rel of toRemove) {
    await fsp.rm(path.join(root, rel), { force: true });
    if (!leaf(pre.get(rel))) report.removed.push(rel);
  }
  // 2. Folders the turns created (deepest first), only when nothing else is left in them.
  const newDirs = [...current.values()]
    .filter((e) => e.type === 'dir' && pre.get(e.path)?.type !== 'dir' && post.get(e.path)?.type === 'dir')
    .map((e) => e.path)
    .sort(byDepthDesc);
  for (const rel of newDirs) {
    try {
      await fsp.rmdir(path.join(root, rel));
      report.removed.push(`${rel}/`);
    } catch {
      // still holds later or excluded content: left in place
    }
  }
  // 3. Folders that existed before (shallowest first), then the saved files and links.
  const oldDirs = before.entries.filter((e) => e.type === 'dir').sort((a, b) => byDepthAsc(a.path, b.path));
  for (const dir of oldDirs) {
    if (changedLater.has(dir.path)) continue;
    if (!(await safeParent(root, dir.path))) {
      report.skipped.push(`${dir.path}/`);
      continue;
    }
    const at = path.join(root, dir.path);
    const stat = await fsp.lstat(at).catch(() => undefined);
    if (!stat) await fsp.mkdir(at, { mode: dir.mode });
    else if (!stat.isDirectory()) report.skipped.push(`${dir.path}/`);
  }
  for (const entry of toRestore) {
    const existing = await fsp.lstat(path.join(root, entry.path)).catch(() => undefined);
    if (!(await safeParent(root, entry.path)) || existing?.isDirectory()) {
      report.skipped.push(entry.path);
      continue;
    }
    await putBack(root, snapshotDir, entry);
    report.restored.push(entry.path);
  }
  for (const list of [report.restored, report.removed, report.changedAfter, report.skipped]) list.sort();
  return report;
}

/** Every folder above `rel` is a real directory inside `root` (no link to follow out). */
async function safeParent(root: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = path.join(at, part);
    const stat = await fsp.lstat(at).catch(() => undefined);
    if (!stat?.isDirectory()) return false;
  }
  return true;
}

/** Writes one saved entry back atomically (temp name in the same folder, then rename). */
async function putBack(root: string, snapshotDir: string, entry: ManifestEntry): Promise<void> {
  const target = path.join(root, entry.path);
  const tmp = path.join(path.dirname(target), `.arslan-undo-${randomBytes(6).toString('hex')}`);
  try {
    if (entry.type === 'symlink') {
      await fsp.symlink(entry.target ?? '', tmp);
    } else {
      await fsp.copyFile(path.join(snapshotDir, FILES_DIR, entry.path), tmp, constants.COPYFILE_FICLONE);
      await fsp.chmod(tmp, entry.mode);
    }
    await fsp.rename(tmp, target);
  } catch (error) {
    await fsp.rm(tmp, { force: true });
    throw error;
  }
}
