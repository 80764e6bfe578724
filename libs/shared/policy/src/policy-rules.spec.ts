import { applyPolicyChanges, type PolicyChange } from './policy-change';
import { type PolicyEntry } from './policy-entry';
import { proposePolicyChange } from './policy-proposer';
import { isDeviceAllowed, memberRole, policyOwner } from './policy-queries';
import { verifyPolicyHistory } from './policy-verifier';
import {
  device,
  errorCode,
  forge,
  memberOf,
  person,
  standardHistory,
  withMember,
} from './testing/policy-fixtures';

const base = standardHistory();
const head = base[base.length - 1]!;
const id = (label: string) => person(label).id;
const propose = (changes: PolicyChange | PolicyChange[], signer: string, prev: PolicyEntry = head) =>
  proposePolicyChange(prev, changes, person(signer).seed);
const proposeCode = (changes: PolicyChange | PolicyChange[], signer: string, prev: PolicyEntry = head) =>
  errorCode(() => propose(changes, signer, prev));
const forgedCode = (
  signer: string,
  edit: Parameters<typeof forge>[1],
  prev: PolicyEntry = head,
  history = base,
) => errorCode(() => verifyPolicyHistory([...history, forge(prev, edit, person(signer))]));

describe('Admin limits (POL-6, POL-9)', () => {
  it('POL-6: an Admin may change Admin, Editor and Reader members', () => {
    const entry = propose(
      [
        { kind: 'set_role', memberId: id('ada'), role: 'editor' },
        { kind: 'set_role', memberId: id('eve'), role: 'admin' },
        { kind: 'rename_member', memberId: id('rita'), name: 'rita r.' },
        { kind: 'remove_member', memberId: id('rita') },
      ],
      'adam',
    );
    expect(memberRole(entry, id('eve'))).toBe('admin');
    expect(memberRole(entry, id('rita'))).toBeUndefined();
    expect(verifyPolicyHistory([...base, entry]).head.epoch).toBe(head.epoch + 1);
  });

  it('POL-6: an Admin cannot make anyone Owner', () => {
    expect(proposeCode({ kind: 'transfer_ownership', to: id('ada') }, 'adam')).toBe('not_authorized');
    expect(
      forgedCode('adam', (b) =>
        withMember(withMember(b, 'olivia', { role: 'admin' }), 'ada', { role: 'owner' }),
      ),
    ).toBe('not_authorized');
  });

  it('POL-6: an Admin cannot change, rename, re-device or remove the Owner', () => {
    expect(proposeCode({ kind: 'rename_member', memberId: id('olivia'), name: 'o' }, 'adam')).toBe(
      'not_authorized',
    );
    expect(
      proposeCode({ kind: 'add_device', memberId: id('olivia'), fingerprint: device('x') }, 'adam'),
    ).toBe('not_authorized');
    expect(forgedCode('adam', (b) => withMember(b, 'olivia', { devices: [] }))).toBe('not_authorized');
    expect(forgedCode('adam', (b) => withMember(b, 'olivia', { role: 'admin' }))).toBe('owner_count');
  });

  it('POL-6: an Admin cannot replace the Owner by removing them and inviting a new Owner', () => {
    const nina = {
      id: person('nina').id,
      name: 'nina',
      role: 'owner' as const,
      devices: [],
      selfEnrollment: true,
    };
    const replace = (b: Parameters<Parameters<typeof forge>[1]>[0]) => ({
      ...b,
      members: [...b.members.filter((m) => m.role !== 'owner'), nina],
      epoch: b.epoch + 1,
    });
    expect(forgedCode('adam', replace)).toBe('not_authorized');
    expect(forgedCode('olivia', replace)).toBe('ok');
  });

  it('POL-6: an Admin cannot revoke devices', () => {
    expect(proposeCode({ kind: 'revoke_device', fingerprint: device('rita-phone') }, 'adam')).toBe(
      'not_authorized',
    );
    const revokeUnlisted = (b: Parameters<Parameters<typeof forge>[1]>[0]) => ({
      ...b,
      revoked: [device('old')],
      epoch: b.epoch + 1,
    });
    expect(forgedCode('adam', revokeUnlisted)).toBe('not_authorized');
    expect(forgedCode('olivia', revokeUnlisted)).toBe('ok');
  });

  it('POL-9: verification rejects an Admin-signed entry that touches an Owner even with other valid changes', () => {
    const edit = (b: Parameters<Parameters<typeof forge>[1]>[0]) =>
      withMember(withMember(b, 'rita', { role: 'editor' }), 'olivia', { name: 'olivia (admin-edited)' });
    expect(forgedCode('adam', edit)).toBe('not_authorized');
    expect(forgedCode('olivia', edit)).toBe('ok');
  });
});

describe('Owner powers and ownership (POL-7, POL-8)', () => {
  it('POL-7: the Owner may revoke, change Admins and transfer ownership', () => {
    const revoked = propose({ kind: 'revoke_device', fingerprint: device('adam-phone') }, 'olivia');
    const transferred = propose({ kind: 'transfer_ownership', to: id('ada') }, 'olivia', revoked);
    const verified = verifyPolicyHistory([...base, revoked, transferred]);
    expect(policyOwner(verified.head).id).toBe(id('ada'));
    expect(memberRole(verified.head, id('olivia'))).toBe('admin');
  });

  it('POL-8: a transfer leaves exactly one Owner; the former Owner may become any lower role', () => {
    const entry = propose(
      { kind: 'transfer_ownership', to: id('rita'), formerOwnerRole: 'reader' },
      'olivia',
    );
    expect(entry.members.filter((m) => m.role === 'owner').map((m) => m.id)).toEqual([id('rita')]);
    expect(memberRole(entry, id('olivia'))).toBe('reader');
    const after = propose({ kind: 'set_role', memberId: id('olivia'), role: 'admin' }, 'rita', entry);
    expect(memberRole(after, id('olivia'))).toBe('admin');
  });

  it('POL-8: no entry may have zero or two Owners, even when the Owner signs it', () => {
    expect(proposeCode({ kind: 'set_role', memberId: id('ada'), role: 'owner' }, 'olivia')).toBe(
      'owner_count',
    );
    expect(proposeCode({ kind: 'set_role', memberId: id('olivia'), role: 'admin' }, 'olivia')).toBe(
      'owner_count',
    );
    expect(proposeCode({ kind: 'remove_member', memberId: id('olivia') }, 'olivia')).toBe('owner_count');
    expect(forgedCode('olivia', (b) => withMember(b, 'ada', { role: 'owner' }))).toBe('owner_count');
  });

  it('POL-8: the former Owner loses Owner powers in the next entry', () => {
    const entry = propose({ kind: 'transfer_ownership', to: id('ada') }, 'olivia');
    expect(proposeCode({ kind: 'revoke_device', fingerprint: device('eve-phone') }, 'olivia', entry)).toBe(
      'not_authorized',
    );
    expect(proposeCode({ kind: 'transfer_ownership', to: id('eve') }, 'olivia', entry)).toBe(
      'not_authorized',
    );
  });
});

describe('revocations (POL-10, DEV-5) and epochs', () => {
  const revoked = propose({ kind: 'revoke_device', fingerprint: device('rita-phone') }, 'olivia');
  const history = [...base, revoked];

  it('POL-10: revoking removes the device from every allow-list and starts a new epoch', () => {
    expect(revoked.revoked).toEqual([device('rita-phone')]);
    expect(memberOf(revoked, 'rita').devices).toEqual([]);
    expect(revoked.epoch).toBe(head.epoch + 1);
    expect(verifyPolicyHistory(history).head).toEqual(revoked);
  });

  it('POL-10: an entry that removes a revocation fails verification, even signed by the Owner', () => {
    const code = forgedCode('olivia', (b) => ({ ...b, revoked: [] }), revoked, history);
    expect(code).toBe('revocation_removed');
  });

  it('DEV-5: the revoked device cannot come back, not even through its own user key', () => {
    const back = { kind: 'add_device', memberId: id('rita'), fingerprint: device('rita-phone') } as const;
    expect(proposeCode(back, 'rita', revoked)).toBe('revoked_device');
    expect(proposeCode(back, 'olivia', revoked)).toBe('revoked_device');
    const ritaSelf = (b: Parameters<Parameters<typeof forge>[1]>[0]) =>
      withMember(b, 'rita', { devices: [device('rita-phone')] });
    expect(forgedCode('rita', ritaSelf, revoked, history)).toBe('revoked_device');
    expect(forgedCode('olivia', ritaSelf, revoked, history)).toBe('revoked_device');
  });

  it('DEV-5: a revoked device cannot be re-listed under another or a new member', () => {
    const rejoin: PolicyChange = {
      kind: 'add_member',
      member: { id: person('nina').id, name: 'nina', role: 'reader', devices: [device('rita-phone')] },
    };
    expect(proposeCode(rejoin, 'olivia', revoked)).toBe('revoked_device');
    const other = { kind: 'add_device', memberId: id('eve'), fingerprint: device('rita-phone') } as const;
    expect(proposeCode(other, 'olivia', revoked)).toBe('revoked_device');
  });

  it('epochs advance exactly when access shrinks and never go back', () => {
    const removed = propose({ kind: 'remove_member', memberId: id('eve') }, 'adam');
    expect(removed.epoch).toBe(head.epoch + 1);
    expect(propose({ kind: 'set_role', memberId: id('eve'), role: 'reader' }, 'adam').epoch).toBe(head.epoch);
    const skip = (b: Parameters<Parameters<typeof forge>[1]>[0]) => ({
      ...withMember(b, 'rita', { name: 'r' }),
      epoch: 5,
    });
    expect(forgedCode('olivia', skip)).toBe('bad_epoch');
    expect(forgedCode('olivia', (b) => ({ ...b, epoch: b.epoch + 2 }), revoked, history)).toBe('no_change');
    const lower = (b: Parameters<Parameters<typeof forge>[1]>[0]) => ({
      ...withMember(b, 'eve', { name: 'e' }),
      epoch: 0,
    });
    expect(forgedCode('olivia', lower, revoked, history)).toBe('bad_epoch');
    const kept = (b: Parameters<Parameters<typeof forge>[1]>[0]) => ({
      ...b,
      members: b.members.filter((m) => m.id !== id('eve')),
    });
    expect(forgedCode('olivia', kept)).toBe('bad_epoch');
  });
});

describe('device allow-list queries (DEV-2)', () => {
  it('DEV-2: only a listed, unrevoked device of that member is allowed', () => {
    expect(isDeviceAllowed(head, id('rita'), device('rita-phone'))).toBe(true);
    expect(isDeviceAllowed(head, id('rita'), device('rita-laptop'))).toBe(false);
    expect(isDeviceAllowed(head, id('eve'), device('rita-phone'))).toBe(false);
    expect(isDeviceAllowed(head, person('nina').id, device('nina-phone'))).toBe(false);
    const revoked = propose({ kind: 'revoke_device', fingerprint: device('rita-phone') }, 'olivia');
    expect(isDeviceAllowed(revoked, id('rita'), device('rita-phone'))).toBe(false);
  });

  it('DEV-2: malformed ids are refused, not answered', () => {
    expect(errorCode(() => isDeviceAllowed(head, 'rita', device('rita-phone')))).toBe('malformed');
    expect(errorCode(() => isDeviceAllowed(head, id('rita'), device('x').toUpperCase()))).toBe('malformed');
  });
});

describe('applying changes', () => {
  it('rejects unknown members and devices, duplicates and empty change lists without touching prev', () => {
    const snapshot = JSON.stringify(head);
    const ghost = person('ghost').id;
    expect(proposeCode({ kind: 'set_role', memberId: ghost, role: 'reader' }, 'olivia')).toBe(
      'unknown_member',
    );
    expect(proposeCode({ kind: 'remove_device', memberId: id('eve'), fingerprint: device('x') }, 'eve')).toBe(
      'unknown_device',
    );
    expect(
      proposeCode({ kind: 'add_device', memberId: id('eve'), fingerprint: device('rita-phone') }, 'adam'),
    ).toBe('duplicate');
    expect(
      proposeCode({ kind: 'add_member', member: { id: id('eve'), name: 'x', role: 'reader' } }, 'adam'),
    ).toBe('duplicate');
    expect(proposeCode([], 'olivia')).toBe('no_change');
    const renameBack: PolicyChange[] = [
      { kind: 'rename_member', memberId: id('eve'), name: 'tmp' },
      { kind: 'rename_member', memberId: id('eve'), name: 'eve' },
    ];
    expect(proposeCode(renameBack, 'adam')).toBe('no_change');
    expect(proposeCode({ kind: 'set_role', memberId: id('eve'), role: 'root' as never }, 'adam')).toBe(
      'malformed',
    );
    expect(proposeCode({ kind: 'frobnicate' } as never, 'adam')).toBe('malformed');
    expect(JSON.stringify(head)).toBe(snapshot);
  });

  it('applyPolicyChanges returns the next unsigned body without judging authority', () => {
    const body = applyPolicyChanges(head, [{ kind: 'set_role', memberId: id('rita'), role: 'admin' }]);
    expect(body).toMatchObject({ seq: head.seq + 1, epoch: head.epoch });
    expect(Object.isFrozen(body)).toBe(true);
  });
});
