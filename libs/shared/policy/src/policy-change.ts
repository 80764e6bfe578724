// Named policy changes and their pure application to the previous entry. The
// result is an unsigned body; authority is decided by the rules, not here.
import { PolicyError } from './policy.errors';
import { policyEntryHashUnchecked } from './policy-encoding';
import {
  canonicalizeBody,
  parsePolicyBody,
  parsePolicyEntry,
  type PolicyBody,
  type PolicyEntry,
} from './policy-entry';
import { expectedEpoch, sameContent } from './policy-rules';
import { type Role } from './roles';
import { isPlainObject } from './validation';

export type PolicyChange =
  | {
      readonly kind: 'add_member';
      readonly member: {
        readonly id: string;
        readonly name: string;
        readonly role: Role;
        readonly devices?: readonly string[];
        /** DEV-5 self-enrolment (POL-4 self-service); default true. */
        readonly selfEnrollment?: boolean;
      };
    }
  | { readonly kind: 'remove_member'; readonly memberId: string }
  | { readonly kind: 'set_role'; readonly memberId: string; readonly role: Role }
  | { readonly kind: 'rename_member'; readonly memberId: string; readonly name: string }
  | { readonly kind: 'add_device'; readonly memberId: string; readonly fingerprint: string }
  | { readonly kind: 'remove_device'; readonly memberId: string; readonly fingerprint: string }
  /**
   * Adds to the revocation set, drops the device from every allow-list and
   * suspends self-enrolment of the member who listed it (DEV-5).
   */
  | { readonly kind: 'revoke_device'; readonly fingerprint: string }
  /** Lets a suspended member add their own devices again (DEV-5). Owner only. */
  | { readonly kind: 'restore_self_enrollment'; readonly memberId: string }
  /** The current Owner becomes `formerOwnerRole` (default admin) and `to` becomes Owner (POL-8). */
  | {
      readonly kind: 'transfer_ownership';
      readonly to: string;
      readonly formerOwnerRole?: Exclude<Role, 'owner'>;
    };

interface DraftMember {
  id: string;
  name: string;
  role: Role;
  devices: string[];
  selfEnrollment: boolean;
}

function need<T>(value: T | undefined, code: 'unknown_member' | 'unknown_device', what: string): T {
  if (value === undefined) throw new PolicyError(code, what);
  return value;
}

function applyOne(
  before: PolicyBody,
  members: Map<string, DraftMember>,
  revoked: string[],
  change: PolicyChange,
): void {
  if (!isPlainObject(change)) throw new PolicyError('malformed', 'a change must be an object');
  const member = (id: string): DraftMember =>
    need(members.get(id), 'unknown_member', `no member ${String(id)}`);
  switch (change.kind) {
    case 'add_member': {
      const m = change.member;
      if (!isPlainObject(m)) throw new PolicyError('malformed', 'add_member needs a member');
      if (members.has(m.id)) throw new PolicyError('duplicate', `member ${m.id} already exists`);
      const devices: unknown = m.devices ?? [];
      if (!Array.isArray(devices)) throw new PolicyError('malformed', 'devices must be an array');
      const selfEnrollment: unknown = m.selfEnrollment ?? true;
      if (typeof selfEnrollment !== 'boolean')
        throw new PolicyError('malformed', 'selfEnrollment must be a boolean');
      members.set(m.id, {
        id: m.id,
        name: m.name,
        role: m.role,
        devices: [...(devices as string[])],
        selfEnrollment,
      });
      return;
    }
    case 'remove_member':
      member(change.memberId);
      members.delete(change.memberId);
      return;
    case 'set_role':
      member(change.memberId).role = change.role;
      return;
    case 'rename_member':
      member(change.memberId).name = change.name;
      return;
    case 'add_device': {
      const target = member(change.memberId);
      if (revoked.includes(change.fingerprint)) {
        throw new PolicyError('revoked_device', `device ${change.fingerprint} is revoked (DEV-5)`);
      }
      if ([...members.values()].some((m) => m.devices.includes(change.fingerprint))) {
        throw new PolicyError('duplicate', `device ${change.fingerprint} is already listed`);
      }
      target.devices.push(change.fingerprint);
      return;
    }
    case 'remove_device': {
      const target = member(change.memberId);
      const at = target.devices.indexOf(change.fingerprint);
      need(
        at >= 0 ? at : undefined,
        'unknown_device',
        `${change.fingerprint} is not a device of ${target.id}`,
      );
      target.devices.splice(at, 1);
      return;
    }
    case 'revoke_device':
      if (revoked.includes(change.fingerprint))
        throw new PolicyError('duplicate', 'device is already revoked');
      revoked.push(change.fingerprint);
      // DEV-5: whoever lists the device now, or listed it in the previous
      // entry, loses self-enrolment (the verifier checks the latter).
      for (const m of members.values()) {
        const heldBefore = before.members.some(
          (b) => b.id === m.id && b.devices.includes(change.fingerprint),
        );
        if (heldBefore || m.devices.includes(change.fingerprint)) m.selfEnrollment = false;
        m.devices = m.devices.filter((fp) => fp !== change.fingerprint);
      }
      return;
    case 'restore_self_enrollment': {
      const target = member(change.memberId);
      if (target.selfEnrollment)
        throw new PolicyError('no_change', `self-enrolment of ${target.id} is not suspended`);
      target.selfEnrollment = true;
      return;
    }
    case 'transfer_ownership': {
      const target = member(change.to);
      const formerRole = change.formerOwnerRole ?? 'admin';
      if (target.role === 'owner') throw new PolicyError('no_change', 'the recipient already is the Owner');
      if ((formerRole as Role) === 'owner')
        throw new PolicyError('owner_count', 'the former Owner cannot stay Owner');
      for (const m of members.values()) if (m.role === 'owner') m.role = formerRole;
      target.role = 'owner';
      return;
    }
    default: {
      const unknown: never = change;
      throw new PolicyError(
        'malformed',
        `unknown change kind ${String((unknown as { kind?: unknown }).kind)}`,
      );
    }
  }
}

/**
 * Applies `changes` in order to a copy of `prev` and returns the next unsigned
 * body: seq + 1, prevHash = hash(prev), epoch advanced when access shrinks.
 * Validates the result's shape; never returns a partially-applied body.
 */
export function applyPolicyChanges(prev: PolicyEntry, changes: readonly PolicyChange[]): PolicyBody {
  const before = parsePolicyEntry(prev);
  const hash = policyEntryHashUnchecked(before);
  if (!Array.isArray(changes) || changes.length === 0) throw new PolicyError('no_change', 'no changes given');
  const members = new Map<string, DraftMember>(
    before.members.map((m) => [m.id, { ...m, devices: [...m.devices] }]),
  );
  const revoked = [...before.revoked];
  for (const change of changes) applyOne(before, members, revoked, change);
  const draft = canonicalizeBody({
    vaultId: before.vaultId,
    seq: before.seq + 1,
    prevHash: hash,
    epoch: before.epoch,
    members: [...members.values()],
    revoked,
  });
  const shaped = parsePolicyBody(draft);
  if (sameContent(before, shaped)) throw new PolicyError('no_change', 'the changes cancel out');
  return parsePolicyBody({ ...shaped, epoch: expectedEpoch(before, shaped) });
}
