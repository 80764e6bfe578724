import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, u32be, utf8Encode } from '@arslan/util';
import { policyEntryHash, policySigningBytes } from './policy-encoding';
import { parsePolicyEntry, POLICY_DOMAIN, type PolicyEntry } from './policy-entry';
import { PolicyError, type PolicyErrorCode } from './policy.errors';
import { createGenesisPolicy, signPolicyEntry } from './policy-signer';
import { device, person, VAULT } from './testing/policy-fixtures';

function code(fn: () => unknown): PolicyErrorCode | 'no error' {
  try {
    fn();
  } catch (e) {
    if (e instanceof PolicyError) return e.code;
    throw e;
  }
  return 'no error';
}

const owner = person('olivia');
const genesis = createGenesisPolicy({
  vaultId: VAULT,
  owner: { name: 'olivia', devices: [device('olivia-phone')] },
  ownerSeed: owner.seed,
});
const mutate = (patch: Record<string, unknown>): unknown => ({ ...genesis, ...patch });
const memberPatch = (patch: Record<string, unknown>): unknown =>
  mutate({ members: [{ ...genesis.members[0], ...patch }] });

describe('policy entry shape (POL-1)', () => {
  it('POL-1: a genesis entry holds members, roles, allow-list, revocations and epoch', () => {
    expect(genesis).toEqual({
      vaultId: VAULT,
      seq: 0,
      prevHash: null,
      epoch: 0,
      members: [
        {
          id: owner.id,
          name: 'olivia',
          role: 'owner',
          devices: [device('olivia-phone')],
          selfEnrollment: true,
        },
      ],
      revoked: [],
      signer: owner.id,
      signature: expect.stringMatching(/^[0-9a-f]{128}$/),
    });
    expect(Object.isFrozen(genesis)).toBe(true);
    expect(Object.isFrozen(genesis.members[0]?.devices)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['not an object', 'entry'],
    ['an extra key', mutate({ extra: 1 })],
    ['a missing key', (({ epoch: _e, ...rest }) => rest)(genesis)],
    ['an unknown role', memberPatch({ role: 'superuser' })],
    ['an uppercase member id', memberPatch({ id: owner.id.toUpperCase() })],
    ['a short member id', memberPatch({ id: owner.id.slice(2) })],
    ['a non-hex fingerprint', memberPatch({ devices: ['zz'.repeat(32)] })],
    ['an empty name', memberPatch({ name: '' })],
    ['a control character in a name', memberPatch({ name: 'a\nb' })],
    ['a lone surrogate in a name', memberPatch({ name: 'a\ud800' })],
    ['a name over 128 bytes', memberPatch({ name: 'é'.repeat(65) })],
    ['the reserved name center-admin', memberPatch({ name: 'center-admin' })],
    ['unsorted devices', memberPatch({ devices: [device('b'), device('a')].sort().reverse() })],
    ['duplicate devices', memberPatch({ devices: [device('a'), device('a')] })],
    ['a fractional seq', mutate({ seq: 0.5 })],
    ['a negative epoch', mutate({ epoch: -1 })],
    ['a prevHash on seq 0', mutate({ prevHash: '00'.repeat(32) })],
    ['no prevHash on seq 1', mutate({ seq: 1 })],
    ['an empty member list', mutate({ members: [] })],
    ['a bad vault id', mutate({ vaultId: '../x' })],
    ['a short signature', mutate({ signature: 'ab' })],
    ['a numeric signer', mutate({ signer: 5 })],
    [
      'a missing selfEnrollment flag',
      mutate({ members: [{ ...(({ selfEnrollment: _f, ...rest }) => rest)(genesis.members[0]!) }] }),
    ],
    ['a non-boolean selfEnrollment flag', memberPatch({ selfEnrollment: 1 })],
    ['a string selfEnrollment flag', memberPatch({ selfEnrollment: 'true' })],
    ['an unknown member key', memberPatch({ selfEnrolment: true })],
  ])('rejects an entry with %s as malformed', (_what, value) => {
    expect(code(() => parsePolicyEntry(value))).toBe('malformed');
  });

  it('rejects members out of id order, duplicate names and a device listed twice', () => {
    const a = person('a');
    const b = person('b');
    const [lo, hi] = a.id < b.id ? [a, b] : [b, a];
    const m = (p: typeof a, name: string, devices: string[]) => ({
      id: p.id,
      name,
      role: 'reader',
      devices,
      selfEnrollment: true,
    });
    const owner0 = { ...m(lo, 'lo', []), role: 'owner' };
    expect(code(() => parsePolicyEntry(mutate({ members: [m(hi, 'hi', []), owner0] })))).toBe('malformed');
    expect(code(() => parsePolicyEntry(mutate({ members: [owner0, m(hi, 'lo', [])] })))).toBe('malformed');
    const shared = [device('shared')];
    const twice = mutate({ members: [{ ...owner0, devices: shared }, m(hi, 'hi', shared)] });
    expect(code(() => parsePolicyEntry(twice))).toBe('malformed');
  });

  it('signPolicyEntry puts lists into canonical order and refuses a seed that is not 32 bytes', () => {
    const devices = [device('z'), device('y'), device('x')];
    const { signer: _s, signature: _g, ...body } = genesis;
    const entry = signPolicyEntry({ ...body, members: [{ ...body.members[0]!, devices }] }, owner.seed);
    expect(entry.members[0]?.devices).toEqual([...devices].sort());
    expect(code(() => signPolicyEntry(body, new Uint8Array(31)))).toBe('malformed');
  });
});

describe('canonical encoding and hash', () => {
  it('starts the signed bytes with the length-prefixed domain label and vault id', () => {
    const bytes = policySigningBytes(genesis, genesis.signer);
    const label = utf8Encode(POLICY_DOMAIN);
    const vault = utf8Encode(VAULT);
    const prefix = concatBytes(u32be(label.length), label, u32be(vault.length), vault);
    expect(bytesToHex(bytes.slice(0, prefix.length))).toBe(bytesToHex(prefix));
  });

  it('encodes exactly the documented layout (rebuilt here by hand)', () => {
    const lp = (b: Uint8Array): Uint8Array => concatBytes(u32be(b.length), b);
    const hex = (h: string): Uint8Array => Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16)));
    const m = genesis.members[0]!;
    const member = concatBytes(
      lp(hex(m.id)),
      lp(utf8Encode('olivia')),
      lp(utf8Encode('owner')),
      lp(concatBytes(u32be(1), lp(hex(device('olivia-phone'))))),
      lp(Uint8Array.of(1)),
    );
    const expected = concatBytes(
      lp(utf8Encode('arslan-policy/v1')),
      lp(utf8Encode(VAULT)),
      lp(u32be(0)),
      lp(new Uint8Array(0)),
      lp(u32be(0)),
      lp(concatBytes(u32be(1), lp(member))),
      lp(u32be(0)),
      lp(hex(owner.id)),
    );
    expect(bytesToHex(policySigningBytes(genesis, genesis.signer))).toBe(bytesToHex(expected));
    const hash = sha256(concatBytes(expected, lp(hex(genesis.signature))));
    expect(policyEntryHash(genesis)).toBe(bytesToHex(hash));
  });

  it('pins the genesis hash of a fixed entry (format v1 known answer)', () => {
    expect(policyEntryHash(genesis)).toBe(KNOWN_GENESIS_HASH);
  });

  it('changes the hash when any signed field changes', () => {
    const base = policyEntryHash(genesis);
    const variants: PolicyEntry[] = [
      { ...genesis, epoch: 1 },
      { ...genesis, vaultId: 'vault-2' },
      { ...genesis, revoked: [device('r')] },
      { ...genesis, members: [{ ...genesis.members[0]!, name: 'olivia2' }] },
      { ...genesis, members: [{ ...genesis.members[0]!, role: 'admin' }] },
      { ...genesis, members: [{ ...genesis.members[0]!, devices: [] }] },
      { ...genesis, members: [{ ...genesis.members[0]!, selfEnrollment: false }] },
      { ...genesis, signature: genesis.signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
    ];
    for (const v of variants) expect(policyEntryHash(v)).not.toBe(base);
  });

  it('keeps list boundaries unambiguous: moving a device between members changes the bytes', () => {
    const two = (d1: string[], d2: string[]) => ({
      ...genesis,
      members: [
        { id: 'aa'.repeat(32), name: 'x', role: 'owner' as const, devices: d1, selfEnrollment: true },
        { id: 'bb'.repeat(32), name: 'y', role: 'reader' as const, devices: d2, selfEnrollment: true },
      ],
    });
    const [d1, d2] = [device('1'), device('2')].sort();
    const a = policySigningBytes(two([d1!, d2!], []), genesis.signer);
    const b = policySigningBytes(two([d1!], [d2!]), genesis.signer);
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
  });
});

const KNOWN_GENESIS_HASH = '1a785ffab90cf6eaffca5bf4a49fabc0866f745135a75302d9107c95fb4f4d09';
