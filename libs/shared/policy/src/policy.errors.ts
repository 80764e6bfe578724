// Typed policy errors. Transports map `code` in exactly one place each; the
// message is for logs and never decides anything.
export const POLICY_ERROR_CODES = [
  'malformed',
  'bad_signature',
  'broken_chain',
  'untrusted_genesis',
  'not_authorized',
  'owner_count',
  'revocation_removed',
  'revoked_device',
  'bad_epoch',
  'unknown_member',
  'unknown_device',
  'duplicate',
  'no_change',
] as const;
export type PolicyErrorCode = (typeof POLICY_ERROR_CODES)[number];

export class PolicyError extends Error {
  override readonly name = 'PolicyError';

  constructor(
    readonly code: PolicyErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export function isPolicyError(value: unknown, code?: PolicyErrorCode): value is PolicyError {
  return value instanceof PolicyError && (code === undefined || value.code === code);
}
