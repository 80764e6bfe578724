import { isBytes } from '@arslan/util';

/**
 * Caller-supplied keys are the caller's own (not wire input): a wrong type or
 * length is a programming error and throws TypeError, naming the argument only.
 */
export function assertKey(value: unknown, length: number, name: string): asserts value is Uint8Array {
  if (!isBytes(value)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== length) throw new TypeError(`${name} must be ${length} bytes`);
}

export function assertBytesInput(value: unknown, name: string): asserts value is Uint8Array {
  if (!isBytes(value)) throw new TypeError(`${name} must be a Uint8Array`);
}
