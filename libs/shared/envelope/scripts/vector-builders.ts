// Builds the envelope vector cases deterministically. Used by generate-vectors.ts
// (writes vectors/*.json) and by a spec that checks the shipped files are exactly
// what this code makes. Keys come from SHA-256 of fixed labels, never from randomness.
import { bytesToHex, toBase64Url, utf8Encode } from '@arslan/util';
import type { EnvelopeCrypto } from '../src/crypto-backend';
import type { EnvelopeErrorCode } from '../src/envelope.errors';
import { buildPlaintext, type JsonObject } from '../src/plaintext';
import type { EnvelopeProfile } from '../src/profiles';
import { sealWithEphemeral } from '../src/seal';
import { associatedData, headerBytes, signatureInput } from '../src/transcript';
import type { EnvelopeVectorCase } from '../src/vector-case';
import type { EnvelopeWire } from '../src/wire';
import { fromBase64UrlStrict } from '@arslan/util';

export interface Party {
  seed: Uint8Array;
  signingPublic: Uint8Array;
  exchangePrivate: Uint8Array;
  exchangePublic: Uint8Array;
}

export function secretFromLabel(crypto: EnvelopeCrypto, label: string): Uint8Array {
  return crypto.sha256(utf8Encode(`arslan vector key: ${label}`));
}

export function party(crypto: EnvelopeCrypto, name: string): Party {
  const seed = secretFromLabel(crypto, `${name}/ed25519`);
  const exchangePrivate = secretFromLabel(crypto, `${name}/x25519`);
  return {
    seed,
    signingPublic: crypto.ed25519PublicKey(seed),
    exchangePrivate,
    exchangePublic: crypto.x25519PublicKey(exchangePrivate),
  };
}

export interface CaseSpec {
  description: string;
  profile: EnvelopeProfile;
  header: string[];
  body?: JsonObject;
  /** Raw plaintext text instead of buildPlaintext(profile, header, body). */
  plaintext?: string;
  sender?: Party;
  recipient?: Party;
  ephemeralLabel: string;
}

export interface Sealed {
  spec: CaseSpec;
  sender: Party;
  recipient: Party;
  ephemeralPrivate: Uint8Array;
  plaintext: string;
  wire: EnvelopeWire;
}

/** Seals a case; `checkPlaintext: false` only for cases that must fail at the header-match step. */
export function seal(
  crypto: EnvelopeCrypto,
  defaults: { sender: Party; recipient: Party },
  spec: CaseSpec,
  checkPlaintext = true,
): Sealed {
  const sender = spec.sender ?? defaults.sender;
  const recipient = spec.recipient ?? defaults.recipient;
  const plaintext =
    spec.plaintext ?? new TextDecoder().decode(buildPlaintext(spec.profile, spec.header, spec.body ?? {}));
  const ephemeralPrivate = secretFromLabel(crypto, `ephemeral/${spec.ephemeralLabel}`);
  const wire = sealWithEphemeral(
    crypto,
    {
      profile: spec.profile,
      header: spec.header,
      plaintext,
      senderSigningSeed: sender.seed,
      recipientExchangePublicKey: recipient.exchangePublic,
      maxCiphertextBytes: 2 * 1024 * 1024,
    },
    ephemeralPrivate,
    { checkPlaintext },
  );
  return { spec, sender, recipient, ephemeralPrivate, plaintext, wire };
}

/** Re-signs a wire after changing it, so the case fails at a step after the signature. */
export function resign(crypto: EnvelopeCrypto, wire: EnvelopeWire, signer: Party): EnvelopeWire {
  const bytes = (text: string) => fromBase64UrlStrict(text) as Uint8Array;
  const hb = headerBytes(wire.p, wire.h);
  const aad = associatedData(hb, bytes(wire.s), bytes(wire.e), bytes(wire.r));
  const signature = crypto.ed25519Sign(signer.seed, signatureInput(wire.p, aad, bytes(wire.c)));
  return { ...wire, g: toBase64Url(signature) };
}

export function toCase(
  sealed: Sealed,
  result: 'ok' | EnvelopeErrorCode,
  overrides: { description?: string; wire?: unknown; acceptedSenders?: Uint8Array[]; recipient?: Party } = {},
): EnvelopeVectorCase {
  const recipient = overrides.recipient ?? sealed.recipient;
  return {
    description: overrides.description ?? sealed.spec.description,
    profile: sealed.spec.profile,
    sender_ed25519_seed: bytesToHex(sealed.sender.seed),
    recipient_x25519_private: bytesToHex(recipient.exchangePrivate),
    ephemeral_x25519_private: bytesToHex(sealed.ephemeralPrivate),
    accepted_senders: (overrides.acceptedSenders ?? [sealed.sender.signingPublic]).map(bytesToHex),
    header: [...sealed.spec.header],
    plaintext: sealed.plaintext,
    wire: 'wire' in overrides ? overrides.wire : sealed.wire,
    result,
  };
}

/** A case builder for wires derived from `sealed` and expected to fail with `result`. */
export function tamperedFrom(sealed: Sealed) {
  return (description: string, wire: unknown, result: EnvelopeErrorCode): EnvelopeVectorCase =>
    toCase(sealed, result, { description, wire });
}
