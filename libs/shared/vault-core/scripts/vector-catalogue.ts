// The catalogue of shipped vector files: file name -> cases. See vectors/README.md.
// Every key and nonce comes from testOnlyRandom(label), so the output is deterministic.
import { bytesToHex, toBase64Url, utf8Encode } from '@arslan/util';
import { createEpochKey } from '../src/epoch-keys';
import { CHUNK_SIZE } from '../src/format-constants';
import { createKeyring } from '../src/keyring';
import { type RevisionRecord, revisionIdOf, revisionSignedBytes, writeRevision } from '../src/revision';
import { encodeRevisionRow, type RevisionRowFields } from '../src/revision-binary';
import { revisionToJson } from '../src/revision-json';
import { sealState } from '../src/sealed-state';
import { ed25519Sign, generateDeviceKeys, generateUserIdentity } from '../src/signing';
import { issueDeviceCertificate } from '../src/device-certificate';
import { testOnlyKdf, testOnlyRandom } from '../src/test-only-support';
import type {
  EpochKeyVectorCase,
  KeyringVectorCase,
  RevisionRowVectorCase,
  RevisionVectorCase,
  SealedStateVectorCase,
  VaultVectorCase,
} from '../src/vector-case';
import { revisionRowPurpose } from '../src/vector-case';

const rng = testOnlyRandom;

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const out = bytes.slice();
  out[index] = (out[index] as number) ^ 0x01;
  return out;
}

function flipHex(hex: string, byteIndex: number): string {
  return (
    hex.slice(0, byteIndex * 2) +
    bytesToHex(flip(Uint8Array.of(parseInt(hex.slice(byteIndex * 2, byteIndex * 2 + 2), 16)), 0)) +
    hex.slice(byteIndex * 2 + 2)
  );
}

async function keyringCases(): Promise<KeyringVectorCase[]> {
  const password = 'correct horse battery staple';
  const { header, masterKey } = await createKeyring(testOnlyKdf, utf8Encode(password), rng('keyring-1'));
  const intl = 'pässwörd 秘密の合言葉';
  const k2 = await createKeyring(testOnlyKdf, utf8Encode(intl), rng('keyring-2'));
  const base = { type: 'keyring' as const, kdf: 'test-only-hkdf-sha256' };
  const wrapped = header.wrapped_master_key;
  const bad = (description: string, h: unknown, result: KeyringVectorCase['result'], pw = password) => ({
    ...base,
    description,
    password: pw,
    header: h,
    result,
  });
  return [
    {
      ...base,
      description: 'ok: ASCII password',
      password,
      header,
      result: 'ok',
      master_key: bytesToHex(masterKey),
    },
    {
      ...base,
      description: 'ok: non-ASCII password (UTF-8 bytes as given)',
      password: intl,
      header: k2.header,
      result: 'ok',
      master_key: bytesToHex(k2.masterKey),
    },
    bad('wrong password', header, 'bad_password', 'correct horse battery stapler'),
    bad('VAULT-1: format_version 2', { ...header, format_version: 2 }, 'unsupported_version'),
    bad('VAULT-1: format_version 0', { ...header, format_version: 0 }, 'unsupported_version'),
    bad('VAULT-1: format_version "1" (a string)', { ...header, format_version: '1' }, 'unsupported_version'),
    bad(
      'wrapped key: first nonce byte flipped',
      { ...header, wrapped_master_key: flipHex(wrapped, 0) },
      'bad_password',
    ),
    bad(
      'wrapped key: ciphertext byte flipped',
      { ...header, wrapped_master_key: flipHex(wrapped, 30) },
      'bad_password',
    ),
    bad(
      'wrapped key: last tag byte flipped',
      { ...header, wrapped_master_key: flipHex(wrapped, 71) },
      'bad_password',
    ),
    bad(
      'salt byte flipped (derives another key)',
      { ...header, salt: flipHex(header.salt, 3) },
      'bad_password',
    ),
    bad(
      'wrapped key of another keyring',
      { ...header, wrapped_master_key: k2.header.wrapped_master_key },
      'bad_password',
    ),
    bad('VAULT-4: memory_kib 65535', { ...header, kdf: { ...header.kdf, memory_kib: 65535 } }, 'malformed'),
    bad('VAULT-4: argon2 version 0x10', { ...header, kdf: { ...header.kdf, version: 16 } }, 'malformed'),
    bad('salt of 15 bytes', { ...header, salt: header.salt.slice(2) }, 'malformed'),
    bad('wrapped key one byte short', { ...header, wrapped_master_key: wrapped.slice(2) }, 'malformed'),
    bad('uppercase hex salt', { ...header, salt: header.salt.toUpperCase() }, 'malformed'),
    bad('extra member', { ...header, note: 'x' }, 'malformed'),
    bad(
      'no format_version',
      { kdf: header.kdf, salt: header.salt, wrapped_master_key: wrapped },
      'malformed',
    ),
    bad('not an object', [header], 'malformed'),
  ];
}

function sealedStateCases(): SealedStateVectorCase[] {
  const masterKey = rng('state-master').randomBytes(32);
  const mk = bytesToHex(masterKey);
  const plain = utf8Encode('{"vaults":[{"id":"v1","name":"Persönlich"}]}');
  const label = { table: 'state' as const, purpose: 'vault-state' };
  const sealed = sealState(masterKey, plain, label, rng('state-1'));
  const empty = sealState(
    masterKey,
    new Uint8Array(0),
    { table: 'checkpoints', purpose: 'checkpoint.0' },
    rng('state-2'),
  );
  const base = { type: 'sealed_state' as const, master_key: mk };
  const ok = { ...base, ...label, sealed: toBase64Url(sealed) };
  return [
    {
      ...ok,
      description: 'ok: state row (AAD memories/state/vault-state/v1)',
      result: 'ok',
      plaintext: toBase64Url(plain),
    },
    {
      ...base,
      table: 'checkpoints',
      purpose: 'checkpoint.0',
      sealed: toBase64Url(empty),
      description: 'ok: empty checkpoint value',
      result: 'ok',
      plaintext: '',
    },
    {
      ...ok,
      description: 'state value opened as a checkpoint (other AAD)',
      table: 'checkpoints',
      result: 'tampered',
    },
    { ...ok, description: 'other row purpose', purpose: 'vault-state-2', result: 'tampered' },
    { ...ok, description: 'nonce byte flipped', sealed: toBase64Url(flip(sealed, 5)), result: 'tampered' },
    {
      ...ok,
      description: 'ciphertext byte flipped',
      sealed: toBase64Url(flip(sealed, 30)),
      result: 'tampered',
    },
    {
      ...ok,
      description: 'tag byte flipped',
      sealed: toBase64Url(flip(sealed, sealed.length - 1)),
      result: 'tampered',
    },
    {
      ...ok,
      description: 'truncated to 39 bytes',
      sealed: toBase64Url(sealed.slice(0, 39)),
      result: 'malformed',
    },
    { ...ok, description: 'purpose with a slash', purpose: 'a/b', result: 'malformed' },
  ];
}

function epochKeyCases(): EpochKeyVectorCase[] {
  const masterKey = rng('epoch-master').randomBytes(32);
  const { epochKey, wrappedEpochKey } = createEpochKey(masterKey, 'vault-Ω', 7, rng('epoch-1'));
  const ok = {
    type: 'epoch_key' as const,
    master_key: bytesToHex(masterKey),
    vault_id: 'vault-Ω',
    epoch: 7,
    wrapped_epoch_key: toBase64Url(wrappedEpochKey),
  };
  return [
    { ...ok, description: 'ok: epoch 7 of vault-Ω', result: 'ok', epoch_key: bytesToHex(epochKey) },
    { ...ok, description: 'VAULT-7: other epoch number', epoch: 8, result: 'tampered' },
    { ...ok, description: 'VAULT-7: other vault id', vault_id: 'vault-O', result: 'tampered' },
    {
      ...ok,
      description: 'wrapped byte flipped',
      wrapped_epoch_key: toBase64Url(flip(wrappedEpochKey, 40)),
      result: 'tampered',
    },
    { ...ok, description: 'epoch -1', epoch: -1, result: 'malformed' },
  ];
}

interface Writer {
  seed: Uint8Array;
  record: (over: Partial<Parameters<typeof writeRevision>[0]>, label: string) => RevisionRecord;
}

/** Re-signs a changed record with `seed`, so the case proves a check after the signature. */
function resign(r: RevisionRecord, seed: Uint8Array): RevisionRecord {
  const signed = revisionSignedBytes(r);
  return { ...r, id: revisionIdOf(signed), signature: ed25519Sign(seed, signed) };
}

function revisionSetup() {
  const user = generateUserIdentity(rng('user'));
  const device = generateDeviceKeys(rng('device-mac'));
  const other = generateDeviceKeys(rng('device-other'));
  const stranger = generateUserIdentity(rng('user-stranger'));
  const certificate = issueDeviceCertificate(user.seed, {
    deviceSigningKey: device.signingPublicKey,
    deviceExchangeKey: device.exchangePublicKey,
    createdAt: 1767225600000,
  });
  const otherCert = issueDeviceCertificate(user.seed, {
    deviceSigningKey: other.signingPublicKey,
    deviceExchangeKey: other.exchangePublicKey,
    createdAt: 1767225600001,
  });
  const epochKey = rng('epoch-key-3').randomBytes(32);
  const vaultId = 'vault-main';
  const policyHead = bytesToHex(rng('policy-head').randomBytes(32));
  const writer: Writer = {
    seed: device.signingSeed,
    record: (over, label) =>
      writeRevision(
        {
          vaultId,
          assetId: 'mémoire-001 📝',
          parents: [],
          policyHead,
          tombstone: false,
          epoch: 3,
          epochKey,
          content: utf8Encode('Hello, 世界 — first revision'),
          signer: { signingSeed: device.signingSeed, certificate },
          ...over,
        },
        rng(label),
      ),
  };
  const base = {
    type: 'revision' as const,
    vault_id: vaultId,
    epoch_key: bytesToHex(epochKey),
    allowed_devices: [bytesToHex(device.signingPublicKey), bytesToHex(other.signingPublicKey)],
  };
  return { writer, base, device, other, otherCert, stranger, certificate };
}

function revisionCases(): RevisionVectorCase[] {
  const { writer, base, other, otherCert, stranger, certificate } = revisionSetup();
  const seed = writer.seed;
  const first = writer.record({}, 'rev-1');
  const child = writer.record({ parents: [first.id], content: utf8Encode('second revision') }, 'rev-2');
  const tomb = writer.record({ parents: [child.id], tombstone: true, content: new Uint8Array(0) }, 'rev-3');
  const side = writer.record({ parents: [first.id], content: utf8Encode('concurrent edit') }, 'rev-4');
  const merge = writer.record({ parents: [side.id, child.id], content: utf8Encode('merged') }, 'rev-5');
  const ok = (description: string, r: RevisionRecord, content: Uint8Array): RevisionVectorCase => ({
    ...base,
    description,
    revision: revisionToJson(r),
    result: 'ok',
    content: toBase64Url(content),
  });
  const bad = (description: string, r: unknown, result: RevisionVectorCase['result'], over = {}) => ({
    ...base,
    description,
    revision: r,
    result,
    ...over,
  });
  const j = revisionToJson(first);
  const c0 = first.chunks[0] as Uint8Array;
  const strangerCert = { ...certificate, user_key: stranger.publicKey };
  return [
    ok('ok: first revision, non-ASCII asset id', first, utf8Encode('Hello, 世界 — first revision')),
    ok('ok: child with one parent', child, utf8Encode('second revision')),
    ok('ok: tombstone, empty content = exactly one empty chunk', tomb, new Uint8Array(0)),
    ok('ok: merge naming two parents (sorted)', merge, utf8Encode('merged')),
    bad(
      'VAULT-10: chunk byte flipped',
      revisionToJson({ ...first, chunks: [flip(c0, 50)] }),
      'bad_signature',
    ),
    bad(
      'VAULT-10: wrapped data key byte flipped',
      revisionToJson({ ...first, wrapped_data_key: flip(first.wrapped_data_key, 3) }),
      'bad_signature',
    ),
    bad('VAULT-10: parents changed', { ...j, parents: [side.id] }, 'bad_signature'),
    bad('VAULT-10: policy head changed', { ...j, policy_head: flipHex(j.policy_head, 0) }, 'bad_signature'),
    bad('VAULT-10: tombstone flag set', { ...j, tombstone: true }, 'bad_signature'),
    bad('VAULT-10: asset id changed', { ...j, asset_id: 'mémoire-002 📝' }, 'bad_signature'),
    bad('VAULT-10: epoch changed', { ...j, epoch: 4 }, 'bad_signature'),
    bad(
      'VAULT-10: signed by another allowed device (certificate is the first device)',
      revisionToJson(resign(first, other.signingSeed)),
      'bad_signature',
    ),
    bad(
      'VAULT-10: certificate swapped for another valid, allowed one',
      revisionToJson({ ...first, certificate: otherCert }),
      'bad_signature',
    ),
    bad('VAULT-10: signature byte flipped', { ...j, signature: flipHex(j.signature, 10) }, 'bad_signature'),
    bad('DEV-2: valid certificate but not in the allowlist', j, 'device_not_allowed', {
      allowed_devices: [bytesToHex(other.signingPublicKey)],
    }),
    bad('DEV-2: empty allowlist', j, 'device_not_allowed', { allowed_devices: [] }),
    bad(
      'DEV-1: certificate user key replaced',
      revisionToJson(resign({ ...first, certificate: strangerCert }, seed)),
      'bad_certificate',
    ),
    bad(
      'DEV-1: certificate created_at changed',
      revisionToJson(resign({ ...first, certificate: { ...certificate, created_at: 1767225600002 } }, seed)),
      'bad_certificate',
    ),
    bad(
      'DEV-1: certificate signature flipped',
      revisionToJson(
        resign(
          { ...first, certificate: { ...certificate, signature: flip(certificate.signature, 0) } },
          seed,
        ),
      ),
      'bad_certificate',
    ),
    bad('HIST-1: id does not match the signed bytes', { ...j, id: child.id }, 'id_mismatch'),
    bad(
      'VAULT-9: chunk byte flipped, re-signed by the device',
      revisionToJson(resign({ ...first, chunks: [flip(c0, 50)] }, seed)),
      'tampered',
    ),
    bad(
      'VAULT-8: wrapped data key flipped, re-signed',
      revisionToJson(resign({ ...first, wrapped_data_key: flip(first.wrapped_data_key, 30) }, seed)),
      'tampered',
    ),
    bad(
      'VAULT-8: epoch changed, re-signed (data-key AAD binds the epoch)',
      revisionToJson(resign({ ...first, epoch: 4 }, seed)),
      'tampered',
    ),
    bad(
      'VAULT-9: chunk taken from another revision, re-signed',
      revisionToJson(resign({ ...first, chunks: child.chunks }, seed)),
      'tampered',
    ),
    bad(
      'VAULT-8: content nonce changed, re-signed',
      revisionToJson(resign({ ...first, content_nonce: flip(first.content_nonce, 0) }, seed)),
      'tampered',
    ),
    bad('VAULT-8: opened in another vault', j, 'tampered', { vault_id: 'vault-other' }),
    bad('VAULT-8: wrong epoch key', j, 'tampered', {
      epoch_key: bytesToHex(rng('epoch-key-4').randomBytes(32)),
    }),
    bad(
      'malformed: parents not sorted',
      { ...revisionToJson(merge), parents: [...merge.parents].reverse() },
      'malformed',
    ),
    bad('malformed: no chunks', { ...j, chunks: [] }, 'malformed'),
    bad('malformed: extra member', { ...j, extra: 1 }, 'malformed'),
    bad('malformed: signature one byte short', { ...j, signature: j.signature.slice(2) }, 'malformed'),
    bad('malformed: non-canonical base64url chunk', { ...j, chunks: [`${j.chunks[0]}=`] }, 'malformed'),
    bad(
      'malformed: device key not a byte string',
      { ...j, certificate: { ...j.certificate, device_signing_key: 42 } },
      'malformed',
    ),
  ];
}

function chunkCases(): RevisionVectorCase[] {
  const { writer, base } = revisionSetup();
  const content = rng('multi-chunk-content').randomBytes(CHUNK_SIZE + 1);
  const r = writer.record({ assetId: 'file-0001', content }, 'rev-multi');
  const [a, b] = r.chunks as [Uint8Array, Uint8Array];
  const resigned = (chunks: Uint8Array[]) => revisionToJson(resign({ ...r, chunks }, writer.seed));
  return [
    {
      ...base,
      description: 'ok: 256 KiB + 1 byte = two chunks',
      revision: revisionToJson(r),
      result: 'ok',
      content: toBase64Url(content),
    },
    {
      ...base,
      description: 'VAULT-9: chunks swapped, re-signed',
      revision: resigned([b, a]),
      result: 'tampered',
    },
    {
      ...base,
      description: 'VAULT-9: last chunk dropped, re-signed',
      revision: resigned([a]),
      result: 'tampered',
    },
    {
      ...base,
      description: 'VAULT-9: first chunk appended again, re-signed',
      revision: resigned([a, b, a]),
      result: 'tampered',
    },
  ];
}

/** Sealed binary revision rows (desktop store `revisions` table): ok, AEAD, layout and signature cases. */
function revisionRowCases(): RevisionRowVectorCase[] {
  const { writer, base } = revisionSetup();
  const seed = writer.seed;
  const masterKey = rng('row-master').randomBytes(32);
  const first = writer.record({}, 'rev-1');
  const tomb = writer.record({ parents: [first.id], tombstone: true, content: new Uint8Array(0) }, 'rev-3');
  const side = writer.record({ parents: [first.id], content: utf8Encode('concurrent edit') }, 'rev-4');
  const merge = writer.record({ parents: [side.id, tomb.id], content: utf8Encode('merged') }, 'rev-5');
  const fields = (revision: RevisionRecord, over: Partial<RevisionRowFields> = {}): RevisionRowFields => ({
    vault_id: base.vault_id,
    created_at: 1767225600123,
    title: 'Einkaufsliste — 買い物',
    kind: 'memory',
    revision,
    ...over,
  });
  const seal = (plain: Uint8Array, seq: number, label: string) =>
    toBase64Url(
      sealState(masterKey, plain, { table: 'revisions', purpose: revisionRowPurpose(seq) }, rng(label)),
    );
  const common = {
    type: 'revision_row' as const,
    master_key: bytesToHex(masterKey),
    epoch_key: base.epoch_key,
    allowed_devices: base.allowed_devices,
  };
  const ok = (description: string, seq: number, f: RevisionRowFields, content: Uint8Array) => ({
    ...common,
    description,
    seq,
    sealed: seal(encodeRevisionRow(f), seq, `row-${seq}`),
    result: 'ok' as const,
    row: {
      vault_id: f.vault_id,
      created_at: f.created_at,
      title: f.title,
      kind: f.kind,
      revision: revisionToJson(f.revision),
    },
    content: toBase64Url(content),
  });
  const bad = (
    description: string,
    plain: Uint8Array,
    result: RevisionRowVectorCase['result'],
    over: Partial<RevisionRowVectorCase> = {},
  ): RevisionRowVectorCase => ({
    ...common,
    description,
    seq: 7,
    sealed: seal(plain, 7, `row-bad-${description}`),
    result,
    ...over,
  });
  const row = encodeRevisionRow(fields(first));
  // Offsets in `row`: version(1) ‖ lp(vault_id) ‖ u64 ‖ lp(title) ‖ lp(kind), then the revision.
  const titleBytes = utf8Encode(fields(first).title).length;
  const rev = 1 + 4 + utf8Encode(base.vault_id).length + 8 + 4 + titleBytes + 4 + 'memory'.length;
  const assetIdBytes = utf8Encode(first.asset_id).length;
  const afterParents = rev + 1 + 32 + 4 + assetIdBytes + 4; // no parents in `first`
  const tombstoneAt = afterParents + 32;
  const chunkCountAt = tombstoneAt + 1 + 4 + 32 + 72;
  const chunkAt = chunkCountAt + 4 + 4;
  const patch = (bytes: Uint8Array, at: number, value: number) => {
    const out = bytes.slice();
    out[at] = value;
    return out;
  };
  const mergeRow = encodeRevisionRow(fields(merge));
  const mergeParentsAt = rev + 1 + 32 + 4 + assetIdBytes + 4;
  const swappedParents = mergeRow.slice();
  swappedParents.set(mergeRow.subarray(mergeParentsAt + 32, mergeParentsAt + 64), mergeParentsAt);
  swappedParents.set(mergeRow.subarray(mergeParentsAt, mergeParentsAt + 32), mergeParentsAt + 32);
  const resignedFlip = encodeRevisionRow(
    fields(resign({ ...first, chunks: [flip(first.chunks[0] as Uint8Array, 50)] }, seed)),
  );
  const sealedFirst = ok(
    'ok: memory row at seq 1, non-ASCII title',
    1,
    fields(first),
    utf8Encode('Hello, 世界 — first revision'),
  );
  const sealedBytes = fromB64(sealedFirst.sealed);
  return [
    sealedFirst,
    ok(
      'ok: tombstone row of a card at seq 2',
      2,
      fields(tomb, { title: '', kind: 'card' }),
      new Uint8Array(0),
    ),
    ok('ok: merge row (two parents) at seq 3', 3, fields(merge, { created_at: 0 }), utf8Encode('merged')),
    {
      ...sealedFirst,
      description: 'AUD-2: row moved to seq 2 (AAD binds the row number)',
      seq: 2,
      result: 'tampered',
      row: undefined,
      content: undefined,
    },
    {
      ...sealedFirst,
      description: 'VAULT-6: sealed byte flipped',
      sealed: toBase64Url(flip(sealedBytes, 40)),
      result: 'tampered',
      row: undefined,
      content: undefined,
    },
    bad('malformed: trailing byte', Uint8Array.of(...row, 0), 'malformed'),
    bad('malformed: last byte missing', row.slice(0, -1), 'malformed'),
    bad('malformed: row version 2', patch(row, 0, 2), 'malformed'),
    bad('malformed: binary revision version 2', patch(row, rev, 2), 'malformed'),
    bad('malformed: tombstone byte 2', patch(row, tombstoneAt, 2), 'malformed'),
    bad('malformed: chunk count past the end', patch(row, chunkCountAt, 0x7f), 'malformed'),
    bad(
      'malformed: title not UTF-8',
      patch(row, 1 + 4 + utf8Encode(base.vault_id).length + 8 + 4, 0xff),
      'malformed',
    ),
    bad('malformed: kind not lowercase', patch(row, rev - 6, 0x4d), 'malformed'),
    bad('malformed: parents not ascending', swappedParents, 'malformed'),
    bad('malformed: empty row', new Uint8Array(0), 'malformed'),
    bad(
      'VAULT-10: chunk byte flipped inside the row',
      patch(row, chunkAt + 50, (row[chunkAt + 50] as number) ^ 1),
      'bad_signature',
    ),
    bad('HIST-1: id byte flipped', patch(row, rev + 1, (row[rev + 1] as number) ^ 1), 'id_mismatch'),
    bad('VAULT-9: chunk flipped and re-signed by the device', resignedFlip, 'tampered'),
    bad('DEV-2: device not in the allowlist', row, 'device_not_allowed', { allowed_devices: [] }),
  ];
}

function fromB64(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'base64url'));
}

export async function buildVaultVectorCatalogue(): Promise<Record<string, VaultVectorCase[]>> {
  return {
    'keyring.json': await keyringCases(),
    'sealed-state.json': sealedStateCases(),
    'epoch-keys.json': epochKeyCases(),
    'revisions.json': revisionCases(),
    'revision-chunks.json': chunkCases(),
    'revision-rows.json': revisionRowCases(),
  };
}
