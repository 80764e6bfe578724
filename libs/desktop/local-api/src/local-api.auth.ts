// ARCH-10: who may call the local API. A 256-bit token per daemon process (compared in constant
// time), and Host/Origin checks so that other web sites and DNS-rebound names cannot reach it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';

export const TOKEN_FILE_NAME = 'local-api.token';
/** Browsers cannot set headers on a WebSocket: they offer these two subprotocols instead. */
export const WS_PROTOCOL = 'arslan.v1';
export const WS_TOKEN_PROTOCOL_PREFIX = 'arslan.token.';

/** 32 random bytes as 64 hex characters. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Writes the token 0600 through a temp file and rename (readers never see a partial token). */
export function writeTokenFile(dataDir: string, token: string): string {
  const path = join(dataDir, TOKEN_FILE_NAME);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time comparison (hashing first makes it independent of the presented length). */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(expected), digest(presented));
}

/** `Authorization: Bearer <token>`. */
export function bearerOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  if (typeof value !== 'string') return undefined;
  const match = /^Bearer ([^\s]+)$/.exec(value.trim());
  return match?.[1];
}

/** The offered subprotocols (`Sec-WebSocket-Protocol: arslan.v1, arslan.token.<hex>`). */
export function offeredProtocols(headers: IncomingHttpHeaders): string[] {
  const raw = headers['sec-websocket-protocol'];
  if (typeof raw !== 'string') return [];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

export function protocolToken(headers: IncomingHttpHeaders): string | undefined {
  const offered = offeredProtocols(headers).find((p) => p.startsWith(WS_TOKEN_PROTOCOL_PREFIX));
  return offered?.slice(WS_TOKEN_PROTOCOL_PREFIX.length);
}

export type OriginVerdict = { ok: true } | { ok: false; reason: 'bad_host' | 'bad_origin' };

/**
 * `Host` must name this server by loopback address or `localhost` with its port (a rebound DNS
 * name fails here); a present `Origin` must be the daemon's own origin (another site fails here).
 */
export function checkHostAndOrigin(headers: IncomingHttpHeaders, port: number): OriginVerdict {
  const host = typeof headers.host === 'string' ? headers.host.toLowerCase() : '';
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(host)) return { ok: false, reason: 'bad_host' };
  const origin = headers.origin;
  if (origin !== undefined) {
    const origins = hosts.map((h) => `http://${h}`);
    if (typeof origin !== 'string' || !origins.includes(origin.toLowerCase()))
      return { ok: false, reason: 'bad_origin' };
  }
  return { ok: true };
}
