// Bearer secrets: shown once, stored as SHA-256, compared in constant time (GRANT-10, GRANT-11).
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIXES = { member: 'acm_', grant: 'acg_', ticket: 'act_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIXES;

/** 32 random bytes, base64url, with a kind prefix so a leaked token is recognisable. */
export function newToken(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two secrets via their equal-length digests. */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Constant-time comparison of two hex digests (a stored hash vs a computed one). */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

export function newId(): string {
  return randomUUID();
}
