/** The exact error codes of envelope-format.md, "Opening" and "Attachments". */
export const ENVELOPE_ERROR_CODES = [
  'malformed',
  'too_large',
  'wrong_recipient',
  'unknown_sender',
  'bad_signature',
  'low_order_key',
  'decrypt_failed',
  'header_mismatch',
  'attachment_mismatch',
] as const;

export type EnvelopeErrorCode = (typeof ENVELOPE_ERROR_CODES)[number];

const MESSAGES: Record<EnvelopeErrorCode, string> = {
  malformed: 'envelope is malformed',
  too_large: 'envelope exceeds the size limit',
  wrong_recipient: 'envelope is addressed to another recipient',
  unknown_sender: 'envelope sender is not accepted in this context',
  bad_signature: 'envelope signature does not verify',
  low_order_key: 'key agreement produced the all-zero secret',
  decrypt_failed: 'envelope ciphertext failed authentication',
  header_mismatch: 'envelope plaintext header does not match the signed header',
  attachment_mismatch: 'attachment does not match its descriptor',
};

/**
 * The one error type this lib throws for untrusted input. `detail` is for
 * developers (which check failed); it never carries key or plaintext bytes.
 */
export class EnvelopeError extends Error {
  readonly code: EnvelopeErrorCode;
  readonly detail: string | undefined;

  constructor(code: EnvelopeErrorCode, detail?: string) {
    super(detail ? `${MESSAGES[code]}: ${detail}` : MESSAGES[code]);
    this.name = 'EnvelopeError';
    this.code = code;
    this.detail = detail;
  }
}

export function isEnvelopeError(error: unknown): error is EnvelopeError {
  return error instanceof EnvelopeError;
}
