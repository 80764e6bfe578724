// The grant delegation tree: revocation and expiry reach every descendant
// (GRANT-13, GRANT-14) and policy changes invalidate affected grants (GRANT-15).
import { GrantError } from './grant.errors';
import { isGrantScope, roleCap, scopeAtMost, type GrantScope } from './grant-scope';
import { isRole, type Role } from './roles';
import { isPlainObject, isVaultId } from './validation';

/** The fields of a stored grant that the tree math reads. */
export interface GrantNode {
  readonly id: string;
  readonly parentId: string | null;
  readonly vault: string;
  readonly scope: GrantScope;
  readonly issuer: string;
  readonly subject: string;
  /** Milliseconds since the Unix epoch. */
  readonly expiresAt: number;
}

export interface GrantRemoval<G extends GrantNode> {
  readonly survivors: readonly G[];
  readonly removedIds: readonly string[];
}

/** A vault's member roster; a `PolicyEntry` is one, and so is a Center member list. */
export interface MemberRoster {
  readonly vaultId: string;
  readonly members: readonly { readonly name: string; readonly role: Role }[];
}

function malformed(message: string): never {
  throw new GrantError('malformed', message);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function checkNode(g: unknown): void {
  if (!isPlainObject(g) || !isId(g.id) || (g.parentId !== null && !isId(g.parentId)))
    malformed('bad grant ids');
  if (!isVaultId(g.vault) || !isGrantScope(g.scope) || typeof g.issuer !== 'string') malformed('bad grant');
  if (typeof g.subject !== 'string' || !Number.isSafeInteger(g.expiresAt)) malformed('bad grant');
}

function indexGrants<G extends GrantNode>(grants: readonly G[]): Map<string, G[]> {
  if (!Array.isArray(grants)) malformed('grants must be an array');
  const ids = new Set<string>();
  const children = new Map<string, G[]>();
  for (const g of grants) {
    checkNode(g);
    if (ids.has(g.id)) malformed(`grant id ${g.id} appears twice`);
    ids.add(g.id);
    if (g.parentId !== null) children.set(g.parentId, [...(children.get(g.parentId) ?? []), g]);
  }
  return children;
}

function collect<G extends GrantNode>(children: Map<string, G[]>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    for (const child of children.get(id) ?? []) {
      if (!seen.has(child.id)) {
        seen.add(child.id);
        stack.push(child.id);
      }
    }
  }
  return seen;
}

function split<G extends GrantNode>(grants: readonly G[], removed: Set<string>): GrantRemoval<G> {
  return {
    survivors: grants.filter((g) => !removed.has(g.id)),
    removedIds: grants.filter((g) => removed.has(g.id)).map((g) => g.id),
  };
}

/** Ids of every grant issued, directly or transitively, from grant `id` (not `id` itself). */
export function descendantsOf<G extends GrantNode>(grants: readonly G[], id: string): string[] {
  const children = indexGrants(grants);
  if (!grants.some((g) => g.id === id)) throw new GrantError('unknown_grant', `no grant ${String(id)}`);
  const found = collect(children, [id]);
  found.delete(id);
  return grants.filter((g) => found.has(g.id)).map((g) => g.id);
}

/** GRANT-14: revoking `id` removes it and all its descendants. */
export function revokeGrant<G extends GrantNode>(grants: readonly G[], id: string): GrantRemoval<G> {
  const removed = new Set([id, ...descendantsOf(grants, id)]);
  return split(grants, removed);
}

/**
 * GRANT-13: a grant survives only if it and every ancestor are unexpired
 * (`expiresAt > now`) and its parent chain reaches a root in `grants`. So an
 * expired grant takes its descendants with it, and an orphan (parent missing)
 * is removed too: fail closed. Pass the complete set of grants of a vault.
 */
export function purgeExpired<G extends GrantNode>(grants: readonly G[], now: number): GrantRemoval<G> {
  if (!Number.isSafeInteger(now)) malformed('now must be an integer (ms)');
  const children = indexGrants(grants);
  const live = new Set<string>();
  const stack = grants.filter((g) => g.parentId === null && g.expiresAt > now);
  for (const root of stack) live.add(root.id);
  while (stack.length > 0) {
    const g = stack.pop() as G;
    for (const child of children.get(g.id) ?? []) {
      if (child.expiresAt > now && !live.has(child.id)) {
        live.add(child.id);
        stack.push(child);
      }
    }
  }
  return split(grants, new Set(grants.filter((g) => !live.has(g.id)).map((g) => g.id)));
}

function rosterRoles(roster: MemberRoster): Map<string, Role> {
  if (!isPlainObject(roster) || !isVaultId(roster.vaultId) || !Array.isArray(roster.members)) {
    malformed('a roster needs vaultId and members');
  }
  const roles = new Map<string, Role>();
  for (const m of roster.members) {
    if (!isPlainObject(m) || typeof m.name !== 'string' || !isRole(m.role)) malformed('bad roster member');
    roles.set(m.name, m.role);
  }
  return roles;
}

/**
 * GRANT-15: ids of the grants of this vault that the policy commit
 * `prev` → `next` invalidates, with all their descendants. A grant is
 * invalidated when, in `next`, its issuer or subject is no longer a member
 * (matched by name, so a rename counts as removal), or the issuer's role cap is
 * below the grant's scope, or the subject's role cap is below it (GRANT-1: a
 * role caps what it can hold). Decided on `next`, so it is never too lenient.
 */
export function grantsInvalidatedByPolicyChange<G extends GrantNode>(
  grants: readonly G[],
  prevPolicy: MemberRoster,
  nextPolicy: MemberRoster,
): string[] {
  rosterRoles(prevPolicy);
  const roles = rosterRoles(nextPolicy);
  if (prevPolicy.vaultId !== nextPolicy.vaultId) malformed('the two rosters describe different vaults');
  const children = indexGrants(grants);
  const holds = (name: string, scope: GrantScope): boolean => {
    const role = roles.get(name);
    return role !== undefined && scopeAtMost(scope, roleCap(role));
  };
  const direct = grants
    .filter((g) => g.vault === nextPolicy.vaultId)
    .filter((g) => !holds(g.issuer, g.scope) || !holds(g.subject, g.scope))
    .map((g) => g.id);
  const all = new Set([...direct, ...collect(children, direct)]);
  return grants.filter((g) => all.has(g.id)).map((g) => g.id);
}
