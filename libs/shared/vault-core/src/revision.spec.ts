import { bytesToHex, isAllZero, utf8Encode } from '@arslan/util';
import { issueDeviceCertificate, verifyDeviceCertificate } from './device-certificate';
import {
  openRevisionContent,
  readRevision,
  type RevisionRecord,
  revisionIdOf,
  revisionSignedBytes,
  verifyRevision,
  type WriteRevisionInput,
  writeRevision,
} from './revision';
import { parseRevisionJson, revisionToJson } from './revision-json';
import { ed25519Sign, generateDeviceKeys, generateUserIdentity } from './signing';
import { flipByte, recordingRandom, testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const user = generateUserIdentity(testOnlyRandom('user'));
const device = generateDeviceKeys(testOnlyRandom('device'));
const other = generateDeviceKeys(testOnlyRandom('other'));
const certificate = issueDeviceCertificate(user.seed, {
  deviceSigningKey: device.signingPublicKey,
  deviceExchangeKey: device.exchangePublicKey,
  createdAt: 1_700_000_000_000,
});
const epochKey = testOnlyRandom('epoch').randomBytes(32);
const deviceHex = bytesToHex(device.signingPublicKey);
const allowDevice = { isDeviceAllowed: (hex: string) => hex === deviceHex };
const ctx = { vaultId: 'vault', epochKey, ...allowDevice };
const P1 = 'aa'.repeat(32);
const P2 = '11'.repeat(32);
const input: WriteRevisionInput = {
  vaultId: 'vault',
  assetId: 'asset-1',
  parents: [],
  policyHead: 'cd'.repeat(32),
  tombstone: false,
  epoch: 2,
  epochKey,
  content: utf8Encode('hello vault'),
  signer: { signingSeed: device.signingSeed, certificate },
};
const rev = writeRevision(input, testOnlyRandom('rev'));

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

function resign(r: RevisionRecord, seed = device.signingSeed): RevisionRecord {
  const signed = revisionSignedBytes(r);
  return { ...r, id: revisionIdOf(signed), signature: ed25519Sign(seed, signed) };
}

describe('revisions (VAULT-8, VAULT-9, VAULT-10, HIST-1, DEV-1, DEV-2)', () => {
  it('round trip: write, verify, open; JSON form round trips', () => {
    expect(readRevision(rev, ctx)).toEqual(input.content);
    expect(rev.id).toBe(revisionIdOf(revisionSignedBytes(rev)));
    const again = parseRevisionJson(JSON.parse(JSON.stringify(revisionToJson(rev))));
    expect(again).toEqual(rev);
    expect(readRevision(again, ctx)).toEqual(input.content);
  });

  it('HIST-1: parents are stored sorted; the id is the SHA-256 of the signed bytes', () => {
    const r = writeRevision({ ...input, parents: [P1, P2] });
    expect(r.parents).toEqual([P2, P1]);
    expect(r.id).toMatch(/^[0-9a-f]{64}$/);
    expect(code(() => writeRevision({ ...input, parents: [P1, P1] }))).toBe('malformed');
  });

  it('VAULT-8: every revision gets a fresh data key, wiped after use (VAULT-19)', () => {
    const rnd = recordingRandom('w');
    writeRevision(input, rnd);
    // issued: content nonce (32), data key (32), then nonces
    expect(rnd.issued[1]).toHaveLength(32);
    expect(isAllZero(rnd.issued[1]!)).toBe(true);
    const a = writeRevision(input);
    const b = writeRevision(input);
    expect(a.wrapped_data_key).not.toEqual(b.wrapped_data_key);
    expect(a.id).not.toBe(b.id);
  });

  it('VAULT-10: the signature covers asset id, parents, policy head, tombstone, ciphertext and certificate', () => {
    const otherCert = issueDeviceCertificate(user.seed, {
      deviceSigningKey: device.signingPublicKey,
      deviceExchangeKey: other.exchangePublicKey,
      createdAt: 1,
    });
    const changes: Partial<RevisionRecord>[] = [
      { asset_id: 'asset-2' },
      { parents: [P1] },
      { policy_head: 'ce'.repeat(32) },
      { tombstone: true },
      { epoch: 3 },
      { content_nonce: flipByte(rev.content_nonce, 0) },
      { wrapped_data_key: flipByte(rev.wrapped_data_key, 40) },
      { chunks: [flipByte(rev.chunks[0]!, 30)] },
      { chunks: [rev.chunks[0]!, rev.chunks[0]!] },
      { certificate: otherCert },
    ];
    for (const change of changes)
      expect(code(() => verifyRevision({ ...rev, ...change }, allowDevice))).toBe('bad_signature');
  });

  it('VAULT-10: a flip of every byte of the chunk or wrapped key fails verification, and re-signed fails decryption', () => {
    for (const field of ['chunks', 'wrapped_data_key'] as const) {
      const bytes = field === 'chunks' ? rev.chunks[0]! : rev.wrapped_data_key;
      for (let i = 0; i < bytes.length; i++) {
        const changed =
          field === 'chunks' ? { chunks: [flipByte(bytes, i)] } : { wrapped_data_key: flipByte(bytes, i) };
        const r = { ...rev, ...changed };
        expect(code(() => verifyRevision(r, allowDevice))).toBe('bad_signature');
        expect(code(() => readRevision(resign(r), ctx))).toBe('tampered');
      }
    }
  });

  it('bad_signature: signature by another device, or any signature byte flipped', () => {
    expect(code(() => verifyRevision(resign(rev, other.signingSeed), allowDevice))).toBe('bad_signature');
    for (let i = 0; i < 64; i += 7)
      expect(code(() => verifyRevision({ ...rev, signature: flipByte(rev.signature, i) }, allowDevice))).toBe(
        'bad_signature',
      );
  });

  it('DEV-2: a valid certificate is not enough; the allowlist predicate decides', () => {
    const seen: string[][] = [];
    const spy = (d: string, u: string) => (seen.push([d, u]), false);
    expect(code(() => verifyRevision(rev, { isDeviceAllowed: spy }))).toBe('device_not_allowed');
    expect(seen).toEqual([[deviceHex, bytesToHex(user.publicKey)]]);
    expect(code(() => verifyRevision(rev, { isDeviceAllowed: () => 'yes' as unknown as boolean }))).toBe(
      'device_not_allowed',
    );
    expect(code(() => verifyRevision(rev, {} as never))).toBe('malformed');
  });

  it('DEV-1: bad_certificate for any change to the certificate that is re-signed by the device', () => {
    const stranger = generateUserIdentity(testOnlyRandom('stranger'));
    const changes = [
      { user_key: stranger.publicKey },
      { created_at: certificate.created_at + 1 },
      { device_exchange_key: other.exchangePublicKey },
      { signature: flipByte(certificate.signature, 3) },
    ];
    for (const change of changes)
      expect(
        code(() =>
          verifyRevision(resign({ ...rev, certificate: { ...certificate, ...change } }), allowDevice),
        ),
      ).toBe('bad_certificate');
    expect(code(() => verifyDeviceCertificate(certificate))).toBe('ok');
  });

  it('DEV-1: writing needs a valid certificate that matches the signing seed', () => {
    expect(
      code(() => writeRevision({ ...input, signer: { signingSeed: other.signingSeed, certificate } })),
    ).toBe('bad_certificate');
    const forged = { ...certificate, created_at: 5 };
    expect(
      code(() =>
        writeRevision({ ...input, signer: { signingSeed: device.signingSeed, certificate: forged } }),
      ),
    ).toBe('bad_certificate');
  });

  it('HIST-1: id_mismatch when the id does not match the signed bytes', () => {
    expect(code(() => verifyRevision({ ...rev, id: 'ab'.repeat(32) }, allowDevice))).toBe('id_mismatch');
  });

  it('VAULT-8: content opens only with the right vault id and epoch key', () => {
    expect(code(() => openRevisionContent(rev, { vaultId: 'vault2', epochKey }))).toBe('tampered');
    expect(
      code(() =>
        openRevisionContent(rev, { vaultId: 'vault', epochKey: testOnlyRandom('e2').randomBytes(32) }),
      ),
    ).toBe('tampered');
    expect(code(() => readRevision(resign({ ...rev, epoch: 3 }), ctx))).toBe('tampered');
  });

  it('malformed: writer inputs and record shapes are validated', () => {
    const badInputs: Partial<WriteRevisionInput>[] = [
      { vaultId: '' },
      { assetId: 5 as never },
      { parents: ['AA'.repeat(32)] },
      { parents: 'x' as never },
      { policyHead: 'cd' },
      { tombstone: 1 as never },
      { epoch: -1 },
      { epochKey: new Uint8Array(16) },
      { content: 'x' as never },
      { signer: null as never },
    ];
    for (const bad of badInputs) expect(code(() => writeRevision({ ...input, ...bad }))).toBe('malformed');
    const badRecords: Partial<RevisionRecord>[] = [
      { parents: [P1, P2] },
      { chunks: [] },
      { signature: new Uint8Array(63) },
      { content_nonce: new Uint8Array(31) },
      { id: 'x' },
      { certificate: { ...certificate, created_at: -1 } },
    ];
    for (const bad of badRecords)
      expect(code(() => verifyRevision({ ...rev, ...bad }, allowDevice))).toBe('malformed');
    expect(code(() => parseRevisionJson({ ...revisionToJson(rev), extra: 1 }))).toBe('malformed');
    expect(code(() => parseRevisionJson(null))).toBe('malformed');
  });
});
