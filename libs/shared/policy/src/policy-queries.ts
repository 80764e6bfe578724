// Read-only questions about one (already verified) policy entry.
import { parsePolicyEntry, type PolicyEntry, type PolicyMember } from './policy-entry';
import { PolicyError } from './policy.errors';
import { type Role } from './roles';
import { isHex32 } from './validation';

function checkId(value: unknown, what: string): asserts value is string {
  if (!isHex32(value)) throw new PolicyError('malformed', `${what} must be 64 lowercase hex`);
}

export function findMember(policy: PolicyEntry, memberId: string): PolicyMember | undefined {
  checkId(memberId, 'memberId');
  return parsePolicyEntry(policy).members.find((m) => m.id === memberId);
}

export function memberRole(policy: PolicyEntry, memberId: string): Role | undefined {
  return findMember(policy, memberId)?.role;
}

/** The single Owner (POL-8). */
export function policyOwner(policy: PolicyEntry): PolicyMember {
  const owners = parsePolicyEntry(policy).members.filter((m) => m.role === 'owner');
  if (owners.length !== 1) throw new PolicyError('owner_count', `policy has ${owners.length} Owners`);
  return owners[0] as PolicyMember;
}

/**
 * DEV-2: a device is accepted only when this vault's policy lists it in the
 * member's allow-list and has not revoked it. A valid certificate from the
 * member's identity key is never enough on its own; check it separately.
 */
export function isDeviceAllowed(policy: PolicyEntry, memberId: string, fingerprint: string): boolean {
  checkId(memberId, 'memberId');
  checkId(fingerprint, 'fingerprint');
  const parsed = parsePolicyEntry(policy);
  if (parsed.revoked.includes(fingerprint)) return false;
  const member = parsed.members.find((m) => m.id === memberId);
  return member !== undefined && member.devices.includes(fingerprint);
}
