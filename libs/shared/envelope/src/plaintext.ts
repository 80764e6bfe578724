import { utf8DecodeStrict, utf8Encode } from '@arslan/util';
import { EnvelopeError } from './envelope.errors';
import { type EnvelopeProfile, profileFields } from './profiles';

export type JsonObject = { [key: string]: unknown };

/** The plaintext's `header` member: the profile's fields with the wire's values. */
export function headerObject(profile: EnvelopeProfile, header: readonly string[]): Record<string, string> {
  const fields = profileFields(profile);
  const out: Record<string, string> = {};
  fields.forEach((field, i) => {
    out[field] = header[i] as string;
  });
  return out;
}

/** Builds a plaintext whose `header` member repeats the envelope header exactly. */
export function buildPlaintext(
  profile: EnvelopeProfile,
  header: readonly string[],
  body: JsonObject = {},
): Uint8Array {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.hasOwn(body, 'header')) {
    throw new TypeError('body must be a JSON object without a header member');
  }
  return utf8Encode(JSON.stringify({ header: headerObject(profile, header), ...body }));
}

/**
 * Step 6 of "Opening": the plaintext parses as a JSON object whose `header`
 * member has exactly the profile's fields with the values of `h`.
 */
export function matchPlaintextHeader(
  profile: EnvelopeProfile,
  header: readonly string[],
  plaintext: Uint8Array,
): JsonObject {
  const text = utf8DecodeStrict(plaintext);
  let message: unknown;
  try {
    message = text === undefined ? undefined : JSON.parse(text);
  } catch {
    message = undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new EnvelopeError('header_mismatch', 'plaintext is not a JSON object');
  }
  const claimed = (message as JsonObject)['header'];
  if (typeof claimed !== 'object' || claimed === null || Array.isArray(claimed)) {
    throw new EnvelopeError('header_mismatch', 'plaintext has no header object');
  }
  const fields = profileFields(profile);
  const claimedKeys = Object.keys(claimed);
  const same =
    claimedKeys.length === fields.length &&
    fields.every((field, i) => (claimed as JsonObject)[field] === header[i] && Object.hasOwn(claimed, field));
  if (!same) throw new EnvelopeError('header_mismatch', 'plaintext header differs from the signed header');
  return message as JsonObject;
}
