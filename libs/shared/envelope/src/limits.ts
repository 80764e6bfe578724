/** Sizes fixed by envelope-format.md. */
export const KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;
export const TAG_BYTES = 16;
export const MAX_HEADER_VALUE_BYTES = 256;
/** Default ciphertext limit (c includes the tag): 1 MiB, the spec's default for bridge messages. */
export const DEFAULT_MAX_CIPHERTEXT_BYTES = 1024 * 1024;
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

/** Longest unpadded base64url text that can decode to `bytes` bytes. */
export function maxBase64UrlLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}
