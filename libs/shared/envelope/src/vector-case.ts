import { bytesToHex, fromBase64UrlStrict, hexToBytes, toBase64Url, utf8Encode } from '@arslan/util';
import { openAttachment, sealAttachment } from './attachments';
import type { EnvelopeCrypto } from './crypto-backend';
import { ENVELOPE_ERROR_CODES, type EnvelopeErrorCode, isEnvelopeError } from './envelope.errors';
import { openEnvelope } from './open';
import { isEnvelopeProfile, type EnvelopeProfile } from './profiles';
import { sealWithEphemeral } from './seal';

/** One case of a vector file, in the schema of envelope-format.md "Vector files". */
export interface EnvelopeVectorCase {
  description: string;
  profile: EnvelopeProfile;
  sender_ed25519_seed: string;
  recipient_x25519_private: string;
  ephemeral_x25519_private: string;
  accepted_senders: string[];
  header: string[];
  plaintext: string;
  wire: unknown;
  result: 'ok' | EnvelopeErrorCode;
}

/** Attachment cases (same files, marked `"type": "attachment"`). */
export interface AttachmentVectorCase {
  type: 'attachment';
  description: string;
  id: string;
  name: string;
  mime: string;
  file: string;
  file_key: string;
  descriptor: unknown;
  blob: string;
  result: 'ok' | 'attachment_mismatch';
}

export type VectorCase = EnvelopeVectorCase | AttachmentVectorCase;

export interface VectorOutcome {
  description: string;
  passed: boolean;
  /** Why it failed; never contains key material beyond what the vector file itself holds. */
  reason?: string;
}

const ENVELOPE_CASE_KEYS = [
  'description',
  'profile',
  'sender_ed25519_seed',
  'recipient_x25519_private',
  'ephemeral_x25519_private',
  'accepted_senders',
  'header',
  'plaintext',
  'wire',
  'result',
];
const ATTACHMENT_CASE_KEYS = [
  'type',
  'description',
  'id',
  'name',
  'mime',
  'file',
  'file_key',
  'descriptor',
  'blob',
  'result',
];

function hasExactKeys(value: object, keys: string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.hasOwn(value, k));
}

/** Parses a vector file's text into cases; throws TypeError naming the bad case. */
export function parseVectorFile(text: string): VectorCase[] {
  const data: unknown = JSON.parse(text);
  if (!Array.isArray(data)) throw new TypeError('vector file must be a JSON array of cases');
  return data.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null) throw new TypeError(`case ${index}: not an object`);
    const isAttachment = (item as { type?: unknown }).type === 'attachment';
    const keys = isAttachment ? ATTACHMENT_CASE_KEYS : ENVELOPE_CASE_KEYS;
    if (!hasExactKeys(item, keys)) throw new TypeError(`case ${index}: members must be ${keys.join(',')}`);
    const result = (item as { result: unknown }).result;
    if (result !== 'ok' && !ENVELOPE_ERROR_CODES.includes(result as EnvelopeErrorCode)) {
      throw new TypeError(`case ${index}: unknown result`);
    }
    if (!isAttachment && !isEnvelopeProfile((item as { profile: unknown }).profile)) {
      throw new TypeError(`case ${index}: unknown profile`);
    }
    return item as VectorCase;
  });
}

function errorCodeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return isEnvelopeError(error) ? error.code : `untyped error ${(error as Error)?.name ?? 'unknown'}`;
  }
}

function sameWire(expected: unknown, actual: Record<string, unknown>): boolean {
  if (typeof expected !== 'object' || expected === null) return false;
  const keys = Object.keys(actual);
  return (
    Object.keys(expected).length === keys.length &&
    keys.every((k) => JSON.stringify((expected as Record<string, unknown>)[k]) === JSON.stringify(actual[k]))
  );
}

function checkEnvelopeCase(crypto: EnvelopeCrypto, c: EnvelopeVectorCase): string | undefined {
  const options = {
    recipientExchangePrivateKey: hexToBytes(c.recipient_x25519_private),
    acceptedSenders: c.accepted_senders.map(hexToBytes),
  };
  if (c.result !== 'ok') {
    const code = errorCodeOf(() => openEnvelope(crypto, c.wire, options));
    return code === c.result ? undefined : `expected ${c.result}, got ${code}`;
  }
  const input = {
    profile: c.profile,
    header: c.header,
    plaintext: c.plaintext,
    senderSigningSeed: hexToBytes(c.sender_ed25519_seed),
    recipientExchangePublicKey: crypto.x25519PublicKey(options.recipientExchangePrivateKey),
  };
  const ephemeral = hexToBytes(c.ephemeral_x25519_private);
  const sealed = sealWithEphemeral(crypto, input, ephemeral, { checkPlaintext: true });
  if (!sameWire(c.wire, sealed as unknown as Record<string, unknown>))
    return 'sealing did not reproduce wire';
  let opened: ReturnType<typeof openEnvelope>;
  try {
    opened = openEnvelope(crypto, c.wire, options);
  } catch (error) {
    return `opening failed: ${isEnvelopeError(error) ? error.code : String(error)}`;
  }
  return bytesToHex(opened.plaintext) === bytesToHex(utf8Encode(c.plaintext))
    ? undefined
    : 'plaintext differs';
}

function checkAttachmentCase(crypto: EnvelopeCrypto, c: AttachmentVectorCase): string | undefined {
  const blob = fromBase64UrlStrict(c.blob);
  if (!blob) return 'blob is not base64url';
  if (c.result !== 'ok') {
    const code = errorCodeOf(() => openAttachment(crypto, c.descriptor, blob));
    return code === c.result ? undefined : `expected ${c.result}, got ${code}`;
  }
  const content = hexToBytes(c.file);
  const sealed = sealAttachment(
    crypto,
    { id: c.id, name: c.name, mime: c.mime, content },
    hexToBytes(c.file_key),
  );
  if (toBase64Url(sealed.blob) !== c.blob) return 'sealing did not reproduce blob';
  if (!sameWire(c.descriptor, sealed.descriptor as unknown as Record<string, unknown>)) {
    return 'sealing did not reproduce descriptor';
  }
  const code = errorCodeOf(() => openAttachment(crypto, c.descriptor, blob));
  return code === 'ok' ? undefined : `opening failed: ${code}`;
}

/** Runs one vector case against one backend. */
export function checkVectorCase(crypto: EnvelopeCrypto, c: VectorCase): VectorOutcome {
  let reason: string | undefined;
  try {
    reason = 'type' in c ? checkAttachmentCase(crypto, c) : checkEnvelopeCase(crypto, c);
  } catch (error) {
    reason = `runner error: ${(error as Error)?.message ?? String(error)}`;
  }
  return reason === undefined
    ? { description: c.description, passed: true }
    : { description: c.description, passed: false, reason };
}
