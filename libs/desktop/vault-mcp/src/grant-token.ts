// Capability tokens (GRANT-10, GRANT-11): 32 random bytes, stored only as their SHA-256,
// compared in constant time. Nothing here ever formats a token into an error or a log line.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MCP_TOKEN_PREFIX } from '@arslan/protocol';

export function newGrantToken(random: (n: number) => Uint8Array = randomBytes): string {
  return `${MCP_TOKEN_PREFIX}${Buffer.from(random(32)).toString('base64url')}`;
}

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Equal-length digests compared without an early exit. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newGrantId(random: (n: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(16)).toString('hex');
}
