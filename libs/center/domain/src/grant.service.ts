// Content grants on the Center (GRANT-1..15, CTR-11): the rules come from @arslan/policy;
// this service adds storage, the atomic 10,000 limit, tokens and audit.
import {
  planGrantIssue,
  revokeGrant,
  roleAtMost,
  type GrantIssuer,
  type GrantScope,
  type Role,
} from '@arslan/policy';
import { CenterError } from './center.errors';
import { type AuditSink, type CenterRepos, type CenterStore, type Clock, type GrantRecord } from './ports';
import { principalName, type ContentPrincipal } from './principal';
import { newId, newToken, sha256Hex } from './tokens';

/** Serialisation key for every change that can add active grants. */
export const GRANTS_LOCK = 'grants';

export interface IssuedGrant {
  readonly grant: PublicGrant;
  /** Shown exactly once (GRANT-10). */
  readonly token: string;
}

export interface PublicGrant {
  readonly id: string;
  readonly vault: string;
  readonly scope: GrantScope;
  readonly issuer: string;
  readonly subject: string;
  readonly depth: number;
  readonly parentId: string | null;
  readonly expiresAt: string;
}

export function publicGrant(g: GrantRecord): PublicGrant {
  return {
    id: g.id,
    vault: g.vault,
    scope: g.scope,
    issuer: g.issuer,
    subject: g.subject,
    depth: g.depth,
    parentId: g.parentId,
    expiresAt: new Date(g.expiresAt).toISOString(),
  };
}

/** The caller's own role in `vault`, or 403 not_a_member. */
export async function requireRole(repos: CenterRepos, vault: string, name: string): Promise<Role> {
  const role = await repos.roleOf(vault, name);
  if (role === null) throw new CenterError('not_a_member', `${name} is not a member of vault ${vault}`);
  return role;
}

export async function issuerFor(
  repos: CenterRepos,
  vault: string,
  p: ContentPrincipal,
): Promise<GrantIssuer> {
  if (p.kind === 'member') {
    return { kind: 'member', name: p.member.name, role: await requireRole(repos, vault, p.member.name) };
  }
  const g = p.grant;
  return {
    kind: 'grant',
    parent: {
      id: g.id,
      vault: g.vault,
      scope: g.scope,
      expiresAt: g.expiresAt,
      depth: g.depth,
      subject: g.subject,
    },
    subjectRole: await requireRole(repos, g.vault, g.subject),
  };
}

/** Inserts a grant planned by `planGrantIssue` (call inside a write holding GRANTS_LOCK). */
export async function planAndInsert(
  repos: CenterRepos,
  input: { issuer: GrantIssuer; vault: string; scope?: GrantScope; minutes: number; to: string; now: number },
): Promise<IssuedGrant> {
  const recipientRole = await repos.roleOf(input.vault, input.to);
  const decision = planGrantIssue({
    issuer: input.issuer,
    vault: input.vault,
    ...(input.scope ? { scope: input.scope } : {}),
    minutes: input.minutes,
    recipient: { name: input.to, role: recipientRole },
    now: input.now,
    activeGrants: await repos.countActiveGrants(input.now),
  });
  if (!decision.ok) throw new CenterError(`grant_${decision.error.code}`, decision.error.message);
  const token = newToken('grant');
  const record: GrantRecord = {
    id: newId(),
    tokenHash: sha256Hex(token),
    vault: decision.plan.vault,
    scope: decision.plan.scope,
    issuer: decision.plan.issuer,
    subject: decision.plan.subject,
    depth: decision.plan.depth,
    parentId: decision.plan.parentId,
    expiresAt: decision.plan.expiresAt,
    createdAt: input.now,
  };
  await repos.insertGrant(record);
  return { grant: publicGrant(record), token };
}

export class GrantService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
    private readonly clock: Clock,
  ) {}

  /** GRANT-2..9: issue directly (member, depth 1) or by re-delegation (grant, depth + 1). */
  issue(
    caller: ContentPrincipal,
    vault: string,
    body: { to: string; scope?: GrantScope; minutes: number },
  ): Promise<IssuedGrant> {
    const now = this.clock.now();
    return this.store.write([GRANTS_LOCK], async (repos) => {
      const issuer = await issuerFor(repos, vault, caller);
      const issued = await planAndInsert(repos, { issuer, vault, ...body, now });
      await this.audit.append({
        type: 'grant.issue',
        actor: principalName(caller),
        vault,
        grant: issued.grant.id,
        parent: issued.grant.parentId,
        subject: issued.grant.subject,
        scope: issued.grant.scope,
        depth: issued.grant.depth,
      });
      return issued;
    });
  }

  /** Admins and owners see all of a vault's grants; others see those they issued or hold. */
  async list(caller: ContentPrincipal, vault: string): Promise<PublicGrant[]> {
    const now = this.clock.now();
    return this.store.read(async (repos) => {
      const name = principalName(caller);
      const role = await requireRole(repos, vault, name);
      const all = (await repos.grantsOfVault(vault)).filter((g) => g.expiresAt > now);
      if (caller.kind === 'grant') {
        const mine = new Set([caller.grant.id]);
        for (const g of all) if (g.parentId !== null && mine.has(g.parentId)) mine.add(g.id);
        return all.filter((g) => mine.has(g.id)).map(publicGrant);
      }
      const sees = roleAtMost('admin', role)
        ? all
        : all.filter((g) => g.issuer === name || g.subject === name);
      return sees.map(publicGrant);
    });
  }

  /** GRANT-14: revoking a grant also revokes every descendant. Returns the removed ids. */
  revoke(caller: ContentPrincipal, vault: string, id: string): Promise<string[]> {
    return this.store.write([GRANTS_LOCK], async (repos) => {
      const grants = await repos.grantsOfVault(vault);
      const target = grants.find((g) => g.id === id);
      if (!target) throw new CenterError('not_found', `no grant ${id} in vault ${vault}`);
      const name = principalName(caller);
      const role = await requireRole(repos, vault, name);
      let allowed: boolean;
      if (caller.kind === 'grant') {
        // A grant holder may revoke its own grant or anything issued below it.
        allowed = target.id === caller.grant.id || isBelow(grants, target, caller.grant.id);
      } else {
        allowed = target.issuer === name || target.subject === name || roleAtMost('admin', role);
      }
      if (!allowed) throw new CenterError('forbidden', 'you may not revoke this grant');
      const { removedIds } = revokeGrant(grants, id);
      await repos.deleteGrants(removedIds);
      await this.audit.append({
        type: 'grant.revoke',
        actor: name,
        vault,
        grant: id,
        removed: removedIds.length,
      });
      return [...removedIds];
    });
  }
}

function isBelow(grants: readonly GrantRecord[], g: GrantRecord, ancestorId: string): boolean {
  const byId = new Map(grants.map((x) => [x.id, x]));
  let cur: GrantRecord | undefined = g;
  while (cur && cur.parentId !== null) {
    if (cur.parentId === ancestorId) return true;
    cur = byId.get(cur.parentId);
  }
  return false;
}
