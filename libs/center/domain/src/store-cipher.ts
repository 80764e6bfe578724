// CTR-5/CTR-6: the saas store is encrypted by the server with a key derived from the operator's
// store password. This is server-side encryption: the operator can read unlocked plaintext.
// XChaCha20-Poly1305 (24-byte random nonces), key = scrypt(password, salt) (N=2^15, r=8, p=1).
import { randomBytes, scryptSync } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { CenterError } from './center.errors';

const CHECK_TEXT = 'arslan-center-store/v1';

export interface StoreKeyFile {
  readonly v: 1;
  readonly salt: string;
  /** Encrypts CHECK_TEXT: a wrong password fails at start, not on first read. */
  readonly check: string;
}

export class StoreCipher {
  private constructor(private readonly key: Uint8Array) {}

  static create(password: string): { cipher: StoreCipher; file: StoreKeyFile } {
    const salt = randomBytes(16);
    const cipher = new StoreCipher(derive(password, salt));
    return {
      cipher,
      file: { v: 1, salt: salt.toString('base64url'), check: cipher.seal(CHECK_TEXT, 'check') },
    };
  }

  static open(password: string, file: StoreKeyFile): StoreCipher {
    const cipher = new StoreCipher(derive(password, Buffer.from(file.salt, 'base64url')));
    try {
      if (cipher.open(file.check, 'check') === CHECK_TEXT) return cipher;
    } catch {
      /* fall through */
    }
    throw new CenterError('store_password_invalid', 'the store password does not open this store');
  }

  /** nonce ‖ ciphertext ‖ tag, base64url; `aad` binds the value to its row. */
  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(24);
    const ct = xchacha20poly1305(this.key, nonce, new TextEncoder().encode(aad)).encrypt(
      new TextEncoder().encode(plaintext),
    );
    return Buffer.concat([nonce, ct]).toString('base64url');
  }

  open(sealed: string, aad: string): string {
    const raw = Buffer.from(sealed, 'base64url');
    const pt = xchacha20poly1305(this.key, raw.subarray(0, 24), new TextEncoder().encode(aad)).decrypt(
      raw.subarray(24),
    );
    return new TextDecoder().decode(pt);
  }
}

function derive(password: string, salt: Uint8Array): Uint8Array {
  return new Uint8Array(scryptSync(password, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }));
}
