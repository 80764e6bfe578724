// Where the daemon of a data directory listens (IPC-6). sun_path is 104 bytes on macOS and
// 108 on Linux, so a path longer than 100 bytes falls back to a short per-user directory.
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const SOCKET_PATH_MAX_BYTES = 100;

export interface SocketPathOptions {
  /** Defaults to `os.tmpdir()`. */
  tmpDir?: string;
  /** Defaults to `process.getuid()`. */
  uid?: number;
}

/**
 * `<dataDir>/run/vault.sock`, or when that is longer than 100 bytes
 * `<tmpdir>/arslan-<uid>/<first 16 hex of sha256(resolved dataDir)>.sock`.
 * Both parent directories must be mode 0700 (the server creates them so).
 */
export function daemonSocketPath(dataDir: string, options: SocketPathOptions = {}): string {
  const dir = resolve(dataDir);
  const preferred = join(dir, 'run', 'vault.sock');
  if (Buffer.byteLength(preferred, 'utf8') <= SOCKET_PATH_MAX_BYTES) return preferred;
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const digest = createHash('sha256').update(dir, 'utf8').digest('hex').slice(0, 16);
  return join(options.tmpDir ?? tmpdir(), `arslan-${uid}`, `${digest}.sock`);
}
