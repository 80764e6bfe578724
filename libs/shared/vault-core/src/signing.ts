// Ed25519 (VAULT-10, DEV-1) and X25519 key helpers over @noble/curves. Strict RFC 8032
// verification (zip215: false); malformed keys or signatures verify as false, never throw.
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { ED25519_KEY_BYTES, SIGNATURE_BYTES } from './format-constants';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

/**
 * Where Ed25519 comes from. The default is @noble/curves (any platform); a Node host
 * may install the OpenSSL-backed provider of @arslan/envelope-node, which is ~10x
 * faster and passes the same published vectors. Both verify strictly (RFC 8032).
 */
export interface Ed25519Provider {
  readonly name: string;
  sign(seed: Uint8Array, message: Uint8Array): Uint8Array;
  /** false (never a throw) for any invalid key or signature. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  publicKey(seed: Uint8Array): Uint8Array;
}

export const nobleEd25519: Ed25519Provider = {
  name: 'noble',
  sign: (seed, message) => ed25519.sign(message, seed),
  verify: (publicKey, message, signature) => {
    try {
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
  publicKey: (seed) => ed25519.getPublicKey(seed),
};

let provider: Ed25519Provider = nobleEd25519;

/** Installs the Ed25519 implementation every signature in this lib uses (process-wide). */
export function setEd25519Provider(next: Ed25519Provider): void {
  if (
    typeof next?.sign !== 'function' ||
    typeof next.verify !== 'function' ||
    typeof next.publicKey !== 'function'
  ) {
    throw new TypeError('setEd25519Provider: not an Ed25519Provider');
  }
  provider = next;
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== ED25519_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
  return provider.verify(publicKey, message, signature);
}

export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return provider.sign(seed, message);
}

export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  return provider.publicKey(seed);
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
