import { isAllZero, toBase64Url, utf8Encode, wipe } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { EnvelopeError } from './envelope.errors';
import { assertKey } from './key-assertions';
import { DEFAULT_MAX_CIPHERTEXT_BYTES, KEY_BYTES, TAG_BYTES } from './limits';
import { matchPlaintextHeader } from './plaintext';
import { type EnvelopeProfile, isEnvelopeProfile } from './profiles';
import { associatedData, deriveKeys, headerBytes, signatureInput } from './transcript';
import { type EnvelopeWire, checkCiphertextLimit, checkHeaderValues } from './wire';

export interface SealInput {
  profile: EnvelopeProfile;
  /** Header values in the profile's field order. */
  header: readonly string[];
  /** UTF-8 JSON object text (or its bytes) whose `header` member repeats the header; see buildPlaintext. */
  plaintext: Uint8Array | string;
  senderSigningSeed: Uint8Array;
  recipientExchangePublicKey: Uint8Array;
  maxCiphertextBytes?: number;
}

/** Seals one envelope with a fresh ephemeral key (envelope-format.md, "Sealing"). */
export function sealEnvelope(crypto: EnvelopeCrypto, input: SealInput): EnvelopeWire {
  const ephemeralPrivate = crypto.randomBytes(KEY_BYTES);
  try {
    return sealWithEphemeral(crypto, input, ephemeralPrivate, { checkPlaintext: true });
  } finally {
    wipe(ephemeralPrivate);
  }
}

/**
 * Not exported from the lib: a fixed ephemeral key makes the envelope key
 * reproducible, which only vector generation and conformance checks may do.
 * `checkPlaintext: false` lets vector generation sign envelopes that must fail
 * at the header-match step.
 */
export function sealWithEphemeral(
  crypto: EnvelopeCrypto,
  input: SealInput,
  ephemeralPrivate: Uint8Array,
  options: { checkPlaintext: boolean },
): EnvelopeWire {
  if (typeof input !== 'object' || input === null) throw new TypeError('seal input must be an object');
  const { profile, senderSigningSeed, recipientExchangePublicKey } = input;
  if (!isEnvelopeProfile(profile)) throw new EnvelopeError('malformed', 'unknown profile');
  const header = checkHeaderValues(profile, input.header);
  assertKey(senderSigningSeed, KEY_BYTES, 'senderSigningSeed');
  assertKey(recipientExchangePublicKey, KEY_BYTES, 'recipientExchangePublicKey');
  assertKey(ephemeralPrivate, KEY_BYTES, 'ephemeralPrivate');
  const plaintext = typeof input.plaintext === 'string' ? utf8Encode(input.plaintext) : input.plaintext;
  if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a string or Uint8Array');
  const limit = checkCiphertextLimit(input.maxCiphertextBytes ?? DEFAULT_MAX_CIPHERTEXT_BYTES);
  if (plaintext.length + TAG_BYTES > limit) {
    throw new EnvelopeError('too_large', `ciphertext would exceed ${limit} bytes`);
  }
  if (options.checkPlaintext) matchPlaintextHeader(profile, header, plaintext);

  const recipient = recipientExchangePublicKey;
  const ephemeral = crypto.x25519PublicKey(ephemeralPrivate);
  const shared = crypto.x25519SharedSecret(ephemeralPrivate, recipient);
  if (isAllZero(shared)) throw new EnvelopeError('low_order_key', 'recipient key is of low order');
  const sender = crypto.ed25519PublicKey(senderSigningSeed);
  const hb = headerBytes(profile, header);
  const { key, nonce } = deriveKeys(crypto, profile, shared, ephemeral, recipient);
  const aad = associatedData(hb, sender, ephemeral, recipient);
  const ciphertext = crypto.chacha20Poly1305Seal(key, nonce, plaintext, aad);
  wipe(shared, key, nonce);
  const signature = crypto.ed25519Sign(senderSigningSeed, signatureInput(profile, aad, ciphertext));
  return {
    v: 1,
    p: profile,
    h: [...header],
    s: toBase64Url(sender),
    r: toBase64Url(recipient),
    e: toBase64Url(ephemeral),
    c: toBase64Url(ciphertext),
    g: toBase64Url(signature),
  };
}
