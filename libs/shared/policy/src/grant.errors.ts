// Typed grant errors. Transports map `code` in exactly one place each.
export const GRANT_ERROR_CODES = [
  'malformed',
  'issuer_cannot_delegate',
  'expired_parent',
  'cross_vault',
  'depth_exceeded',
  'bad_lifetime',
  'outlives_parent',
  'scope_exceeds_role',
  'scope_exceeds_parent',
  'reserved_recipient',
  'recipient_not_member',
  'recipient_role_too_high',
  'scope_exceeds_recipient_role',
  'too_many_grants',
  'unknown_grant',
] as const;
export type GrantErrorCode = (typeof GRANT_ERROR_CODES)[number];

export class GrantError extends Error {
  override readonly name = 'GrantError';

  constructor(
    readonly code: GrantErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export function isGrantError(value: unknown, code?: GrantErrorCode): value is GrantError {
  return value instanceof GrantError && (code === undefined || value.code === code);
}
