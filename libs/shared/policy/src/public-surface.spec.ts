// Pins the public surface. Changing this list is an API change: do it on
// purpose, never to make CI pass.
import * as api from './index';

describe('@arslan/policy public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'DEFAULT_GRANT_SCOPE',
        'GRANT_ACTIONS',
        'GRANT_ERROR_CODES',
        'GRANT_SCOPES',
        'GrantError',
        'MAX_ACTIVE_GRANTS',
        'MAX_DEVICES_PER_MEMBER',
        'MAX_GRANT_DEPTH',
        'MAX_GRANT_MINUTES',
        'MAX_MEMBERS',
        'MAX_REVOKED',
        'MIN_GRANT_MINUTES',
        'POLICY_DOMAIN',
        'POLICY_ERROR_CODES',
        'PolicyError',
        'RESERVED_MEMBER_NAME',
        'ROLES',
        'applyPolicyChanges',
        'createGenesisPolicy',
        'descendantsOf',
        'findMember',
        'grantsInvalidatedByPolicyChange',
        'isDeviceAllowed',
        'isGrantAction',
        'isGrantError',
        'isGrantScope',
        'isPolicyError',
        'isRole',
        'memberIdFromSeed',
        'memberRole',
        'parsePolicyBody',
        'parsePolicyEntry',
        'planGrantIssue',
        'policyEntryHash',
        'policyOwner',
        'policySigningBytes',
        'proposePolicyChange',
        'purgeExpired',
        'requiredScope',
        'revokeGrant',
        'roleAtMost',
        'roleCap',
        'roleRank',
        'scopeAllows',
        'scopeAtMost',
        'scopeRank',
        'signPolicyEntry',
        'verifyPolicyHistory',
        'verifyPolicyTransition',
      ].sort(),
    );
  });

  it('pins the error-code tables and the format label', () => {
    expect(api.POLICY_ERROR_CODES).toEqual([
      'malformed',
      'bad_signature',
      'broken_chain',
      'untrusted_genesis',
      'not_authorized',
      'owner_count',
      'revocation_removed',
      'revoked_device',
      'bad_epoch',
      'unknown_member',
      'unknown_device',
      'duplicate',
      'no_change',
    ]);
    expect(api.GRANT_ERROR_CODES).toEqual([
      'malformed',
      'issuer_cannot_delegate',
      'expired_parent',
      'cross_vault',
      'depth_exceeded',
      'bad_lifetime',
      'outlives_parent',
      'scope_exceeds_role',
      'scope_exceeds_parent',
      'reserved_recipient',
      'recipient_not_member',
      'recipient_role_too_high',
      'scope_exceeds_recipient_role',
      'too_many_grants',
      'unknown_grant',
    ]);
    expect(api.POLICY_DOMAIN).toBe('arslan-policy/v1');
    expect(api.ROLES).toEqual(['reader', 'editor', 'admin', 'owner']);
  });

  it('errors are typed classes carrying their code', () => {
    const p = new api.PolicyError('not_authorized', 'x');
    expect(p).toBeInstanceOf(Error);
    expect([p.name, p.code, api.isPolicyError(p, 'not_authorized')]).toEqual([
      'PolicyError',
      'not_authorized',
      true,
    ]);
    const g = new api.GrantError('too_many_grants', 'x');
    expect([g.name, g.code, api.isGrantError(g), api.isGrantError(p)]).toEqual([
      'GrantError',
      'too_many_grants',
      true,
      false,
    ]);
  });
});
