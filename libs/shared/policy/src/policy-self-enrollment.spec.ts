// DEV-5 beyond fingerprints: after a revocation, the member's own identity key
// (which may sit on the revoked device) can no longer enrol new devices.
import { type PolicyChange } from './policy-change';
import { type PolicyBody, type PolicyEntry } from './policy-entry';
import { proposePolicyChange } from './policy-proposer';
import { findMember } from './policy-queries';
import { verifyPolicyHistory, verifyPolicyTransition } from './policy-verifier';
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
const propose = (changes: PolicyChange | PolicyChange[], signer: string, prev: PolicyEntry) =>
  proposePolicyChange(prev, changes, person(signer).seed);
const proposeCode = (changes: PolicyChange | PolicyChange[], signer: string, prev: PolicyEntry) =>
  errorCode(() => propose(changes, signer, prev));
const addDevice = (label: string, fp: string): PolicyChange => ({
  kind: 'add_device',
  memberId: id(label),
  fingerprint: fp,
});
const restore = (label: string): PolicyChange => ({ kind: 'restore_self_enrollment', memberId: id(label) });
const selfEnrolled = (entry: PolicyEntry, label: string) => findMember(entry, id(label))?.selfEnrollment;

// Rita (Reader) and Adam (Admin) each lose their phone to an Owner revocation.
const revoked = propose(
  [
    { kind: 'revoke_device', fingerprint: device('rita-phone') },
    { kind: 'revoke_device', fingerprint: device('adam-phone') },
  ],
  'olivia',
  head,
);
const history = [...base, revoked];
const forgedCode = (signer: string, edit: (b: PolicyBody) => PolicyBody, prev = revoked, h = history) =>
  errorCode(() => verifyPolicyHistory([...h, forge(prev, edit, person(signer))]));
const withNewDevice = (label: string, fp: string) => (b: PolicyBody) =>
  withMember(b, label, { devices: [...memberOf(b, label).devices, fp].sort() });

describe('self-enrolment after a revocation (DEV-5)', () => {
  it('DEV-5: new members and genesis may self-enrol; revoking a device suspends only its holder', () => {
    expect(base.every((e) => e.members.every((m) => m.selfEnrollment))).toBe(true);
    expect(selfEnrolled(revoked, 'rita')).toBe(false);
    expect(selfEnrolled(revoked, 'adam')).toBe(false);
    expect(selfEnrolled(revoked, 'eve')).toBe(true);
    expect(selfEnrolled(revoked, 'olivia')).toBe(true);
    expect(verifyPolicyHistory(history).head).toEqual(revoked);
  });

  it('DEV-5: a revoked member cannot certify a new device of its own with its identity key', () => {
    const fresh = device('rita-new-key');
    expect(proposeCode(addDevice('rita', fresh), 'rita', revoked)).toBe('not_authorized');
    expect(() => propose(addDevice('rita', fresh), 'rita', revoked)).toThrow(/DEV-5/);
    const forged = forge(revoked, withNewDevice('rita', fresh), person('rita'));
    expect(() => verifyPolicyTransition(revoked, forged)).toThrow(/not_authorized: DEV-5/);
    expect(errorCode(() => verifyPolicyHistory([...history, forged]))).toBe('not_authorized');
    // The suspension lasts: other entries in between do not lift it.
    const later = propose({ kind: 'rename_member', memberId: id('eve'), name: 'eve2' }, 'ada', revoked);
    expect(selfEnrolled(later, 'rita')).toBe(false);
    expect(proposeCode(addDevice('rita', fresh), 'rita', later)).toBe('not_authorized');
  });

  it('DEV-5: a suspended Admin cannot self-enrol either, but may still act on other members', () => {
    expect(proposeCode(addDevice('adam', device('adam-new')), 'adam', revoked)).toBe('not_authorized');
    expect(forgedCode('adam', withNewDevice('adam', device('adam-new')))).toBe('not_authorized');
    const forEve = propose(addDevice('eve', device('eve-tablet')), 'adam', revoked);
    expect(memberOf(forEve, 'eve').devices).toContain(device('eve-tablet'));
  });

  it('DEV-5: an Admin or the Owner may still add a device for a suspended member; that does not restore self-enrolment', () => {
    const byAdmin = propose(addDevice('rita', device('rita-new')), 'ada', revoked);
    const byOwner = propose(addDevice('adam', device('adam-new')), 'olivia', byAdmin);
    expect(memberOf(byOwner, 'rita').devices).toEqual([device('rita-new')]);
    expect(selfEnrolled(byOwner, 'rita')).toBe(false);
    expect(selfEnrolled(byOwner, 'adam')).toBe(false);
    expect(verifyPolicyHistory([...history, byAdmin, byOwner]).head).toEqual(byOwner);
    expect(proposeCode(addDevice('rita', device('rita-2')), 'rita', byOwner)).toBe('not_authorized');
  });

  it('DEV-5: a suspended member may still remove its own devices', () => {
    const added = propose(addDevice('rita', device('rita-new')), 'ada', revoked);
    const removed = propose(
      { kind: 'remove_device', memberId: id('rita'), fingerprint: device('rita-new') },
      'rita',
      added,
    );
    expect(memberOf(removed, 'rita').devices).toEqual([]);
    expect(verifyPolicyHistory([...history, added, removed]).head).toEqual(removed);
  });

  it('DEV-5: only the Owner may restore self-enrolment, and then self-service works again', () => {
    expect(proposeCode(restore('rita'), 'rita', revoked)).toBe('not_authorized');
    expect(proposeCode(restore('rita'), 'ada', revoked)).toBe('not_authorized');
    expect(proposeCode(restore('adam'), 'adam', revoked)).toBe('not_authorized');
    expect(() => propose(restore('rita'), 'ada', revoked)).toThrow(/DEV-5/);
    expect(forgedCode('ada', (b) => withMember(b, 'rita', { selfEnrollment: true }))).toBe('not_authorized');
    expect(forgedCode('rita', (b) => withMember(b, 'rita', { selfEnrollment: true }))).toBe('not_authorized');
    // A flag-only change is a real change; it does not start a new epoch.
    const restored = propose(restore('rita'), 'olivia', revoked);
    expect(selfEnrolled(restored, 'rita')).toBe(true);
    expect(selfEnrolled(restored, 'adam')).toBe(false);
    expect(restored.epoch).toBe(revoked.epoch);
    const selfAdd = propose(addDevice('rita', device('rita-new')), 'rita', restored);
    expect(verifyPolicyHistory([...history, restored, selfAdd]).head).toEqual(selfAdd);
    expect(proposeCode(restore('eve'), 'olivia', revoked)).toBe('no_change');
  });

  it('DEV-5: removing and re-inviting a suspended member in one entry does not lift the suspension', () => {
    const reinvite = (b: PolicyBody) => withMember(b, 'rita', { selfEnrollment: true });
    const changes: PolicyChange[] = [
      { kind: 'remove_member', memberId: id('rita') },
      { kind: 'add_member', member: { id: id('rita'), name: 'rita', role: 'reader' } },
    ];
    expect(proposeCode(changes, 'ada', revoked)).toBe('not_authorized');
    expect(forgedCode('ada', reinvite)).toBe('not_authorized');
    expect(forgedCode('olivia', reinvite)).toBe('ok');
  });

  it('DEV-5: a re-invitation in a later entry may keep the member suspended (selfEnrollment: false)', () => {
    const removed = propose({ kind: 'remove_member', memberId: id('rita') }, 'ada', revoked);
    const back = (selfEnrollment?: boolean): PolicyChange => ({
      kind: 'add_member',
      member: {
        id: id('rita'),
        name: 'rita',
        role: 'reader',
        ...(selfEnrollment === undefined ? {} : { selfEnrollment }),
      },
    });
    const kept = propose(back(false), 'ada', removed);
    expect(selfEnrolled(kept, 'rita')).toBe(false);
    expect(proposeCode(addDevice('rita', device('rita-new')), 'rita', kept)).toBe('not_authorized');
    expect(selfEnrolled(propose(back(), 'ada', removed), 'rita')).toBe(true);
    expect(proposeCode(back('yes' as never), 'ada', removed)).toBe('malformed');
  });

  it('DEV-5: a revocation must suspend the holder, and nothing else suspends anyone', () => {
    const keepFlag = (b: PolicyBody) => ({
      ...withMember(b, 'eve', { devices: [], selfEnrollment: true }),
      revoked: [...b.revoked, device('eve-phone')].sort(),
      epoch: b.epoch + 1,
    });
    expect(forgedCode('olivia', keepFlag)).toBe('not_authorized');
    expect(forgedCode('olivia', (b) => withMember(b, 'eve', { selfEnrollment: false }))).toBe(
      'not_authorized',
    );
    expect(
      errorCode(() => verifyPolicyHistory([...history, forge(revoked, (b) => b, person('olivia'))])),
    ).toBe('no_change');
  });

  it('DEV-5: the Owner acting on its own list is exempt (the root of trust), until it hands over ownership', () => {
    const ownRevoked = propose(
      { kind: 'revoke_device', fingerprint: device('olivia-phone') },
      'olivia',
      head,
    );
    expect(selfEnrolled(ownRevoked, 'olivia')).toBe(false);
    const ownAdd = propose(addDevice('olivia', device('olivia-new')), 'olivia', ownRevoked);
    expect(selfEnrolled(ownAdd, 'olivia')).toBe(false);
    const moved = propose({ kind: 'transfer_ownership', to: id('ada') }, 'olivia', ownAdd);
    expect(proposeCode(addDevice('olivia', device('olivia-2')), 'olivia', moved)).toBe('not_authorized');
    expect(verifyPolicyHistory([...base, ownRevoked, ownAdd, moved]).head).toEqual(moved);
  });
});
