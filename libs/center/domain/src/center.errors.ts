// Typed Center errors. Domain code throws these; the HTTP transport maps each code to a
// status in exactly one place (apps/center/src/http/error-mapping.ts).
import { type GrantErrorCode } from '@arslan/policy';

export const CENTER_ERROR_CODES = [
  // input
  'bad_request',
  'malformed_json',
  'body_too_large',
  'unsupported_media_type',
  'role_request_unsupported',
  // authentication
  'unauthenticated',
  'invalid_credential',
  'admin_bearer_not_allowed',
  'admin_only',
  // authorization
  'forbidden',
  'not_a_member',
  'insufficient_scope',
  'delegated_caller',
  'self_approval',
  'not_requester',
  'center_locked',
  // state
  'not_found',
  'conflict',
  'member_exists',
  'request_not_pending',
  'request_not_claimable',
  'too_many_pending',
  'ticket_used',
  'ticket_expired',
  'ticket_wrong_kind',
  'ticket_wrong_vault',
  'unsupported_operation',
  'plaintext_secret_rejected',
  'bad_envelope',
  'device_authorization_invalid',
  'store_password_invalid',
  'rate_limited',
  'audit_unavailable',
  'internal',
] as const;
export type CenterErrorCode = (typeof CENTER_ERROR_CODES)[number] | `grant_${GrantErrorCode}`;

export class CenterError extends Error {
  override readonly name = 'CenterError';

  constructor(
    readonly code: CenterErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export function isCenterError(value: unknown): value is CenterError {
  return value instanceof CenterError;
}
