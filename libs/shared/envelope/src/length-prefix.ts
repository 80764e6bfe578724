import { concatBytes, u32be, utf8Encode } from '@arslan/util';

/** lp(x) = u32be(len(x)) || x; strings are UTF-8 exactly as given (no normalisation). */
export function lp(part: Uint8Array | string): Uint8Array {
  const bytes = typeof part === 'string' ? utf8Encode(part) : part;
  return concatBytes(u32be(bytes.length), bytes);
}

export function lps(...parts: (Uint8Array | string)[]): Uint8Array {
  return concatBytes(...parts.map(lp));
}
