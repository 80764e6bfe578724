import {
  bytesToHex,
  constantTimeEqual,
  fromBase64UrlStrict,
  isBytes,
  toBase64Url,
  utf8Encode,
} from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { EnvelopeError } from './envelope.errors';
import { assertBytesInput } from './key-assertions';
import { KEY_BYTES, MAX_ATTACHMENT_BYTES, TAG_BYTES } from './limits';
import { lps } from './length-prefix';
import { isWellFormedText } from './wire';

/** The per-file entry a message plaintext lists (envelope-format.md, "Attachments"). */
export interface AttachmentDescriptor {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  blob_sha256: string;
  key: string;
}

const DESCRIPTOR_MEMBERS = ['id', 'name', 'mime', 'size', 'sha256', 'blob_sha256', 'key'] as const;
const ZERO_NONCE = new Uint8Array(12);
const HEX64 = /^[0-9a-f]{64}$/;
const MAX_TEXT_BYTES = 1024;

function attachmentAad(id: string): Uint8Array {
  return lps('arslan-attachment/v1', id);
}

function mismatch(detail: string): EnvelopeError {
  return new EnvelopeError('attachment_mismatch', detail);
}

function checkText(value: unknown, member: string): string {
  if (typeof value !== 'string' || !isWellFormedText(value) || utf8Encode(value).length > MAX_TEXT_BYTES) {
    throw mismatch(`descriptor ${member} must be a string of at most ${MAX_TEXT_BYTES} bytes`);
  }
  return value;
}

/** Validates an untrusted descriptor (from an opened message) member by member. */
export function parseAttachmentDescriptor(value: unknown): AttachmentDescriptor {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw mismatch('descriptor not an object');
  const keys = Object.keys(value);
  if (
    keys.length !== DESCRIPTOR_MEMBERS.length ||
    !DESCRIPTOR_MEMBERS.every((m) => Object.hasOwn(value, m))
  ) {
    throw mismatch('descriptor members differ');
  }
  const d = value as Record<string, unknown>;
  const size = d['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0 || size > MAX_ATTACHMENT_BYTES) {
    throw mismatch('descriptor size out of range');
  }
  for (const member of ['sha256', 'blob_sha256'] as const) {
    if (typeof d[member] !== 'string' || !HEX64.test(d[member] as string))
      throw mismatch(`descriptor ${member}`);
  }
  const key = typeof d['key'] === 'string' ? fromBase64UrlStrict(d['key']) : undefined;
  if (!key || key.length !== KEY_BYTES) throw mismatch('descriptor key');
  return {
    id: checkText(d['id'], 'id'),
    name: checkText(d['name'], 'name'),
    mime: checkText(d['mime'], 'mime'),
    size,
    sha256: d['sha256'] as string,
    blob_sha256: d['blob_sha256'] as string,
    key: d['key'] as string,
  };
}

export interface SealedAttachment {
  descriptor: AttachmentDescriptor;
  blob: Uint8Array;
}

/** Encrypts one file under a fresh random file key. */
export function sealAttachment(
  crypto: EnvelopeCrypto,
  file: { id: string; name: string; mime: string; content: Uint8Array },
  fileKey: Uint8Array = crypto.randomBytes(KEY_BYTES),
): SealedAttachment {
  assertBytesInput(file.content, 'content');
  for (const member of ['id', 'name', 'mime'] as const) {
    if (typeof file[member] !== 'string') throw new TypeError(`attachment ${member} must be a string`);
    checkText(file[member], member);
  }
  if (file.content.length > MAX_ATTACHMENT_BYTES)
    throw new EnvelopeError('too_large', 'attachment over 20 MiB');
  if (!isBytes(fileKey) || fileKey.length !== KEY_BYTES) throw new TypeError('fileKey must be 32 bytes');
  const blob = crypto.chacha20Poly1305Seal(fileKey, ZERO_NONCE, file.content, attachmentAad(file.id));
  const descriptor = parseAttachmentDescriptor({
    id: file.id,
    name: file.name,
    mime: file.mime,
    size: file.content.length,
    sha256: bytesToHex(crypto.sha256(file.content)),
    blob_sha256: bytesToHex(crypto.sha256(blob)),
    key: toBase64Url(fileKey),
  });
  return { descriptor, blob };
}

/**
 * Accepts a file only if the blob hash, the tag, and the plaintext's size and
 * hash all match the descriptor; anything else is attachment_mismatch.
 */
export function openAttachment(
  crypto: EnvelopeCrypto,
  descriptorInput: unknown,
  blob: Uint8Array,
): Uint8Array {
  const descriptor = parseAttachmentDescriptor(descriptorInput);
  if (!isBytes(blob)) throw mismatch('blob must be bytes');
  if (blob.length !== descriptor.size + TAG_BYTES) throw mismatch('blob length differs from size');
  const blobHash = crypto.sha256(blob);
  if (!constantTimeEqual(utf8Encode(bytesToHex(blobHash)), utf8Encode(descriptor.blob_sha256))) {
    throw mismatch('blob hash differs');
  }
  const key = fromBase64UrlStrict(descriptor.key) as Uint8Array;
  const file = crypto.chacha20Poly1305Open(key, ZERO_NONCE, blob, attachmentAad(descriptor.id));
  key.fill(0);
  if (!file) throw mismatch('blob failed authentication');
  if (file.length !== descriptor.size || bytesToHex(crypto.sha256(file)) !== descriptor.sha256) {
    throw mismatch('file size or hash differs');
  }
  return file;
}
