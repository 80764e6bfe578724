// Peer credentials of a Unix-socket connection (IPC-6, IPC-12, IPC-18), read by the kernel,
// never claimed by the client. The native addon is optional at run time: when it is missing
// (not built, unsupported OS) `peerCredentials` returns undefined and callers FAIL CLOSED.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Socket } from 'node:net';

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

interface PeerCredentialsAddon {
  getPeerCredentials(fd: number): PeerCredentials;
}

/** Environment variable that may point at `peer_credentials.node` (packaged apps). */
export const PEER_CREDENTIALS_ADDON_ENV = 'ARSLAN_PEER_CREDENTIALS_ADDON';
const ADDON_FILE = join('build', 'Release', 'peer_credentials.node');

/**
 * Where the addon may be: the env override, next to this source file (`src/` → lib root, for
 * jest/tsx), and from a bundle in `dist/<app>/` back to the repo's lib (for `npm run build`).
 */
export function addonCandidates(env: NodeJS.ProcessEnv = process.env, here: string = __dirname): string[] {
  const candidates: string[] = [];
  const override = env[PEER_CREDENTIALS_ADDON_ENV];
  if (override) candidates.push(override);
  candidates.push(join(here, '..', ADDON_FILE));
  candidates.push(join(here, '..', '..', 'libs', 'desktop', 'peer-credentials', ADDON_FILE));
  return candidates;
}

let cached: PeerCredentialsAddon | null | undefined;

/** Loads the addon once; null when none of the candidates loads. */
export function loadPeerCredentialsAddon(): PeerCredentialsAddon | null {
  if (cached !== undefined) return cached;
  cached = null;
  const load = createRequire(__filename);
  for (const candidate of addonCandidates()) {
    if (!existsSync(candidate)) continue;
    try {
      const addon = load(candidate) as Partial<PeerCredentialsAddon>;
      if (typeof addon.getPeerCredentials === 'function') {
        cached = addon as PeerCredentialsAddon;
        break;
      }
    } catch {
      // wrong ABI or platform: try the next candidate, else fail closed
    }
  }
  return cached;
}

/** True when peer credentials can be read on this machine. */
export function peerCredentialsAvailable(): boolean {
  return loadPeerCredentialsAddon() !== null;
}

/** The kernel's record of who is at the other end of `socket`; undefined when unknown (fail closed). */
export function peerCredentials(socket: Socket): PeerCredentials | undefined {
  const addon = loadPeerCredentialsAddon();
  // Node exposes no public API for a socket's fd; `_handle.fd` is the libuv pipe's descriptor.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (!addon || typeof fd !== 'number' || fd < 0) return undefined;
  try {
    const creds = addon.getPeerCredentials(fd);
    const valid = [creds.pid, creds.uid, creds.gid].every((n) => Number.isSafeInteger(n) && n >= 0);
    return valid && creds.pid > 0 ? { pid: creds.pid, uid: creds.uid, gid: creds.gid } : undefined;
  } catch {
    return undefined;
  }
}
