// The catalogue of shipped vector files: file name -> cases. See vectors/README.md.
import { bytesToHex, fromBase64UrlStrict, toBase64Url } from '@arslan/util';
import { sealAttachment } from '../src/attachments';
import type { EnvelopeCrypto } from '../src/crypto-backend';
import { deviceFingerprint } from '../src/device-keys';
import type { AttachmentVectorCase, VectorCase } from '../src/vector-case';
import type { EnvelopeWire } from '../src/wire';
import {
  type CaseSpec,
  type Party,
  party,
  resign,
  seal,
  secretFromLabel,
  tamperedFrom,
  toCase,
} from './vector-builders';

const MiB = 1024 * 1024;

function flipByte(text: string, index: number): string {
  const bytes = fromBase64UrlStrict(text) as Uint8Array;
  bytes[index] = (bytes[index] as number) ^ 0x01;
  return toBase64Url(bytes);
}

function id(crypto: EnvelopeCrypto, p: Party): string {
  return deviceFingerprint(crypto, p.signingPublic, p.exchangePublic);
}

function bridgeCases(crypto: EnvelopeCrypto, mac: Party, phone: Party, stranger: Party): VectorCase[] {
  const d = { sender: mac, recipient: phone };
  const header = (kind: string, seq: string, notify = '0') => [
    kind,
    id(crypto, mac),
    id(crypto, phone),
    seq,
    notify,
    '1767225600000',
  ];
  const ok = seal(crypto, d, {
    description: 'bridge: task event with a non-ASCII body',
    profile: 'bridge',
    header: header('event', '1'),
    body: { type: 'task.progress', text: 'Résumé des tâches — 進捗 50%' },
    ephemeralLabel: 'bridge-1',
  });
  const empty = seal(crypto, d, {
    description: 'bridge: empty body (plaintext holds only the header)',
    profile: 'bridge',
    header: header('ack', '2'),
    ephemeralLabel: 'bridge-2',
  });
  const approval = seal(
    crypto,
    { sender: phone, recipient: mac },
    {
      description: 'bridge: phone to Mac approval with notify=1',
      profile: 'bridge',
      header: ['approval', id(crypto, phone), id(crypto, mac), '18446744073709551615', '1', '1767225600001'],
      body: { type: 'card.answer', call_id: 'call_01', choice: 'once' },
      ephemeralLabel: 'bridge-3',
    },
  );
  const long = seal(crypto, d, {
    description: 'bridge: a header value of exactly 256 bytes (the limit) in UTF-8',
    profile: 'bridge',
    header: ['event', id(crypto, mac), id(crypto, phone), '3', '0', '日'.repeat(85) + 'x'],
    ephemeralLabel: 'bridge-4',
  });
  const w = ok.wire;
  const bad = tamperedFrom(ok);
  const lowOrder: EnvelopeWire = resign(crypto, { ...w, e: toBase64Url(new Uint8Array(32)) }, mac);
  const mismatched = seal(
    crypto,
    d,
    {
      description: 'bridge: validly signed and encrypted, but the plaintext header says seq 2',
      profile: 'bridge',
      header: header('event', '1'),
      plaintext: JSON.stringify({
        header: {
          kind: 'event',
          from: id(crypto, mac),
          to: id(crypto, phone),
          seq: '2',
          notify: '0',
          sent_at: '1767225600000',
        },
      }),
      ephemeralLabel: 'bridge-5',
    },
    false,
  );
  const extraField = seal(
    crypto,
    d,
    {
      description: 'bridge: plaintext header carries an extra field',
      profile: 'bridge',
      header: header('event', '1'),
      plaintext: JSON.stringify({
        header: {
          kind: 'event',
          from: id(crypto, mac),
          to: id(crypto, phone),
          seq: '1',
          notify: '0',
          sent_at: '1767225600000',
          x: '1',
        },
      }),
      ephemeralLabel: 'bridge-6',
    },
    false,
  );
  const notJson = seal(
    crypto,
    d,
    {
      description: 'bridge: plaintext is not JSON',
      profile: 'bridge',
      header: header('event', '1'),
      plaintext: 'hello',
      ephemeralLabel: 'bridge-7',
    },
    false,
  );
  const arrayPlain = seal(
    crypto,
    d,
    {
      description: 'bridge: plaintext is a JSON array, not an object',
      profile: 'bridge',
      header: header('event', '1'),
      plaintext: '[]',
      ephemeralLabel: 'bridge-8',
    },
    false,
  );
  return [
    toCase(ok, 'ok'),
    toCase(empty, 'ok'),
    toCase(approval, 'ok'),
    toCase(long, 'ok'),
    bad('bridge: version 2', { ...w, v: 2 }, 'malformed'),
    bad('bridge: an extra member', { ...w, x: '' }, 'malformed'),
    bad(
      'bridge: the signature member missing',
      { v: w.v, p: w.p, h: w.h, s: w.s, r: w.r, e: w.e, c: w.c },
      'malformed',
    ),
    bad('bridge: unknown profile', { ...w, p: 'mailbox' }, 'malformed'),
    bad('bridge: five header values for a six-field profile', { ...w, h: w.h.slice(0, 5) }, 'malformed'),
    bad(
      'bridge: a header value that is a number',
      { ...w, h: [...w.h.slice(0, 3), 1, ...w.h.slice(4)] },
      'malformed',
    ),
    bad(
      'bridge: a header value of 257 bytes',
      { ...w, h: [...w.h.slice(0, 5), '日'.repeat(85) + 'xy'] },
      'malformed',
    ),
    bad(
      'bridge: sender key of 31 bytes',
      { ...w, s: toBase64Url((fromBase64UrlStrict(w.s) as Uint8Array).slice(0, 31)) },
      'malformed',
    ),
    bad('bridge: signature with base64 padding', { ...w, g: w.g + '==' }, 'malformed'),
    bad(
      'bridge: ephemeral key in non-canonical base64url (non-zero trailing bits)',
      { ...w, e: w.e.slice(0, -1) + String.fromCharCode(w.e.charCodeAt(w.e.length - 1) + 1) },
      'malformed',
    ),
    bad('bridge: ciphertext shorter than the tag', { ...w, c: toBase64Url(new Uint8Array(15)) }, 'malformed'),
    bad('bridge: wire is not an object', 'not an envelope', 'malformed'),
    toCase(ok, 'wrong_recipient', {
      description: 'bridge: opened by a device it was not sealed to',
      recipient: stranger,
    }),
    toCase(ok, 'unknown_sender', {
      description: 'bridge: sender not in the accepted set',
      acceptedSenders: [stranger.signingPublic],
    }),
    bad('bridge: one ciphertext bit flipped', { ...w, c: flipByte(w.c, 0) }, 'bad_signature'),
    bad(
      'bridge: header seq changed after signing',
      { ...w, h: [...w.h.slice(0, 3), '9', ...w.h.slice(4)] },
      'bad_signature',
    ),
    bad('bridge: ephemeral key replaced (signature covers E)', { ...w, e: empty.wire.e }, 'bad_signature'),
    bad('bridge: signed by another key than s', resign(crypto, w, stranger), 'bad_signature'),
    bad('bridge: low-order ephemeral key (u = 0), validly signed', lowOrder, 'low_order_key'),
    bad(
      'bridge: ciphertext tampered then re-signed by the sender',
      resign(crypto, { ...w, c: flipByte(w.c, 3) }, mac),
      'decrypt_failed',
    ),
    bad(
      'bridge: ciphertext swapped with another envelope and re-signed',
      resign(crypto, { ...w, c: empty.wire.c }, mac),
      'decrypt_failed',
    ),
    toCase(mismatched, 'header_mismatch'),
    toCase(extraField, 'header_mismatch'),
    toCase(notJson, 'header_mismatch'),
    toCase(arrayPlain, 'header_mismatch'),
  ];
}

function transferCases(crypto: EnvelopeCrypto, laptop: Party, desktop: Party, stranger: Party): VectorCase[] {
  const d = { sender: laptop, recipient: desktop };
  const header = (vault: string, purpose: string) => [
    id(crypto, laptop),
    id(crypto, desktop),
    vault,
    purpose,
    '1767225600000',
  ];
  const ok = seal(crypto, d, {
    description: 'transfer: non-ASCII vault and purpose (no Unicode normalisation)',
    profile: 'transfer',
    header: header('家族の保管庫', 'pairing ✓ café 🔐'),
    body: { package: 'approval', epoch: 3 },
    ephemeralLabel: 'transfer-1',
  });
  const decomposed = seal(crypto, d, {
    description: 'transfer: decomposed e + U+0301 is kept as given, distinct from é',
    profile: 'transfer',
    header: header('cafe\u0301', 'sync-export'),
    body: { revisions: [] },
    ephemeralLabel: 'transfer-2',
  });
  const empty = seal(crypto, d, {
    description: 'transfer: empty body and empty header values',
    profile: 'transfer',
    header: header('', ''),
    ephemeralLabel: 'transfer-3',
  });
  const w = ok.wire;
  const bad = tamperedFrom(ok);
  const sealedNames = seal(
    crypto,
    d,
    {
      description: 'transfer: plaintext header uses the sealed profile field names',
      profile: 'transfer',
      header: header('v1', 'sync-export'),
      plaintext: JSON.stringify({
        header: {
          card: id(crypto, laptop),
          revision: id(crypto, desktop),
          from: 'v1',
          to: 'sync-export',
          created_at: '1767225600000',
        },
      }),
      ephemeralLabel: 'transfer-4',
    },
    false,
  );
  return [
    toCase(ok, 'ok'),
    toCase(decomposed, 'ok'),
    toCase(empty, 'ok'),
    bad(
      'transfer: relabelled as sealed (same arity; the profile is signed)',
      { ...w, p: 'sealed' },
      'bad_signature',
    ),
    toCase(decomposed, 'bad_signature', {
      description: 'transfer: decomposed vault name replaced by its NFC form after signing',
      wire: { ...decomposed.wire, h: [w.h[0], w.h[1], 'cafe\u0301'.normalize('NFC'), 'sync-export', w.h[4]] },
    }),
    toCase(ok, 'wrong_recipient', { description: 'transfer: wrong recipient key', recipient: stranger }),
    toCase(ok, 'unknown_sender', { description: 'transfer: empty accepted set', acceptedSenders: [] }),
    bad(
      'transfer: low-order ephemeral key (u = 1), validly signed',
      resign(crypto, { ...w, e: toBase64Url(new Uint8Array([1, ...new Uint8Array(31)])) }, laptop),
      'low_order_key',
    ),
    bad(
      'transfer: tag flipped then re-signed',
      resign(crypto, { ...w, c: flipByte(w.c, (fromBase64UrlStrict(w.c) as Uint8Array).length - 1) }, laptop),
      'decrypt_failed',
    ),
    toCase(sealedNames, 'header_mismatch'),
    bad(
      'transfer: recipient key truncated to 31 bytes',
      { ...w, r: toBase64Url((fromBase64UrlStrict(w.r) as Uint8Array).slice(0, 31)) },
      'malformed',
    ),
  ];
}

function sealedCases(crypto: EnvelopeCrypto, center: Party, device: Party, stranger: Party): VectorCase[] {
  const d = { sender: center, recipient: device };
  const header = (card: string, revision: string) => [
    card,
    revision,
    id(crypto, center),
    id(crypto, device),
    '1767225600000',
  ];
  const ok = seal(crypto, d, {
    description: 'sealed: an OTP secret sealed to one device; non-ASCII card id',
    profile: 'sealed',
    header: header('カード-0001', 'rev-7'),
    body: { secret: 'JBSWY3DPEHPK3PXP', kind: 'totp' },
    ephemeralLabel: 'sealed-1',
  });
  const empty = seal(crypto, d, {
    description: 'sealed: empty body',
    profile: 'sealed',
    header: header('card-2', 'rev-1'),
    ephemeralLabel: 'sealed-2',
  });
  const w = ok.wire;
  const bad = tamperedFrom(ok);
  const otherCard = seal(
    crypto,
    d,
    {
      description: 'sealed: plaintext header names another card (a replayed secret)',
      profile: 'sealed',
      header: header('card-3', 'rev-1'),
      plaintext: JSON.stringify({
        header: {
          card: 'card-4',
          revision: 'rev-1',
          from: id(crypto, center),
          to: id(crypto, device),
          created_at: '1767225600000',
        },
        secret: 's',
      }),
      ephemeralLabel: 'sealed-3',
    },
    false,
  );
  return [
    toCase(ok, 'ok'),
    toCase(empty, 'ok'),
    bad(
      'sealed: revision changed after signing',
      { ...w, h: [w.h[0], 'rev-8', w.h[2], w.h[3], w.h[4]] },
      'bad_signature',
    ),
    bad('sealed: signature bit flipped', { ...w, g: flipByte(w.g, 10) }, 'bad_signature'),
    toCase(ok, 'wrong_recipient', {
      description: "sealed: a revoked device opening another device's envelope",
      recipient: stranger,
    }),
    toCase(ok, 'unknown_sender', {
      description: 'sealed: sender key not among the known signing keys',
      acceptedSenders: [device.signingPublic],
    }),
    bad(
      'sealed: ciphertext of another card swapped in and re-signed',
      resign(crypto, { ...w, c: empty.wire.c }, center),
      'decrypt_failed',
    ),
    toCase(otherCard, 'header_mismatch'),
    bad('sealed: null wire', null, 'malformed'),
  ];
}

function sizeLimitCases(crypto: EnvelopeCrypto, mac: Party, phone: Party): VectorCase[] {
  const d = { sender: mac, recipient: phone };
  const header = ['file', id(crypto, mac), id(crypto, phone), '4', '0', '1767225600000'];
  const skeleton = `{"header":{"kind":"file","from":"${id(crypto, mac)}","to":"${id(crypto, phone)}","seq":"4","notify":"0","sent_at":"1767225600000"},"pad":""}`;
  const padTo = (ciphertextBytes: number) => 'a'.repeat(ciphertextBytes - 16 - skeleton.length);
  const spec = (description: string, bytes: number, label: string): CaseSpec => ({
    description,
    profile: 'bridge',
    header,
    body: { pad: padTo(bytes) },
    ephemeralLabel: label,
  });
  const atLimit = seal(
    crypto,
    d,
    spec('bridge: ciphertext of exactly 1 MiB (the default limit)', MiB, 'limit-1'),
  );
  const overLimit = seal(
    crypto,
    d,
    spec('bridge: validly signed ciphertext of 1 MiB + 1 byte', MiB + 1, 'limit-2'),
  );
  return [toCase(atLimit, 'ok'), toCase(overLimit, 'too_large')];
}

function attachmentCases(crypto: EnvelopeCrypto): AttachmentVectorCase[] {
  const make = (description: string, fileId: string, name: string, content: Uint8Array, keyLabel: string) => {
    const fileKey = secretFromLabel(crypto, `attachment/${keyLabel}`);
    const sealed = sealAttachment(crypto, { id: fileId, name, mime: 'text/plain', content }, fileKey);
    const base: AttachmentVectorCase = {
      type: 'attachment',
      description,
      id: fileId,
      name,
      mime: 'text/plain',
      file: bytesToHex(content),
      file_key: bytesToHex(fileKey),
      descriptor: sealed.descriptor,
      blob: toBase64Url(sealed.blob),
      result: 'ok',
    };
    return { base, sealed };
  };
  const { base, sealed } = make(
    'attachment: a small file with a non-ASCII name',
    'f-1',
    '報告書 – final.txt',
    new TextEncoder().encode('quarterly report\n'),
    'a1',
  );
  const emptyFile = make('attachment: an empty file', 'f-2', 'empty.txt', new Uint8Array(0), 'a2').base;
  const tampered = sealed.blob.slice();
  tampered[0] = (tampered[0] as number) ^ 1;
  const tamperedHash = bytesToHex(crypto.sha256(tampered));
  const other = make('', 'f-3', 'other.txt', new TextEncoder().encode('quarterly report\n'), 'a3');
  const mismatch = (description: string, patch: Partial<AttachmentVectorCase>): AttachmentVectorCase => ({
    ...base,
    description,
    result: 'attachment_mismatch',
    ...patch,
  });
  const d = sealed.descriptor;
  return [
    base,
    emptyFile,
    mismatch('attachment: blob bit flipped (blob hash differs)', { blob: toBase64Url(tampered) }),
    mismatch('attachment: blob flipped and blob_sha256 updated (tag fails)', {
      blob: toBase64Url(tampered),
      descriptor: { ...d, blob_sha256: tamperedHash },
    }),
    mismatch('attachment: declared size differs', { descriptor: { ...d, size: d.size + 1 } }),
    mismatch('attachment: plaintext sha256 differs', {
      descriptor: { ...d, sha256: bytesToHex(crypto.sha256(new Uint8Array(1))) },
    }),
    mismatch('attachment: another file key', { descriptor: { ...d, key: other.sealed.descriptor.key } }),
    mismatch('attachment: id differs (the id is associated data)', { descriptor: { ...d, id: 'f-9' } }),
    mismatch('attachment: descriptor with an extra member', {
      descriptor: { ...d, url: 'https://example.invalid/' },
    }),
  ];
}

/** file name -> cases, in a fixed order; generation is deterministic. */
export function buildVectorCatalogue(crypto: EnvelopeCrypto): Record<string, VectorCase[]> {
  const mac = party(crypto, 'mac');
  const phone = party(crypto, 'phone');
  const stranger = party(crypto, 'stranger');
  const center = party(crypto, 'center-device');
  return {
    'bridge.json': bridgeCases(crypto, mac, phone, stranger),
    'transfer.json': transferCases(crypto, mac, phone, stranger),
    'sealed.json': sealedCases(crypto, center, phone, stranger),
    'bridge-size-limit.json': sizeLimitCases(crypto, mac, phone),
    'attachments.json': attachmentCases(crypto),
  };
}
