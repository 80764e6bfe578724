import { utf8Encode } from '@arslan/util';
import { issueDeviceCertificate } from './device-certificate';
import { readRevision, writeRevision } from './revision';
import {
  decodeRevisionRow,
  encodeRevisionRow,
  parseRevisionBinary,
  revisionToBinary,
} from './revision-binary';
import { revisionToJson } from './revision-json';
import { generateDeviceKeys, generateUserIdentity } from './signing';
import { testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const user = generateUserIdentity(testOnlyRandom('bin-user'));
const device = generateDeviceKeys(testOnlyRandom('bin-device'));
const certificate = issueDeviceCertificate(user.seed, {
  deviceSigningKey: device.signingPublicKey,
  deviceExchangeKey: device.exchangePublicKey,
  createdAt: 1_700_000_000_000,
});
const epochKey = testOnlyRandom('bin-epoch').randomBytes(32);
const body = utf8Encode(JSON.stringify({ title: 'note', body: 'x'.repeat(4096) }));
const write = (over: { parents?: string[]; tombstone?: boolean; content?: Uint8Array }, label: string) =>
  writeRevision(
    {
      vaultId: 'vault',
      assetId: 'asset-ü',
      parents: [],
      policyHead: 'cd'.repeat(32),
      tombstone: false,
      epoch: 5,
      epochKey,
      content: body,
      signer: { signingSeed: device.signingSeed, certificate },
      ...over,
    },
    testOnlyRandom(label),
  );
const root = write({}, 'bin-root');
const child = write({ parents: [root.id], tombstone: true, content: new Uint8Array(0) }, 'bin-child');
const ctx = { vaultId: 'vault', epochKey, isDeviceAllowed: () => true };

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

describe('binary revision and revision row (VAULT-9/10, HIST-1)', () => {
  it('HIST-1: the binary form round trips to the same record (same JSON form, still verifies and opens)', () => {
    for (const r of [root, child]) {
      const back = parseRevisionBinary(revisionToBinary(r));
      expect(revisionToJson(back)).toEqual(revisionToJson(r));
      expect(readRevision(back, ctx)).toEqual(readRevision(r, ctx));
    }
  });

  it('a 4 KiB body: the row is ≥ 1.9 KB smaller than the JSON/base64url row it replaces', () => {
    const row = encodeRevisionRow({
      vault_id: 'vault',
      created_at: 1,
      title: 'note',
      kind: 'memory',
      revision: root,
    });
    const json = JSON.stringify({
      vault_id: 'vault',
      created_at: 1,
      title: 'note',
      kind: 'memory',
      revision: revisionToJson(root),
    });
    expect(json.length - row.length).toBeGreaterThan(1900);
    expect(decodeRevisionRow(row)).toEqual({
      vault_id: 'vault',
      created_at: 1,
      title: 'note',
      kind: 'memory',
      revision: parseRevisionBinary(revisionToBinary(root)),
    });
  });

  it('strict parse: every truncation and any trailing byte is malformed, never a partial record', () => {
    const bytes = revisionToBinary(child);
    for (let n = 0; n < bytes.length; n++)
      expect(code(() => parseRevisionBinary(bytes.subarray(0, n)))).toBe('malformed');
    expect(code(() => parseRevisionBinary(Uint8Array.of(...bytes, 0)))).toBe('malformed');
    const row = encodeRevisionRow({ vault_id: 'v', created_at: 0, title: '', kind: 'card', revision: child });
    for (let n = 0; n < row.length; n++)
      expect(code(() => decodeRevisionRow(row.subarray(0, n)))).toBe('malformed');
  });

  it('encoding refuses rows it could not read back (bad kind, negative time, malformed revision)', () => {
    const base = { vault_id: 'v', created_at: 0, title: 't', kind: 'memory', revision: root };
    expect(code(() => encodeRevisionRow({ ...base, kind: 'Memory' }))).toBe('malformed');
    expect(code(() => encodeRevisionRow({ ...base, created_at: -1 }))).toBe('malformed');
    expect(code(() => encodeRevisionRow({ ...base, vault_id: '' }))).toBe('malformed');
    expect(code(() => revisionToBinary({ ...root, parents: ['zz'] }))).toBe('malformed');
    expect(code(() => parseRevisionBinary('not bytes' as unknown as Uint8Array))).toBe('malformed');
  });
});
