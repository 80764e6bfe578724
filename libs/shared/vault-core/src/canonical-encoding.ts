// Injective byte encodings for AAD and signed bytes: every variable-length field is
// length-prefixed (u32 big-endian), every other field has a fixed width.
import { concatBytes, u32be, utf8Encode } from '@arslan/util';

export function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  return concatBytes(u32be(bytes.length), bytes);
}

export function u64be(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('u64be: out of range');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), false);
  return out;
}

/** A domain tag: its ASCII bytes, length-prefixed. */
export function domainTag(tag: string): Uint8Array {
  return lengthPrefixed(utf8Encode(tag));
}
