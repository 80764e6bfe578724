// Input checks shared by every entry point. All failures are `malformed`.
import { isBytes, utf8Encode } from '@arslan/util';
import { MAX_EPOCH, MAX_ID_BYTES } from './format-constants';
import { VaultFormatError } from './vault-core.errors';

const HEX64_RE = /^[0-9a-f]{64}$/;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function assertBytes(value: unknown, what: string, length?: number): Uint8Array {
  if (!isBytes(value)) throw new VaultFormatError('malformed', `${what} must be a Uint8Array`);
  if (length !== undefined && value.length !== length)
    throw new VaultFormatError('malformed', `${what} must be ${length} bytes`);
  return value;
}

/** A vault or asset id: a non-empty, well-formed string of at most MAX_ID_BYTES UTF-8 bytes. */
export function idBytes(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || value.length === 0 || LONE_SURROGATE_RE.test(value))
    throw new VaultFormatError('malformed', `${what} must be a non-empty well-formed string`);
  const bytes = utf8Encode(value);
  if (bytes.length > MAX_ID_BYTES)
    throw new VaultFormatError('malformed', `${what} exceeds ${MAX_ID_BYTES} bytes`);
  return bytes;
}

export function assertEpoch(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_EPOCH)
    throw new VaultFormatError('malformed', 'epoch must be an integer in [0, 2^32-1]');
  return value;
}

export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && HEX64_RE.test(value);
}

export function assertHex64(value: unknown, what: string): string {
  if (!isHex64(value)) throw new VaultFormatError('malformed', `${what} must be 64 lowercase hex digits`);
  return value;
}
