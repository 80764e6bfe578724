import { type GrantErrorCode } from './grant.errors';
import { planGrantIssue, type GrantIssueRequest, type ParentGrant } from './grant-issuer';
import { type Role } from './roles';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

function request(patch: Partial<GrantIssueRequest> = {}): GrantIssueRequest {
  return {
    issuer: { kind: 'member', name: 'ana', role: 'admin' },
    vault: 'vault-1',
    minutes: 30,
    recipient: { name: 'bob', role: 'editor' },
    now: NOW,
    activeGrants: 0,
    ...patch,
  };
}

const parent: ParentGrant = {
  id: 'g1',
  vault: 'vault-1',
  scope: 'read_write',
  expiresAt: NOW + 30 * MIN,
  depth: 1,
  subject: 'bob',
};
const viaGrant = (subjectRole: Role = 'admin', p: Partial<ParentGrant> = {}) =>
  ({ kind: 'grant', parent: { ...parent, ...p }, subjectRole }) as const;

function codeOf(req: GrantIssueRequest): GrantErrorCode | 'ok' {
  const decision = planGrantIssue(req);
  return decision.ok ? 'ok' : decision.error.code;
}

describe('planGrantIssue', () => {
  it('GRANT-2, GRANT-6: a member issues at depth 1 with default scope read', () => {
    expect(planGrantIssue(request())).toEqual({
      ok: true,
      plan: {
        vault: 'vault-1',
        scope: 'read',
        expiresAt: NOW + 30 * MIN,
        depth: 1,
        issuer: 'ana',
        subject: 'bob',
        parentId: null,
      },
    });
  });

  it('GRANT-6: a grant issues at its depth + 1 with the holder as issuer; depth above 2 is rejected', () => {
    const decision = planGrantIssue(
      request({ issuer: viaGrant(), recipient: { name: 'cy', role: 'reader' } }),
    );
    expect(decision).toMatchObject({
      ok: true,
      plan: { depth: 2, issuer: 'bob', subject: 'cy', parentId: 'g1' },
    });
    expect(codeOf(request({ issuer: viaGrant('admin', { depth: 2 }) }))).toBe('depth_exceeded');
  });

  it('GRANT-3: Readers and Editors can neither issue nor re-delegate', () => {
    for (const role of ['reader', 'editor'] as const) {
      expect(codeOf(request({ issuer: { kind: 'member', name: 'ana', role } }))).toBe(
        'issuer_cannot_delegate',
      );
      expect(codeOf(request({ issuer: viaGrant(role) }))).toBe('issuer_cannot_delegate');
    }
    expect(codeOf(request({ issuer: { kind: 'member', name: 'center-admin', role: 'owner' } }))).toBe(
      'issuer_cannot_delegate',
    );
  });

  it("GRANT-4: scope never exceeds the issuer's role cap or the parent grant's scope", () => {
    expect(codeOf(request({ scope: 'allow_all' }))).toBe('scope_exceeds_role');
    expect(codeOf(request({ scope: 'read_write_delete' }))).toBe('scope_exceeds_recipient_role');
    const owner = { kind: 'member', name: 'ana', role: 'owner' } as const;
    expect(
      codeOf(request({ issuer: owner, scope: 'allow_all', recipient: { name: 'o', role: 'owner' } })),
    ).toBe('ok');
    expect(codeOf(request({ issuer: viaGrant('owner'), scope: 'read_write_delete' }))).toBe(
      'scope_exceeds_parent',
    );
    expect(codeOf(request({ issuer: viaGrant('owner'), scope: 'read_write' }))).toBe('ok');
  });

  it('GRANT-4: a grant stays in its parent vault and never outlives its parent (rejected, not clamped)', () => {
    expect(codeOf(request({ issuer: viaGrant(), vault: 'vault-2' }))).toBe('cross_vault');
    expect(codeOf(request({ issuer: viaGrant(), minutes: 31 }))).toBe('outlives_parent');
    expect(codeOf(request({ issuer: viaGrant(), minutes: 30 }))).toBe('ok');
    expect(codeOf(request({ issuer: viaGrant(), now: parent.expiresAt }))).toBe('expired_parent');
  });

  it.each([0, 61, 1.5, -1, Number.NaN])('GRANT-5: a lifetime of %p minutes is rejected', (minutes) => {
    expect(codeOf(request({ minutes }))).toBe('bad_lifetime');
  });

  it.each([1, 60])('GRANT-5: a lifetime of %p minutes is accepted', (minutes) => {
    expect(planGrantIssue(request({ minutes }))).toMatchObject({
      ok: true,
      plan: { expiresAt: NOW + minutes * MIN },
    });
  });

  it('GRANT-7: the recipient must be an existing member, no higher than the issuer, never center-admin', () => {
    expect(codeOf(request({ recipient: { name: 'zed', role: null } }))).toBe('recipient_not_member');
    expect(codeOf(request({ recipient: { name: 'o', role: 'owner' } }))).toBe('recipient_role_too_high');
    expect(codeOf(request({ recipient: { name: 'center-admin', role: 'reader' } }))).toBe(
      'reserved_recipient',
    );
    expect(codeOf(request({ recipient: { name: 'ana', role: 'admin' } }))).toBe('ok');
  });

  it('GRANT-1, GRANT-8: a recipient cannot hold more than its own role cap', () => {
    const req = request({ scope: 'read_write', recipient: { name: 'rita', role: 'reader' } });
    expect(codeOf(req)).toBe('scope_exceeds_recipient_role');
  });

  it('GRANT-9: at most 10,000 active grants', () => {
    expect(codeOf(request({ activeGrants: 9_999 }))).toBe('ok');
    expect(codeOf(request({ activeGrants: 10_000 }))).toBe('too_many_grants');
  });

  it.each<[string, Partial<GrantIssueRequest>]>([
    ['an unknown scope', { scope: 'root' as never }],
    ['an unknown issuer role', { issuer: { kind: 'member', name: 'ana', role: 'god' as never } }],
    ['an unknown issuer kind', { issuer: { kind: 'bearer' } as never }],
    ['a bad vault', { vault: '' }],
    ['a negative count', { activeGrants: -1 }],
    ['a fractional now', { now: 1.5 }],
    ['a missing recipient', { recipient: undefined as never }],
    ['a parent at depth 0', { issuer: viaGrant('admin', { depth: 0 }) }],
    ['a parent with an unknown scope', { issuer: viaGrant('admin', { scope: 'x' as never }) }],
  ])('rejects %s as malformed without throwing', (_what, patch) => {
    expect(codeOf(request(patch))).toBe('malformed');
  });

  it('returns a frozen plan', () => {
    const decision = planGrantIssue(request());
    expect(decision.ok && Object.isFrozen(decision.plan)).toBe(true);
  });
});
