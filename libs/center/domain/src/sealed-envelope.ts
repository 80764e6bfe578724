// SEAL-2: the Center checks a `sealed` envelope without being able to open it: the wire
// shape (envelope-format.md "Opening" step 1), the recipient key, a known sender key and the
// sender's Ed25519 signature over the transcript (step 4). Decryption happens on devices only.
import { nobleCrypto } from '@arslan/envelope';
import { concatBytes, fromBase64UrlStrict, u32be, utf8Encode } from '@arslan/util';
import { CenterError } from './center.errors';

export const SEALED_FIELDS = ['card', 'revision', 'from', 'to', 'created_at'] as const;
const MAX_CIPHERTEXT = 64 * 1024;

export interface SealedWire {
  readonly v: 1;
  readonly p: 'sealed';
  readonly h: readonly string[];
  readonly s: string;
  readonly r: string;
  readonly e: string;
  readonly c: string;
  readonly g: string;
}

function lps(...parts: (Uint8Array | string)[]): Uint8Array {
  return concatBytes(
    ...parts.map((p) => {
      const b = typeof p === 'string' ? utf8Encode(p) : p;
      return concatBytes(u32be(b.length), b);
    }),
  );
}

function bad(message: string): never {
  throw new CenterError('bad_envelope', message);
}

function bytes(value: unknown, length: number | null, member: string): Uint8Array {
  const b = typeof value === 'string' ? fromBase64UrlStrict(value) : undefined;
  if (!b || (length !== null && b.length !== length))
    bad(`member ${member} has the wrong encoding or length`);
  return b;
}

/** Shape + signature. Returns the header as {card, revision, from, to, created_at}. */
export function checkSealedWire(
  wire: unknown,
  sender: { ed25519: string },
): Record<(typeof SEALED_FIELDS)[number], string> {
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) bad('envelope must be an object');
  const w = wire as Record<string, unknown>;
  const keys = Object.keys(w).sort();
  if (keys.join(',') !== 'c,e,g,h,p,r,s,v') bad('envelope members must be exactly v,p,h,s,r,e,c,g');
  if (w.v !== 1 || w.p !== 'sealed') bad('only v1 sealed-profile envelopes are accepted');
  const h = w.h;
  if (
    !Array.isArray(h) ||
    h.length !== SEALED_FIELDS.length ||
    !h.every((x) => typeof x === 'string' && utf8Encode(x).length <= 256)
  ) {
    bad('header must be five strings of at most 256 bytes');
  }
  const S = bytes(w.s, 32, 's');
  const R = bytes(w.r, 32, 'r');
  const E = bytes(w.e, 32, 'e');
  const c = bytes(w.c, null, 'c');
  const g = bytes(w.g, 64, 'g');
  if (c.length < 16 || c.length > MAX_CIPHERTEXT) bad('ciphertext size out of bounds');
  if (w.s !== sender.ed25519) bad('the envelope is not signed by the named sender device');
  const hb = lps('arslan-envelope/v1', 'sealed', ...(h as string[]));
  const signed = concatBytes(lps('arslan-envelope/v1 sig', 'sealed'), hb, S, E, R, c);
  if (!nobleCrypto.ed25519Verify(S, signed, g)) bad('bad envelope signature');
  const header = h as string[];
  return {
    card: header[0] as string,
    revision: header[1] as string,
    from: header[2] as string,
    to: header[3] as string,
    created_at: header[4] as string,
  };
}

/** SEAL-5: a device authorisation is signed by an existing device, never by the Center. */
export function deviceAuthorizationBytes(
  vault: string,
  member: string,
  deviceId: string,
  ed25519: string,
  x25519: string,
): Uint8Array {
  return lps('arslan-center-device-auth/v1', vault, member, deviceId, ed25519, x25519);
}

export function verifyDeviceAuthorization(
  signerEd25519: string,
  message: Uint8Array,
  signature: string,
): boolean {
  const pub = fromBase64UrlStrict(signerEd25519);
  const sig = fromBase64UrlStrict(signature);
  if (!pub || pub.length !== 32 || !sig || sig.length !== 64) return false;
  return nobleCrypto.ed25519Verify(pub, message, sig);
}

export function fingerprintOf(ed25519: string, x25519: string): string | null {
  const s = fromBase64UrlStrict(ed25519);
  const x = fromBase64UrlStrict(x25519);
  if (!s || s.length !== 32 || !x || x.length !== 32) return null;
  return Buffer.from(nobleCrypto.sha256(lps('arslan-device/v1', s, x))).toString('hex');
}
