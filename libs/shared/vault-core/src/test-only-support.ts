// NOT FOR PRODUCTION. Deterministic stand-ins used by specs and the vector generator.
// Not exported from index.ts. The real KDF is Argon2id (PasswordKdf adapter in libs/desktop/vault).
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, u32be, utf8Encode } from '@arslan/util';
import type { PasswordKdf, RandomSource } from './ports';

/** A fast fake of the VAULT-4 KDF: HKDF-SHA256(password, salt, "arslan test-only kdf"). NOT Argon2id. */
export const testOnlyKdf: PasswordKdf = {
  deriveKey: async (password, salt) =>
    hkdf(sha256, password, salt, utf8Encode('arslan test-only kdf, not argon2id'), 32),
};

/** Deterministic bytes: SHA-256(label || u32be(block)) blocks. Never use for real keys. */
export function testOnlyRandom(label: string): RandomSource {
  let block = 0;
  return {
    randomBytes(length: number): Uint8Array {
      const out = new Uint8Array(length);
      for (let offset = 0; offset < length; offset += 32) {
        const digest = sha256(concatBytes(utf8Encode(label), u32be(block++)));
        out.set(digest.subarray(0, Math.min(32, length - offset)), offset);
      }
      return out;
    },
  };
}

/** A RandomSource over testOnlyRandom that remembers every buffer it handed out. */
export function recordingRandom(label: string): RandomSource & { issued: Uint8Array[] } {
  const inner = testOnlyRandom(label);
  const issued: Uint8Array[] = [];
  return {
    issued,
    randomBytes(length: number): Uint8Array {
      const out = inner.randomBytes(length);
      issued.push(out);
      return out;
    },
  };
}

/** Flips the low bit of one byte in a copy. */
export function flipByte(bytes: Uint8Array, index: number): Uint8Array {
  const out = bytes.slice();
  out[index] = (out[index] as number) ^ 0x01;
  return out;
}
