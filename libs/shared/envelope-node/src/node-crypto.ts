import {
  type KeyObject,
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import type { EnvelopeCrypto } from '@arslan/envelope';

// Raw 32-byte keys wrapped in the fixed DER prefixes of RFC 8410 (PKCS#8 / SPKI).
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');

function privateKey(prefix: Buffer, raw: Uint8Array): KeyObject {
  const der = Buffer.concat([prefix, raw]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function publicKey(prefix: Buffer, raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'spki' });
}

function rawPublic(key: KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

function bytes(buffer: Buffer | ArrayBuffer): Uint8Array {
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/** node:crypto backend (OpenSSL): ChaCha20-Poly1305, Ed25519, X25519, HKDF. For the daemon and Center. */
export const nodeCrypto: EnvelopeCrypto = {
  name: 'node',
  randomBytes: (length) => bytes(randomBytes(length)),
  sha256: (data) => bytes(createHash('sha256').update(data).digest()),
  hkdfSha256: (ikm, salt, info, length) => bytes(hkdfSync('sha256', ikm, salt, info, length)),
  x25519PublicKey: (priv) => rawPublic(createPublicKey(privateKey(X25519_PKCS8, priv))),
  x25519SharedSecret: (priv, pub) => {
    try {
      return bytes(diffieHellman({ privateKey: privateKey(X25519_PKCS8, priv), publicKey: publicKey(X25519_SPKI, pub) }));
    } catch {
      // OpenSSL refuses to return the all-zero secret of a low-order point.
      return new Uint8Array(32);
    }
  },
  ed25519PublicKey: (seed) => rawPublic(createPublicKey(privateKey(ED25519_PKCS8, seed))),
  ed25519Sign: (seed, message) => bytes(sign(null, message, privateKey(ED25519_PKCS8, seed))),
  ed25519Verify: (pub, message, signature) => {
    try {
      return verify(null, message, publicKey(ED25519_SPKI, pub), signature);
    } catch {
      return false;
    }
  },
  chacha20Poly1305Seal: (key, nonce, plaintext, aad) => {
    const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    cipher.setAAD(aad, { plaintextLength: plaintext.length });
    const head = cipher.update(plaintext);
    const tail = cipher.final();
    return bytes(Buffer.concat([head, tail, cipher.getAuthTag()]));
  },
  chacha20Poly1305Open: (key, nonce, sealed, aad) => {
    if (sealed.length < 16) return undefined;
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    decipher.setAAD(aad, { plaintextLength: sealed.length - 16 });
    const head = decipher.update(sealed.subarray(0, sealed.length - 16));
    try {
      return bytes(Buffer.concat([head, decipher.final()]));
    } catch {
      head.fill(0);
      return undefined;
    }
  },
};
