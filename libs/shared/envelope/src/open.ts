import { constantTimeEqual, isAllZero, wipe } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { EnvelopeError } from './envelope.errors';
import { assertKey } from './key-assertions';
import { DEFAULT_MAX_CIPHERTEXT_BYTES, KEY_BYTES } from './limits';
import { type JsonObject, headerObject, matchPlaintextHeader } from './plaintext';
import type { EnvelopeProfile } from './profiles';
import { associatedData, deriveKeys, headerBytes, signatureInput } from './transcript';
import { checkShape, parseWireText } from './wire';

export interface OpenOptions {
  recipientExchangePrivateKey: Uint8Array;
  /** Ed25519 public keys of the senders accepted in this context. */
  acceptedSenders: readonly Uint8Array[];
  /** Largest accepted `c` in bytes, tag included; default 1 MiB. */
  maxCiphertextBytes?: number;
}

export interface OpenedEnvelope {
  profile: EnvelopeProfile;
  header: readonly string[];
  /** The header as `{field: value}` in the profile's names. */
  headerFields: Record<string, string>;
  sender: Uint8Array;
  plaintext: Uint8Array;
  /** The parsed plaintext object (its `header` member already checked). */
  message: JsonObject;
}

function checkOptions(options: OpenOptions): number {
  if (typeof options !== 'object' || options === null) throw new TypeError('open options must be an object');
  assertKey(options.recipientExchangePrivateKey, KEY_BYTES, 'recipientExchangePrivateKey');
  if (!Array.isArray(options.acceptedSenders)) throw new TypeError('acceptedSenders must be an array');
  options.acceptedSenders.forEach((key, i) => assertKey(key, KEY_BYTES, `acceptedSenders[${i}]`));
  return options.maxCiphertextBytes ?? DEFAULT_MAX_CIPHERTEXT_BYTES;
}

/**
 * Opens a wire object in the mandatory order of envelope-format.md: shape,
 * recipient, sender, signature, decrypt, header match. Throws EnvelopeError
 * with the first failing step's code; on failure nothing is returned.
 */
export function openEnvelope(crypto: EnvelopeCrypto, wire: unknown, options: OpenOptions): OpenedEnvelope {
  const limit = checkOptions(options);
  const env = checkShape(wire, limit);

  const ownPublic = crypto.x25519PublicKey(options.recipientExchangePrivateKey);
  if (!constantTimeEqual(env.recipient, ownPublic)) throw new EnvelopeError('wrong_recipient');

  if (!options.acceptedSenders.some((key) => constantTimeEqual(key, env.sender))) {
    throw new EnvelopeError('unknown_sender');
  }

  const hb = headerBytes(env.profile, env.header);
  const aad = associatedData(hb, env.sender, env.ephemeral, env.recipient);
  if (!crypto.ed25519Verify(env.sender, signatureInput(env.profile, aad, env.ciphertext), env.signature)) {
    throw new EnvelopeError('bad_signature');
  }

  const shared = crypto.x25519SharedSecret(options.recipientExchangePrivateKey, env.ephemeral);
  if (isAllZero(shared)) throw new EnvelopeError('low_order_key');
  const { key, nonce } = deriveKeys(crypto, env.profile, shared, env.ephemeral, env.recipient);
  const plaintext = crypto.chacha20Poly1305Open(key, nonce, env.ciphertext, aad);
  wipe(shared, key, nonce);
  if (!plaintext) throw new EnvelopeError('decrypt_failed');

  const message = matchPlaintextHeader(env.profile, env.header, plaintext);
  return {
    profile: env.profile,
    header: env.header,
    headerFields: headerObject(env.profile, env.header),
    sender: env.sender,
    plaintext,
    message,
  };
}

/** Opens wire text or its UTF-8 bytes; the size limit is checked before parsing. */
export function openEnvelopeText(
  crypto: EnvelopeCrypto,
  text: string | Uint8Array,
  options: OpenOptions,
): OpenedEnvelope {
  const limit = checkOptions(options);
  return openEnvelope(crypto, parseWireText(text, limit), options);
}
