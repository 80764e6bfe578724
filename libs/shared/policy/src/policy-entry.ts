// The policy entry model (POL-1) and its strict parser. A parsed entry is
// canonical (lists strictly ascending, no unknown keys) and deeply frozen, so
// one entry has exactly one spelling and one hash.
import { isRole, type Role } from './roles';
import { PolicyError } from './policy.errors';
import {
  deepFreeze,
  hasExactKeys,
  isHex32,
  isHex64,
  isMemberName,
  isPlainObject,
  isReservedName,
  isStrictlyAscending,
  isU32,
  isVaultId,
} from './validation';

/** Domain label that starts every signed policy encoding. */
export const POLICY_DOMAIN = 'arslan-policy/v1';
export const MAX_MEMBERS = 1024;
export const MAX_DEVICES_PER_MEMBER = 64;
export const MAX_REVOKED = 65_536;

/** Hex of a user identity Ed25519 public key (64 lowercase hex digits). */
export type MemberId = string;
/** Full SHA-256 device fingerprint, 64 lowercase hex digits (DEV-10). */
export type DeviceFingerprint = string;

export interface PolicyMember {
  readonly id: MemberId;
  readonly name: string;
  readonly role: Role;
  /** This member's device allow-list (DEV-2), strictly ascending. */
  readonly devices: readonly DeviceFingerprint[];
  /**
   * DEV-5: may this member's own identity key add devices to its own
   * allow-list (POL-4)? True for new members and genesis; a `revoke_device` of
   * one of the member's devices sets it false, and only the Owner sets it back
   * (`restore_self_enrollment`).
   */
  readonly selfEnrollment: boolean;
}

/** Everything an entry says, before it is signed. */
export interface PolicyBody {
  readonly vaultId: string;
  readonly seq: number;
  /** SHA-256 hex of the previous entry; null only for the genesis entry. */
  readonly prevHash: string | null;
  readonly epoch: number;
  /** Strictly ascending by id. */
  readonly members: readonly PolicyMember[];
  /** Grow-only revocation set (POL-10), strictly ascending. */
  readonly revoked: readonly DeviceFingerprint[];
}

export interface PolicyEntry extends PolicyBody {
  /** Member id whose identity key signed this entry. */
  readonly signer: MemberId;
  /** Ed25519 signature, 128 lowercase hex digits. */
  readonly signature: string;
}

const MEMBER_KEYS = ['id', 'name', 'role', 'devices', 'selfEnrollment'] as const;
const BODY_KEYS = ['vaultId', 'seq', 'prevHash', 'epoch', 'members', 'revoked'] as const;
const ENTRY_KEYS = [...BODY_KEYS, 'signer', 'signature'] as const;

function malformed(message: string): never {
  throw new PolicyError('malformed', message);
}

function parseFingerprints(value: unknown, max: number, what: string): DeviceFingerprint[] {
  if (!Array.isArray(value) || value.length > max) malformed(`${what} must be an array of at most ${max}`);
  const out: string[] = [];
  for (const fp of value as unknown[]) {
    if (!isHex32(fp)) malformed(`${what} holds a value that is not a 64-hex fingerprint`);
    out.push(fp);
  }
  if (!isStrictlyAscending(out)) malformed(`${what} must be strictly ascending (sorted, no duplicates)`);
  return out;
}

function parseMember(value: unknown): PolicyMember {
  if (!isPlainObject(value) || !hasExactKeys(value, MEMBER_KEYS)) malformed('member has the wrong shape');
  const { id, name, role, devices, selfEnrollment } = value;
  if (!isHex32(id)) malformed('member id must be a 64-hex Ed25519 public key');
  if (!isMemberName(name)) malformed('member name must be 1-128 UTF-8 bytes without control characters');
  if (isReservedName(name)) malformed(`member name "${name}" is reserved (GRANT-7)`);
  if (!isRole(role)) malformed('member role is unknown');
  if (typeof selfEnrollment !== 'boolean') malformed('member selfEnrollment must be a boolean (DEV-5)');
  return {
    id,
    name,
    role,
    devices: parseFingerprints(devices, MAX_DEVICES_PER_MEMBER, 'devices'),
    selfEnrollment,
  };
}

function parseBodyFields(value: Record<string, unknown>): PolicyBody {
  const { vaultId, seq, prevHash, epoch, members, revoked } = value;
  if (!isVaultId(vaultId)) malformed('vaultId must be 1-128 characters [A-Za-z0-9._:-]');
  if (!isU32(seq)) malformed('seq must be an integer 0..2^32-1');
  if (prevHash !== null && !isHex32(prevHash)) malformed('prevHash must be null or 64 hex');
  if ((seq === 0) !== (prevHash === null)) malformed('prevHash is null exactly for seq 0');
  if (!isU32(epoch)) malformed('epoch must be an integer 0..2^32-1');
  if (!Array.isArray(members) || members.length === 0 || members.length > MAX_MEMBERS) {
    malformed(`members must be a non-empty array of at most ${MAX_MEMBERS}`);
  }
  const parsedMembers = (members as unknown[]).map(parseMember);
  if (!isStrictlyAscending(parsedMembers.map((m) => m.id)))
    malformed('members must be strictly ascending by id');
  const names = new Set(parsedMembers.map((m) => m.name));
  if (names.size !== parsedMembers.length) malformed('member names must be unique');
  const allDevices = parsedMembers.flatMap((m) => m.devices);
  if (new Set(allDevices).size !== allDevices.length)
    malformed('a device fingerprint is listed for two members');
  return {
    vaultId,
    seq,
    prevHash,
    epoch,
    members: parsedMembers,
    revoked: parseFingerprints(revoked, MAX_REVOKED, 'revoked'),
  };
}

/** Validates an unsigned body; throws `PolicyError('malformed')`. */
export function parsePolicyBody(value: unknown): PolicyBody {
  if (!isPlainObject(value) || !hasExactKeys(value, BODY_KEYS)) malformed('policy body has the wrong shape');
  return deepFreeze(parseBodyFields(value));
}

/**
 * Validates a signed entry received from anywhere (JSON, another device, the
 * Center). Shape only: signature, chain and authorization are the verifier's job.
 */
export function parsePolicyEntry(value: unknown): PolicyEntry {
  if (!isPlainObject(value) || !hasExactKeys(value, ENTRY_KEYS))
    malformed('policy entry has the wrong shape');
  const body = parseBodyFields(value);
  const { signer, signature } = value;
  if (!isHex32(signer)) malformed('signer must be a 64-hex member id');
  if (!isHex64(signature)) malformed('signature must be 128 hex');
  return deepFreeze({ ...body, signer, signature });
}

/** Sorts members, devices and revocations into canonical order (no other change). */
export function canonicalizeBody(body: PolicyBody): PolicyBody {
  if (!isPlainObject(body) || !Array.isArray(body.members) || !Array.isArray(body.revoked)) {
    malformed('policy body has the wrong shape');
  }
  const members = body.members.map((m) =>
    isPlainObject(m) && Array.isArray(m.devices) ? { ...m, devices: [...m.devices].sort() } : m,
  );
  const idOf = (m: unknown): string => (isPlainObject(m) && typeof m.id === 'string' ? m.id : '');
  members.sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  return { ...body, members, revoked: [...body.revoked].sort() };
}
