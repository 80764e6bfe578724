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

type Curve = 'Ed25519' | 'X25519';

// Node 20 imports raw 32-byte OKP keys fastest as JWK (DER/PKCS#8 goes through
// OpenSSL's decoders, ~10x slower). A private JWK needs `x`; we derive it first
// and import again with the true value, so nothing rests on how Node treats `x`.
const PLACEHOLDER_X = Buffer.alloc(32).toString('base64url');

function b64(raw: Uint8Array): string {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('base64url');
}

function importPrivate(crv: Curve, raw: Uint8Array, x: string): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv, d: b64(raw), x }, format: 'jwk' });
}

function publicJwkX(key: KeyObject): string {
  const x = createPublicKey(key).export({ format: 'jwk' }).x;
  if (typeof x !== 'string') throw new Error('node crypto: public key export failed');
  return x;
}

function privateKey(crv: Curve, raw: Uint8Array): KeyObject {
  return importPrivate(crv, raw, publicJwkX(importPrivate(crv, raw, PLACEHOLDER_X)));
}

function publicKey(crv: Curve, raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv, x: b64(raw) }, format: 'jwk' });
}

function derivedPublic(crv: Curve, raw: Uint8Array): Uint8Array {
  return bytes(Buffer.from(publicJwkX(importPrivate(crv, raw, PLACEHOLDER_X)), 'base64url'));
}

function bytes(buffer: Buffer | ArrayBuffer): Uint8Array {
  return buffer instanceof ArrayBuffer
    ? new Uint8Array(buffer)
    : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/** node:crypto backend (OpenSSL): ChaCha20-Poly1305, Ed25519, X25519, HKDF. For the daemon and Center. */
export const nodeCrypto: EnvelopeCrypto = {
  name: 'node',
  randomBytes: (length) => bytes(randomBytes(length)),
  sha256: (data) => bytes(createHash('sha256').update(data).digest()),
  hkdfSha256: (ikm, salt, info, length) => bytes(hkdfSync('sha256', ikm, salt, info, length)),
  x25519PublicKey: (priv) => derivedPublic('X25519', priv),
  x25519SharedSecret: (priv, pub) => {
    try {
      return bytes(
        diffieHellman({ privateKey: privateKey('X25519', priv), publicKey: publicKey('X25519', pub) }),
      );
    } catch {
      // OpenSSL refuses to return the all-zero secret of a low-order point.
      return new Uint8Array(32);
    }
  },
  ed25519PublicKey: (seed) => derivedPublic('Ed25519', seed),
  ed25519Sign: (seed, message) => bytes(sign(null, message, privateKey('Ed25519', seed))),
  ed25519Verify: (pub, message, signature) => {
    try {
      return verify(null, message, publicKey('Ed25519', pub), signature);
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
