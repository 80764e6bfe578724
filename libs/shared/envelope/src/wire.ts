import { fromBase64UrlStrict, utf8DecodeStrict, utf8Encode } from '@arslan/util';
import { EnvelopeError } from './envelope.errors';
import {
  DEFAULT_MAX_CIPHERTEXT_BYTES,
  KEY_BYTES,
  MAX_HEADER_VALUE_BYTES,
  SIGNATURE_BYTES,
  TAG_BYTES,
  maxBase64UrlLength,
} from './limits';
import { type EnvelopeProfile, isEnvelopeProfile, profileFields } from './profiles';

/** The wire object: exactly these members (envelope-format.md, "Sealing" step 8). */
export interface EnvelopeWire {
  v: 1;
  p: EnvelopeProfile;
  h: string[];
  s: string;
  r: string;
  e: string;
  c: string;
  g: string;
}

/** A wire that passed the shape step, with its byte fields decoded. */
export interface ShapedEnvelope {
  profile: EnvelopeProfile;
  header: readonly string[];
  sender: Uint8Array;
  recipient: Uint8Array;
  ephemeral: Uint8Array;
  ciphertext: Uint8Array;
  signature: Uint8Array;
}

const WIRE_MEMBERS = ['v', 'p', 'h', 's', 'r', 'e', 'c', 'g'] as const;
/** Room in the JSON text for everything but `c` (six 256-byte header values, escaped, plus keys). */
const WIRE_TEXT_OVERHEAD = 32 * 1024;

/** True when the string has no lone surrogate, so its UTF-8 form is unambiguous. */
export function isWellFormedText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}

export function checkHeaderValues(profile: EnvelopeProfile, header: unknown): readonly string[] {
  const arity = profileFields(profile).length;
  if (!Array.isArray(header) || header.length !== arity) {
    throw new EnvelopeError('malformed', `header must have ${arity} values for profile ${profile}`);
  }
  for (const value of header) {
    if (typeof value !== 'string' || !isWellFormedText(value)) {
      throw new EnvelopeError('malformed', 'header values must be well-formed strings');
    }
    if (utf8Encode(value).length > MAX_HEADER_VALUE_BYTES) {
      throw new EnvelopeError('malformed', `header value longer than ${MAX_HEADER_VALUE_BYTES} bytes`);
    }
  }
  return header as string[];
}

function decodeFixed(value: unknown, length: number, member: string): Uint8Array {
  const bytes = typeof value === 'string' ? fromBase64UrlStrict(value) : undefined;
  if (!bytes || bytes.length !== length) {
    throw new EnvelopeError('malformed', `member ${member} must be ${length} bytes of base64url`);
  }
  return bytes;
}

export function checkCiphertextLimit(maxCiphertextBytes: number): number {
  if (!Number.isSafeInteger(maxCiphertextBytes) || maxCiphertextBytes < TAG_BYTES) {
    throw new RangeError('maxCiphertextBytes must be an integer of at least 16');
  }
  return maxCiphertextBytes;
}

/**
 * Step 1 of "Opening": shape, before any cryptography. The order is fixed so that
 * every implementation returns the same code: members, then the size of `c`
 * (too_large), then each member's form (malformed).
 */
export function checkShape(wire: unknown, maxCiphertextBytes = DEFAULT_MAX_CIPHERTEXT_BYTES): ShapedEnvelope {
  checkCiphertextLimit(maxCiphertextBytes);
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) {
    throw new EnvelopeError('malformed', 'wire must be a JSON object');
  }
  const members = Object.keys(wire);
  if (members.length !== WIRE_MEMBERS.length || !WIRE_MEMBERS.every((m) => Object.hasOwn(wire, m))) {
    throw new EnvelopeError('malformed', `wire must have exactly the members ${WIRE_MEMBERS.join(',')}`);
  }
  const w = wire as Record<(typeof WIRE_MEMBERS)[number], unknown>;
  if (typeof w.c !== 'string') throw new EnvelopeError('malformed', 'member c must be a string');
  if (w.c.length > maxBase64UrlLength(maxCiphertextBytes)) {
    throw new EnvelopeError('too_large', `ciphertext over ${maxCiphertextBytes} bytes`);
  }
  if (w.v !== 1) throw new EnvelopeError('malformed', 'unsupported version');
  if (!isEnvelopeProfile(w.p)) throw new EnvelopeError('malformed', 'unknown profile');
  const header = checkHeaderValues(w.p, w.h);
  const sender = decodeFixed(w.s, KEY_BYTES, 's');
  const recipient = decodeFixed(w.r, KEY_BYTES, 'r');
  const ephemeral = decodeFixed(w.e, KEY_BYTES, 'e');
  const signature = decodeFixed(w.g, SIGNATURE_BYTES, 'g');
  const ciphertext = fromBase64UrlStrict(w.c);
  if (!ciphertext || ciphertext.length < TAG_BYTES) {
    throw new EnvelopeError('malformed', 'member c must be base64url of at least 16 bytes');
  }
  if (ciphertext.length > maxCiphertextBytes) {
    throw new EnvelopeError('too_large', `ciphertext over ${maxCiphertextBytes} bytes`);
  }
  return { profile: w.p, header: [...header], sender, recipient, ephemeral, ciphertext, signature };
}

/**
 * Parses wire text (a string or its UTF-8 bytes). The text's size is checked
 * before JSON parsing, so an oversized input costs no parse.
 */
export function parseWireText(
  text: string | Uint8Array,
  maxCiphertextBytes = DEFAULT_MAX_CIPHERTEXT_BYTES,
): unknown {
  checkCiphertextLimit(maxCiphertextBytes);
  const maxLength = maxBase64UrlLength(maxCiphertextBytes) + WIRE_TEXT_OVERHEAD;
  if (typeof text !== 'string' && !(text instanceof Uint8Array)) {
    throw new EnvelopeError('malformed', 'wire text must be a string or bytes');
  }
  if (text.length > maxLength) throw new EnvelopeError('too_large', 'wire text over the size limit');
  const json = typeof text === 'string' ? text : utf8DecodeStrict(text);
  if (json === undefined) throw new EnvelopeError('malformed', 'wire text is not UTF-8');
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new EnvelopeError('malformed', 'wire text is not JSON');
  }
}
