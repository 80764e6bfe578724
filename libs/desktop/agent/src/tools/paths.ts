// Path rules shared by the file tools (FILE-02..04, FILE-08, WRITE-001): symlinks are resolved
// before the scope check, hidden and credential-like names are neither listed nor read, and a
// write never follows a link out of the workspace in any component, including the last.
import { promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';

export class PathRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathRefusal';
  }
}

const CREDENTIAL_NAME =
  /(?:^|[._-])(?:secrets?|credentials?|passwd|shadow|api[_-]?keys?|private[_-]?key|keychain|htpasswd|netrc|npmrc|pgpass|kubeconfig)(?:[._-]|$)/i;
const CREDENTIAL_EXACT = /^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?|authorized_keys|known_hosts)$/i;
const CREDENTIAL_EXT = /\.(?:pem|key|p12|pfx|jks|keystore|keychain|keychain-db|kdbx|gpg|asc|ovpn|ppk)$/i;

/** FILE-04: hidden names (leading dot) and credential-like names. */
export function isHiddenOrCredentialName(name: string): boolean {
  if (name.startsWith('.')) return true;
  return CREDENTIAL_EXACT.test(name) || CREDENTIAL_EXT.test(name) || CREDENTIAL_NAME.test(name);
}

/** `child` equals `root` or lies below it (both absolute, normalised). */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function assertCleanInput(input: string): void {
  if (typeof input !== 'string' || input.length === 0) throw new PathRefusal('empty path');
  if (/[\0-\x1f\x7f]/.test(input)) throw new PathRefusal('path contains control characters');
}

/** Relative components of `input` against `root`; refuses `..` and absolute paths outside `root`. */
export function relativeComponents(root: string, input: string): string[] {
  assertCleanInput(input);
  let rel = input;
  if (path.isAbsolute(input)) {
    const normal = path.normalize(input);
    if (!isInside(root, normal)) throw new PathRefusal(`path is outside the workspace: ${input}`);
    rel = path.relative(root, normal);
  }
  const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new PathRefusal('path may not contain ".." components');
  return parts;
}

function refuseHidden(parts: string[], input: string): void {
  for (const part of parts) {
    if (isHiddenOrCredentialName(part)) {
      throw new PathRefusal(`refused: hidden or credential-like name in ${JSON.stringify(input)}`);
    }
  }
}

export interface ReadTarget {
  /** Real path (symlinks resolved) inside one of the roots. */
  real: string;
  root: string;
  stat: Stats;
}

/**
 * FILE-02/03/04: resolve `input` (relative to `roots[0]`, or absolute inside any root), resolve
 * links, and require the real path inside a root; hidden/credential-like names refused both in the
 * requested path and in the resolved one.
 */
export async function resolveForRead(roots: readonly string[], input: string): Promise<ReadTarget> {
  assertCleanInput(input);
  const realRoots = await Promise.all(roots.map((r) => fsp.realpath(r).catch(() => null)));
  const candidates = realRoots.filter((r): r is string => r !== null);
  const first = candidates[0];
  if (!first) throw new PathRefusal('no readable folder is available');
  const absolute = path.isAbsolute(input) ? path.normalize(input) : path.join(first, input);
  const lexicalRoot =
    candidates.find((r) => isInside(r, absolute)) ?? roots.find((r) => isInside(r, absolute));
  if (!lexicalRoot) throw new PathRefusal(`path is outside the readable folders: ${input}`);
  refuseHidden(relativeComponents(lexicalRoot, absolute), input);
  let real: string;
  try {
    real = await fsp.realpath(absolute);
  } catch (error) {
    throw new PathRefusal(`cannot open ${input}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const root = candidates.find((r) => isInside(r, real));
  if (!root) throw new PathRefusal(`refused: ${input} is a link leading outside the readable folders`);
  refuseHidden(relativeComponents(root, real), input);
  return { real, root, stat: await fsp.stat(real) };
}

export interface WriteTarget {
  /** Real path of the file to (re)place; its directory is a real, non-link path inside the workspace. */
  real: string;
  /** Existing regular file at that place (null: a new file). */
  existing: Stats | null;
  /** Directories to create first (in order), all inside the workspace. */
  missingDirs: string[];
}

/**
 * WRITE-001: walk every component with lstat; a link is resolved with realpath and must stay inside
 * the real workspace root (and then the walk continues from its real target); a link whose target
 * is missing is refused. The result names only real paths, so no later step follows a link.
 */
export async function resolveForWrite(workspace: string, input: string): Promise<WriteTarget> {
  const root = await fsp.realpath(workspace);
  const parts = relativeComponents(root, input);
  if (parts.length === 0) throw new PathRefusal('path names the workspace itself');
  let current = root;
  const missingDirs: string[] = [];
  for (let i = 0; i < parts.length; i += 1) {
    const isLast = i === parts.length - 1;
    const next = path.join(current, parts[i]!);
    if (missingDirs.length > 0) {
      if (isLast) return { real: next, existing: null, missingDirs };
      missingDirs.push(next);
      current = next;
      continue;
    }
    let st: Stats;
    try {
      st = await fsp.lstat(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (isLast) return { real: next, existing: null, missingDirs };
      missingDirs.push(next);
      current = next;
      continue;
    }
    let real = next;
    if (st.isSymbolicLink()) {
      try {
        real = await fsp.realpath(next);
      } catch {
        throw new PathRefusal(
          `refused: ${parts.slice(0, i + 1).join('/')} is a link whose target is missing`,
        );
      }
      if (!isInside(root, real) || real === root) {
        throw new PathRefusal(
          `refused: ${parts.slice(0, i + 1).join('/')} is a link leading outside the workspace (WRITE-001)`,
        );
      }
      st = await fsp.lstat(real);
    }
    if (isLast) {
      if (st.isDirectory()) throw new PathRefusal(`${input} is a directory`);
      if (!st.isFile()) throw new PathRefusal(`${input} is not a regular file`);
      return { real, existing: st, missingDirs };
    }
    if (!st.isDirectory()) throw new PathRefusal(`${parts.slice(0, i + 1).join('/')} is not a directory`);
    current = real;
  }
  throw new PathRefusal('unreachable');
}
