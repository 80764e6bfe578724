// Ed25519 (VAULT-10, DEV-1) and X25519 key helpers over @noble/curves. Strict RFC 8032
// verification (zip215: false); malformed keys or signatures verify as false, never throw.
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { ED25519_KEY_BYTES, SIGNATURE_BYTES } from './format-constants';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== ED25519_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed);
}

export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(seed);
}

/** DEV-1: the user's identity key. The seed is secret; wipe() it when released. */
export interface UserIdentityKeys {
  seed: Uint8Array;
  publicKey: Uint8Array;
}

/** DEV-3: generated on the device itself, independently for every device. */
export interface DeviceKeys {
  signingSeed: Uint8Array;
  signingPublicKey: Uint8Array;
  exchangePrivateKey: Uint8Array;
  exchangePublicKey: Uint8Array;
}

function seedFrom(random: RandomSource): Uint8Array {
  const seed = random.randomBytes(ED25519_KEY_BYTES);
  if (seed.length !== ED25519_KEY_BYTES)
    throw new VaultFormatError('malformed', 'random source returned a short seed');
  return seed;
}

export function generateUserIdentity(random: RandomSource = systemRandom): UserIdentityKeys {
  const seed = seedFrom(random);
  return { seed, publicKey: ed25519PublicKey(seed) };
}

export function generateDeviceKeys(random: RandomSource = systemRandom): DeviceKeys {
  const signingSeed = seedFrom(random);
  const exchangePrivateKey = seedFrom(random);
  return {
    signingSeed,
    signingPublicKey: ed25519PublicKey(signingSeed),
    exchangePrivateKey,
    exchangePublicKey: x25519.getPublicKey(exchangePrivateKey),
  };
}
