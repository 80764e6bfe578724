import { concatBytes } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { lps } from './length-prefix';
import type { EnvelopeProfile } from './profiles';

// The byte strings of envelope-format.md "Sealing", steps 3-7. Seal and open
// both build them here so the two sides cannot drift apart.

const LABEL = 'arslan-envelope/v1';

export function headerBytes(profile: EnvelopeProfile, header: readonly string[]): Uint8Array {
  return lps(LABEL, profile, ...header);
}

export interface EnvelopeKeys {
  key: Uint8Array;
  nonce: Uint8Array;
}

export function deriveKeys(
  crypto: EnvelopeCrypto,
  profile: EnvelopeProfile,
  shared: Uint8Array,
  ephemeralPublic: Uint8Array,
  recipientPublic: Uint8Array,
): EnvelopeKeys {
  const okm = crypto.hkdfSha256(
    shared,
    concatBytes(ephemeralPublic, recipientPublic),
    lps(`${LABEL} key`, profile),
    44,
  );
  return { key: okm.slice(0, 32), nonce: okm.slice(32, 44) };
}

export function associatedData(
  hb: Uint8Array,
  sender: Uint8Array,
  ephemeral: Uint8Array,
  recipient: Uint8Array,
) {
  return concatBytes(hb, sender, ephemeral, recipient);
}

export function signatureInput(
  profile: EnvelopeProfile,
  aad: Uint8Array,
  ciphertext: Uint8Array,
): Uint8Array {
  // lps(label, P) || hb || S || E || R || c, and aad is exactly hb || S || E || R.
  return concatBytes(lps(`${LABEL} sig`, profile), aad, ciphertext);
}
