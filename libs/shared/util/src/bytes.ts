// Byte helpers shared by every platform. Strict on purpose: a decoder that
// accepted two spellings of the same bytes would let a mutated wire pass.
import { base64urlnopad } from '@scure/base';

const HEX_RE = /^(?:[0-9a-f]{2})*$/;
const B64URL_RE = /^[A-Za-z0-9_-]*$/;

export function isBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array || (ArrayBuffer.isView(value) && value.constructor.name === 'Uint8Array')
  );
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function u32be(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError('u32be: out of range');
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

/** Lowercase hex; throws on anything that is not exactly lowercase pairs. */
export function hexToBytes(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !HEX_RE.test(hex))
    throw new TypeError('hexToBytes: expected lowercase hex pairs');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Node's Buffer when present (found at run time, never imported), for its native base64. */
type NativeBuffer = {
  from(data: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64url'): string };
  from(text: string, encoding: 'base64url'): Uint8Array;
};
const nativeBuffer = (globalThis as { Buffer?: NativeBuffer }).Buffer;

export function toBase64Url(bytes: Uint8Array): string {
  if (nativeBuffer)
    return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64url');
  return base64urlnopad.encode(bytes);
}

const B64URL_VALUE = (char: number): number =>
  char >= 65 && char <= 90
    ? char - 65
    : char >= 97 && char <= 122
      ? char - 71
      : char >= 48 && char <= 57
        ? char + 4
        : char === 45
          ? 62
          : 63;

/**
 * base64url without padding, canonical only: the alphabet is checked, and the
 * unused low bits of the last character must be zero, so no two spellings decode
 * to the same bytes (padding, whitespace and non-zero trailing bits are refused).
 * Returns undefined instead of throwing so callers map it to their own error.
 */
export function fromBase64UrlStrict(text: string): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 === 1 || !B64URL_RE.test(text)) return undefined;
  const rest = text.length % 4;
  if (rest !== 0) {
    const last = B64URL_VALUE(text.charCodeAt(text.length - 1));
    if ((rest === 2 && (last & 0x0f) !== 0) || (rest === 3 && (last & 0x03) !== 0)) return undefined;
  }
  if (nativeBuffer) {
    const decoded = nativeBuffer.from(text, 'base64url');
    return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.length);
  }
  try {
    return base64urlnopad.decode(text);
  } catch {
    return undefined;
  }
}

const encoder = new TextEncoder();
const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function utf8Encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/** UTF-8 decode that refuses invalid sequences instead of substituting U+FFFD. */
export function utf8DecodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return fatalDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Constant-time comparison for equal-length secrets (length itself is not secret). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

export function isAllZero(bytes: Uint8Array): boolean {
  let acc = 0;
  for (const b of bytes) acc |= b;
  return acc === 0;
}

/** Overwrites a key buffer we own; see THREAT-13 for the limits of this. */
export function wipe(...buffers: Uint8Array[]): void {
  for (const buffer of buffers) buffer.fill(0);
}
