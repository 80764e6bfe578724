import fc from 'fast-check';
import { planGrantIssue, type GrantIssuer, type ParentGrant } from './grant-issuer';
import { GRANT_SCOPES, type GrantScope } from './grant-scope';
import { descendantsOf, purgeExpired, revokeGrant, type GrantNode } from './grant-tree';
import { ROLES, type Role } from './roles';

// Independent restatement of the caps (GRANT-1): rank of role = rank of its cap.
const rank = (x: Role | GrantScope): number =>
  (ROLES as readonly string[]).includes(x) ? ROLES.indexOf(x as Role) : GRANT_SCOPES.indexOf(x as GrantScope);
const MIN = 60_000;
const T0 = 1_700_000_000_000;

const roleArb = fc.constantFrom(...ROLES);
// Every field mostly takes a valid value and sometimes an invalid one, so that
// chains often reach depth 2 and every rule is still exercised.
const stepArb = fc.record({
  scope: fc.option(fc.constantFrom(...GRANT_SCOPES), { nil: undefined, freq: 2 }),
  minutes: fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 20 }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: -2, max: 65 }) },
  ),
  recipientRole: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Role>('admin', 'admin', 'owner', 'editor', 'reader') },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
  recipientName: fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom('bob', 'cy', 'dee') },
    fc.constant('center-admin'),
  ),
  vault: fc.constantFrom('v1', 'v1', 'v1', 'v1', 'v1', 'v2'),
  advanceMs: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, fc.integer({ min: 0, max: 70 * MIN })),
  /** The holder's role at re-delegation time: usually its role, sometimes changed. */
  subjectRole: fc.option(roleArb, { nil: undefined, freq: 3 }),
  active: fc.oneof({ weight: 8, arbitrary: fc.nat({ max: 9_999 }) }, fc.integer({ min: 9_999, max: 10_001 })),
});
const memberRoleArb = fc.constantFrom<Role>('owner', 'admin', 'admin', 'editor', 'reader');

describe('grant properties', () => {
  it('GRANT-1, GRANT-4..GRANT-7, GRANT-9: over random chains a grant never exceeds its parent or issuer cap, depth <= 2', () => {
    const seen = { issued: 0, depth2: 0, depth3Attempts: 0 };
    fc.assert(
      fc.property(memberRoleArb, fc.array(stepArb, { minLength: 1, maxLength: 4 }), (memberRole, steps) => {
        let parent: (ParentGrant & { holderRole: Role }) | null = null;
        let now = T0;
        steps.forEach((step, i) => {
          now += step.advanceMs;
          const issuerRole: Role = parent ? (step.subjectRole ?? parent.holderRole) : memberRole;
          const issuer: GrantIssuer = parent
            ? { kind: 'grant', parent, subjectRole: issuerRole }
            : { kind: 'member', name: 'ana', role: memberRole };
          const recipient = { name: step.recipientName, role: step.recipientRole };
          const decision = planGrantIssue({
            issuer,
            vault: step.vault,
            scope: step.scope,
            minutes: step.minutes,
            recipient,
            now,
            activeGrants: step.active,
          });

          const scope = step.scope ?? 'read';
          const depth = (parent?.depth ?? 0) + 1;
          const expiresAt = now + step.minutes * MIN;
          const expected =
            rank(issuerRole) >= rank('admin') &&
            (!parent || (now < parent.expiresAt && step.vault === parent.vault)) &&
            depth <= 2 &&
            Number.isInteger(step.minutes) &&
            step.minutes >= 1 &&
            step.minutes <= 60 &&
            (!parent || expiresAt <= parent.expiresAt) &&
            rank(scope) <= rank(issuerRole) &&
            (!parent || rank(scope) <= rank(parent.scope)) &&
            step.recipientName !== 'center-admin' &&
            step.recipientRole !== null &&
            rank(step.recipientRole) <= rank(issuerRole) &&
            rank(scope) <= rank(step.recipientRole) &&
            step.active < 10_000;
          expect(decision.ok).toBe(expected);
          if (depth > 2) seen.depth3Attempts++;
          if (!decision.ok) return;

          const { plan } = decision;
          expect(rank(plan.scope)).toBeLessThanOrEqual(rank(issuerRole));
          expect(plan.depth).toBeLessThanOrEqual(2);
          expect(plan.depth).toBe(depth);
          expect(plan.expiresAt - now).toBeGreaterThanOrEqual(MIN);
          expect(plan.expiresAt - now).toBeLessThanOrEqual(60 * MIN);
          if (parent) {
            expect(rank(plan.scope)).toBeLessThanOrEqual(rank(parent.scope));
            expect(plan.vault).toBe(parent.vault);
            expect(plan.expiresAt).toBeLessThanOrEqual(parent.expiresAt);
            expect(plan.parentId).toBe(parent.id);
            expect(plan.issuer).toBe(parent.subject);
          }
          seen.issued++;
          if (plan.depth === 2) seen.depth2++;
          parent = { id: `g${i}`, ...plan, holderRole: step.recipientRole as Role };
        });
      }),
      { numRuns: 1000 },
    );
    expect(seen.issued).toBeGreaterThan(200);
    expect(seen.depth2).toBeGreaterThan(10);
    expect(seen.depth3Attempts).toBeGreaterThan(3);
  });

  const forestArb = fc
    .array(
      fc.record({
        parent: fc.option(fc.nat(), { nil: null }),
        orphan: fc.boolean(),
        expiresAt: fc.integer({ min: 0, max: 100 }),
      }),
      { minLength: 1, maxLength: 30 },
    )
    .map((specs) =>
      specs.map((s, i): GrantNode => {
        let parentId: string | null = null;
        if (s.parent !== null)
          parentId = s.orphan && s.parent % 7 === 0 ? 'missing' : i > 0 ? `g${s.parent % i}` : null;
        return {
          id: `g${i}`,
          parentId,
          vault: 'v1',
          scope: 'read',
          issuer: 'a',
          subject: 'b',
          expiresAt: s.expiresAt,
        };
      }),
    );

  /** Oracle: the ancestor chain of each grant, walked by hand; `broken` when a parent is missing. */
  function ancestors(grants: readonly GrantNode[], g: GrantNode): { chain: string[]; broken: boolean } {
    const byId = new Map(grants.map((x) => [x.id, x]));
    const chain: string[] = [];
    for (let cur = g; cur.parentId !== null;) {
      const up = byId.get(cur.parentId);
      if (!up) return { chain, broken: true };
      chain.push(up.id);
      cur = up;
    }
    return { chain, broken: false };
  }

  it('GRANT-13: purging removes exactly the expired grants, their descendants and orphans', () => {
    fc.assert(
      fc.property(forestArb, fc.integer({ min: 0, max: 100 }), (grants, now) => {
        const byId = new Map(grants.map((g) => [g.id, g]));
        const alive = (g: GrantNode): boolean => {
          const { chain, broken } = ancestors(grants, g);
          return !broken && g.expiresAt > now && chain.every((id) => byId.get(id)!.expiresAt > now);
        };
        const { survivors, removedIds } = purgeExpired(grants, now);
        expect(removedIds).toEqual(grants.filter((g) => !alive(g)).map((g) => g.id));
        expect(survivors.map((g) => g.id)).toEqual(grants.filter(alive).map((g) => g.id));
        const kept = new Set(survivors.map((g) => g.id));
        for (const g of survivors) expect(g.parentId === null || kept.has(g.parentId)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('GRANT-14: revoking a grant removes it and every descendant, and nothing else', () => {
    fc.assert(
      fc.property(forestArb, fc.nat(), (grants, pick) => {
        const target = grants[pick % grants.length]!.id;
        const below = (g: GrantNode) => ancestors(grants, g).chain.includes(target);
        const expected = grants.filter(below).map((g) => g.id);
        expect(descendantsOf(grants, target)).toEqual(expected);
        const { survivors, removedIds } = revokeGrant(grants, target);
        expect(removedIds).toEqual(grants.filter((g) => g.id === target || below(g)).map((g) => g.id));
        for (const g of survivors) expect(g.id === target || below(g)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
