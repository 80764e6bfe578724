import { policyEntryHash } from './policy-encoding';
import { type PolicyEntry } from './policy-entry';
import { type PolicyChange } from './policy-change';
import { proposePolicyChange } from './policy-proposer';
import { createGenesisPolicy, signPolicyEntry } from './policy-signer';
import { verifyPolicyHistory } from './policy-verifier';
import {
  device,
  errorCode,
  forge,
  memberOf,
  person,
  standardHistory,
  VAULT,
  withMember,
} from './testing/policy-fixtures';

const base = standardHistory();
const head = base[base.length - 1]!;
const newcomer = person('nina');

function propose(
  changes: PolicyChange | PolicyChange[],
  signer: string,
  prev: PolicyEntry = head,
): PolicyEntry {
  return proposePolicyChange(prev, changes, person(signer).seed);
}
const proposeCode = (changes: PolicyChange | PolicyChange[], signer: string, prev?: PolicyEntry) =>
  errorCode(() => propose(changes, signer, prev));
const historyCode = (entries: readonly unknown[]) => errorCode(() => verifyPolicyHistory(entries));
const invite = (role: 'owner' | 'admin' | 'editor' | 'reader' = 'reader'): PolicyChange => ({
  kind: 'add_member',
  member: { id: newcomer.id, name: 'nina', role, devices: [device('nina-phone')] },
});

describe('verifyPolicyHistory: chain and signatures (POL-1)', () => {
  it('POL-1: accepts a linear signed history and returns its head', () => {
    const verified = verifyPolicyHistory(base);
    expect(verified.head).toEqual(head);
    expect(verified.headHash).toBe(policyEntryHash(head));
    expect(verified.genesisHash).toBe(policyEntryHash(base[0]!));
    expect(verified.entries).toHaveLength(2);
  });

  it('POL-1: rejects an empty history, a history not starting at genesis, and skipped or relinked entries', () => {
    expect(historyCode([])).toBe('malformed');
    expect(historyCode([head])).toBe('broken_chain');
    const next = propose(invite(), 'olivia');
    expect(historyCode([base[0], next])).toBe('broken_chain');
    const wrongLink = forge(
      head,
      (b) => ({ ...b, prevHash: '00'.repeat(32), epoch: b.epoch }),
      person('olivia'),
    );
    expect(historyCode([...base, wrongLink])).toBe('broken_chain');
    const wrongSeq = forge(head, (b) => ({ ...b, seq: b.seq + 1 }), person('olivia'));
    expect(historyCode([...base, wrongSeq])).toBe('broken_chain');
  });

  it('POL-1: rejects a tampered entry or a signature by another key', () => {
    const renamed = { ...head, members: head.members.map((m) => ({ ...m, name: `${m.name}!` })) };
    expect(historyCode([base[0], renamed])).toBe('bad_signature');
    const other = forge(base[0]!, (b) => ({ ...b, epoch: 0 }), person('olivia'));
    const swapped = { ...head, signature: other.signature };
    expect(historyCode([base[0], swapped])).toBe('bad_signature');
    const claimed = { ...head, signer: person('adam').id };
    expect(historyCode([base[0], claimed])).toBe('bad_signature');
  });

  it('pins the trust anchor: expected vault id and genesis hash', () => {
    const genesisHash = policyEntryHash(base[0]!);
    expect(
      verifyPolicyHistory(base, { expectedVaultId: VAULT, expectedGenesisHash: genesisHash }).vaultId,
    ).toBe(VAULT);
    expect(errorCode(() => verifyPolicyHistory(base, { expectedVaultId: 'other' }))).toBe(
      'untrusted_genesis',
    );
    const foreign = createGenesisPolicy({
      vaultId: VAULT,
      owner: { name: 'mallory' },
      ownerSeed: person('m').seed,
    });
    expect(errorCode(() => verifyPolicyHistory([foreign], { expectedGenesisHash: genesisHash }))).toBe(
      'untrusted_genesis',
    );
  });

  it('POL-8: a genesis must have exactly one Owner, who signs it, at epoch 0', () => {
    const g = base[0]!;
    const { signer: _s, signature: _sig, ...body } = g;
    const signedBy = (label: string, edit = body) =>
      errorCode(() => verifyPolicyHistory([signPolicyEntry(edit, person(label).seed)]));
    expect(signedBy('adam')).toBe('not_authorized');
    expect(signedBy('olivia', { ...body, epoch: 1 })).toBe('bad_epoch');
    expect(signedBy('olivia', { ...body, members: [{ ...body.members[0]!, role: 'admin' }] })).toBe(
      'owner_count',
    );
  });
});

describe('authorization against the preceding entry (POL-3)', () => {
  it('POL-3: a role granted in an entry does not authorize that same entry', () => {
    const selfPromote = forge(head, (b) => withMember(b, 'eve', { role: 'admin' }), person('eve'));
    expect(historyCode([...base, selfPromote])).toBe('not_authorized');
  });

  it('POL-3: a role granted earlier authorizes later entries', () => {
    const promoted = propose({ kind: 'set_role', memberId: person('eve').id, role: 'admin' }, 'olivia');
    const invitedByEve = propose(invite(), 'eve', promoted);
    expect(verifyPolicyHistory([...base, promoted, invitedByEve]).head.members).toHaveLength(6);
  });

  it('POL-3: a member removed in an entry cannot sign the next one', () => {
    const removed = propose({ kind: 'remove_member', memberId: person('adam').id }, 'olivia');
    const byAdam = forge(removed, (b) => withMember(b, 'rita', { role: 'editor' }), person('adam'));
    expect(historyCode([...base, removed, byAdam])).toBe('not_authorized');
    expect(historyCode([...base, forge(head, (b) => b, newcomer)])).toBe('no_change');
    const outsider = forge(head, (b) => withMember(b, 'rita', { role: 'editor' }), newcomer);
    expect(historyCode([...base, outsider])).toBe('not_authorized');
  });
});

describe('device authorization (POL-4, POL-5)', () => {
  const tablet = device('rita-tablet');

  it.each(['rita', 'eve', 'adam', 'olivia'])('POL-4: %s may add a device for their own identity', (who) => {
    const entry = propose(
      { kind: 'add_device', memberId: person(who).id, fingerprint: device(`${who}-new`) },
      who,
    );
    expect(memberOf(entry, who).devices).toContain(device(`${who}-new`));
    expect(entry.epoch).toBe(head.epoch);
    expect(verifyPolicyHistory([...base, entry]).head).toEqual(entry);
  });

  it("POL-5: a Reader or Editor may not authorize another member's device", () => {
    expect(proposeCode({ kind: 'add_device', memberId: person('rita').id, fingerprint: tablet }, 'eve')).toBe(
      'not_authorized',
    );
    expect(proposeCode({ kind: 'add_device', memberId: person('eve').id, fingerprint: tablet }, 'rita')).toBe(
      'not_authorized',
    );
    const forged = forge(
      head,
      (b) => withMember(b, 'eve', { devices: [...memberOf(b, 'eve').devices, tablet].sort() }),
      person('rita'),
    );
    expect(historyCode([...base, forged])).toBe('not_authorized');
  });

  it("POL-5: an Admin may authorize another (non-Owner) member's device", () => {
    const entry = propose({ kind: 'add_device', memberId: person('rita').id, fingerprint: tablet }, 'adam');
    expect(memberOf(entry, 'rita').devices).toContain(tablet);
  });

  it('POL-5: inviting a member needs Admin or Owner', () => {
    expect(proposeCode(invite(), 'rita')).toBe('not_authorized');
    expect(proposeCode(invite(), 'eve')).toBe('not_authorized');
    expect(propose(invite('admin'), 'adam').members).toHaveLength(6);
    expect(propose(invite('editor'), 'olivia').members).toHaveLength(6);
  });

  it('POL-5: a member may remove their own device, which starts a new epoch', () => {
    const entry = propose(
      { kind: 'remove_device', memberId: person('rita').id, fingerprint: device('rita-phone') },
      'rita',
    );
    expect(entry.epoch).toBe(head.epoch + 1);
    expect(
      proposeCode(
        { kind: 'remove_device', memberId: person('eve').id, fingerprint: device('eve-phone') },
        'rita',
      ),
    ).toBe('not_authorized');
  });
});
