// Public entry of @arslan/policy. Every export is deliberate: the surface is
// pinned by public-surface.spec.ts.
export { ROLES, isRole, roleRank, roleAtMost, type Role } from './roles';
export { PolicyError, POLICY_ERROR_CODES, isPolicyError, type PolicyErrorCode } from './policy.errors';
export {
  POLICY_DOMAIN,
  MAX_MEMBERS,
  MAX_DEVICES_PER_MEMBER,
  MAX_REVOKED,
  parsePolicyEntry,
  parsePolicyBody,
  type MemberId,
  type DeviceFingerprint,
  type PolicyMember,
  type PolicyBody,
  type PolicyEntry,
} from './policy-entry';
export { policySigningBytes, policyEntryHash } from './policy-encoding';
export { memberIdFromSeed } from './policy-crypto';
export { signPolicyEntry, createGenesisPolicy, type GenesisInput } from './policy-signer';
export { applyPolicyChanges, type PolicyChange } from './policy-change';
export { proposePolicyChange } from './policy-proposer';
export {
  verifyPolicyHistory,
  verifyPolicyTransition,
  type VerifyPolicyOptions,
  type VerifiedPolicyHistory,
} from './policy-verifier';
export { isDeviceAllowed, findMember, memberRole, policyOwner } from './policy-queries';
export {
  GRANT_SCOPES,
  GRANT_ACTIONS,
  DEFAULT_GRANT_SCOPE,
  MIN_GRANT_MINUTES,
  MAX_GRANT_MINUTES,
  MAX_GRANT_DEPTH,
  MAX_ACTIVE_GRANTS,
  RESERVED_MEMBER_NAME,
  isGrantScope,
  isGrantAction,
  scopeRank,
  scopeAtMost,
  roleCap,
  requiredScope,
  scopeAllows,
  type GrantScope,
  type GrantAction,
} from './grant-scope';
export { GrantError, GRANT_ERROR_CODES, isGrantError, type GrantErrorCode } from './grant.errors';
export {
  planGrantIssue,
  type ParentGrant,
  type GrantIssuer,
  type GrantIssueRequest,
  type GrantPlan,
  type GrantDecision,
} from './grant-issuer';
export {
  descendantsOf,
  revokeGrant,
  purgeExpired,
  grantsInvalidatedByPolicyChange,
  type GrantNode,
  type GrantRemoval,
  type MemberRoster,
} from './grant-tree';
