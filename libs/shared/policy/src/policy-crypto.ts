// Ed25519 for policy entries, on @noble/curves (no Node crypto: the phone and
// browser run this too). Verification is strict RFC 8032 (no ZIP-215 leniency).
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes, isBytes } from '@arslan/util';
import { PolicyError } from './policy.errors';

function assertSeed(seed: unknown): asserts seed is Uint8Array {
  if (!isBytes(seed) || seed.length !== 32)
    throw new PolicyError('malformed', 'signer seed must be 32 bytes');
}

/** The member id (identity public key hex) for a 32-byte Ed25519 seed. */
export function memberIdFromSeed(seed: Uint8Array): string {
  assertSeed(seed);
  return bytesToHex(ed25519.getPublicKey(seed));
}

export function signBytes(message: Uint8Array, seed: Uint8Array): string {
  assertSeed(seed);
  return bytesToHex(ed25519.sign(message, seed));
}

/** False for a wrong signature and for keys that are not valid points. */
export function verifyBytes(signatureHex: string, message: Uint8Array, publicKeyHex: string): boolean {
  try {
    return ed25519.verify(hexToBytes(signatureHex), message, hexToBytes(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}
