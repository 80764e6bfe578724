// GRANT-2..GRANT-9: may this grant be issued, and with exactly which bounds?
// Pure: the caller supplies `now`, roles and the active count; nothing is stored.
import { GrantError, type GrantErrorCode } from './grant.errors';
import {
  DEFAULT_GRANT_SCOPE,
  isGrantScope,
  MAX_ACTIVE_GRANTS,
  MAX_GRANT_DEPTH,
  MAX_GRANT_MINUTES,
  MIN_GRANT_MINUTES,
  roleCap,
  scopeAtMost,
  type GrantScope,
} from './grant-scope';
import { isRole, roleAtMost, type Role } from './roles';
import { isMemberName, isPlainObject, isReservedName, isVaultId } from './validation';

/** The grant the caller holds when it issues through a grant (re-delegation). */
export interface ParentGrant {
  readonly id: string;
  readonly vault: string;
  readonly scope: GrantScope;
  /** Milliseconds since the Unix epoch. */
  readonly expiresAt: number;
  readonly depth: number;
  /** The member name holding the parent grant; it becomes the new grant's issuer. */
  readonly subject: string;
}

export type GrantIssuer =
  /** A member acting with its own (depth 0) credential. */
  | { readonly kind: 'member'; readonly name: string; readonly role: Role }
  /** A caller acting through a grant; `subjectRole` is the holder's role NOW. */
  | { readonly kind: 'grant'; readonly parent: ParentGrant; readonly subjectRole: Role };

export interface GrantIssueRequest {
  readonly issuer: GrantIssuer;
  readonly vault: string;
  /** GRANT-2: defaults to `read`. */
  readonly scope?: GrantScope;
  /** Whole minutes, 1–60 (GRANT-5). */
  readonly minutes: number;
  /** The recipient by member name; `role` is null when no such member exists. */
  readonly recipient: { readonly name: string; readonly role: Role | null };
  /** Milliseconds since the Unix epoch. */
  readonly now: number;
  /** Grants currently active (not expired, not revoked) for the limit of GRANT-9. */
  readonly activeGrants: number;
}

/** The exact bounds of a grant that may be issued. */
export interface GrantPlan {
  readonly vault: string;
  readonly scope: GrantScope;
  readonly expiresAt: number;
  readonly depth: number;
  readonly issuer: string;
  readonly subject: string;
  readonly parentId: string | null;
}

export type GrantDecision =
  { readonly ok: true; readonly plan: GrantPlan } | { readonly ok: false; readonly error: GrantError };

const MINUTE_MS = 60_000;

class Denied {
  constructor(readonly error: GrantError) {}
}

function deny(code: GrantErrorCode, message: string): never {
  throw new Denied(new GrantError(code, message));
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checkParent(parent: unknown): asserts parent is ParentGrant {
  if (!isPlainObject(parent)) deny('malformed', 'parent grant is missing');
  const { id, vault, scope, expiresAt, depth, subject } = parent;
  if (typeof id !== 'string' || id.length === 0) deny('malformed', 'parent grant id is missing');
  if (!isVaultId(vault) || !isGrantScope(scope) || !isTime(expiresAt) || !isMemberName(subject)) {
    deny('malformed', 'parent grant has the wrong shape');
  }
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1 || depth > MAX_GRANT_DEPTH) {
    deny('malformed', `parent grant depth must be 1..${MAX_GRANT_DEPTH}`);
  }
}

function decide(req: GrantIssueRequest): GrantPlan {
  if (!isPlainObject(req) || !isPlainObject(req.issuer) || !isPlainObject(req.recipient)) {
    deny('malformed', 'request needs issuer and recipient');
  }
  const { issuer, vault, minutes, recipient, now, activeGrants } = req;
  const scope = req.scope ?? DEFAULT_GRANT_SCOPE;
  if (!isVaultId(vault) || !isGrantScope(scope) || !isTime(now))
    deny('malformed', 'vault, scope or now is invalid');
  if (!Number.isSafeInteger(activeGrants) || activeGrants < 0) deny('malformed', 'activeGrants is invalid');
  if (!isMemberName(recipient.name) || (recipient.role !== null && !isRole(recipient.role))) {
    deny('malformed', 'recipient has the wrong shape');
  }
  let issuerName: string;
  let issuerRole: Role;
  let parent: ParentGrant | null = null;
  if (issuer.kind === 'member') {
    if (!isMemberName(issuer.name) || !isRole(issuer.role)) deny('malformed', 'issuer has the wrong shape');
    issuerName = issuer.name;
    issuerRole = issuer.role;
  } else if (issuer.kind === 'grant') {
    checkParent(issuer.parent);
    if (!isRole(issuer.subjectRole)) deny('malformed', 'subjectRole is unknown');
    parent = issuer.parent;
    issuerName = parent.subject;
    issuerRole = issuer.subjectRole;
  } else {
    deny('malformed', 'issuer kind must be member or grant');
  }

  if (isReservedName(issuerName)) deny('issuer_cannot_delegate', 'the admin bearer holds no content role');
  if (!roleAtMost('admin', issuerRole))
    deny('issuer_cannot_delegate', `a ${issuerRole} cannot issue grants (GRANT-3)`);
  if (parent && now >= parent.expiresAt) deny('expired_parent', 'the parent grant has expired');
  if (parent && parent.vault !== vault)
    deny('cross_vault', 'a grant stays in its parent grant vault (GRANT-4)');
  const depth = parent ? parent.depth + 1 : 1;
  if (depth > MAX_GRANT_DEPTH) deny('depth_exceeded', `depth ${depth} exceeds ${MAX_GRANT_DEPTH} (GRANT-6)`);
  if (!Number.isInteger(minutes) || minutes < MIN_GRANT_MINUTES || minutes > MAX_GRANT_MINUTES) {
    deny(
      'bad_lifetime',
      `lifetime must be ${MIN_GRANT_MINUTES}-${MAX_GRANT_MINUTES} whole minutes (GRANT-5)`,
    );
  }
  const expiresAt = now + minutes * MINUTE_MS;
  if (!Number.isSafeInteger(expiresAt)) deny('malformed', 'now is out of range');
  if (parent && expiresAt > parent.expiresAt)
    deny('outlives_parent', 'a grant may not outlive its parent (GRANT-4)');
  if (!scopeAtMost(scope, roleCap(issuerRole)))
    deny('scope_exceeds_role', `${scope} exceeds the ${issuerRole} cap`);
  if (parent && !scopeAtMost(scope, parent.scope))
    deny('scope_exceeds_parent', `${scope} exceeds ${parent.scope}`);
  if (isReservedName(recipient.name)) deny('reserved_recipient', `"${recipient.name}" is reserved (GRANT-7)`);
  if (recipient.role === null) deny('recipient_not_member', 'the recipient is not a member (GRANT-7)');
  if (!roleAtMost(recipient.role, issuerRole))
    deny('recipient_role_too_high', 'recipient outranks the issuer');
  if (!scopeAtMost(scope, roleCap(recipient.role))) {
    deny('scope_exceeds_recipient_role', `a ${recipient.role} cannot hold ${scope} (GRANT-1, GRANT-8)`);
  }
  if (activeGrants >= MAX_ACTIVE_GRANTS)
    deny('too_many_grants', `${MAX_ACTIVE_GRANTS} grants are active (GRANT-9)`);
  return {
    vault,
    scope,
    expiresAt,
    depth,
    issuer: issuerName,
    subject: recipient.name,
    parentId: parent?.id ?? null,
  };
}

/**
 * Decides a grant issue. Checks run in a fixed order (see README), so one
 * request always yields the same code. Never throws for bad input: that is
 * `{ ok: false, error: GrantError('malformed') }`.
 */
export function planGrantIssue(request: GrantIssueRequest): GrantDecision {
  try {
    return { ok: true, plan: Object.freeze(decide(request)) };
  } catch (caught) {
    if (caught instanceof Denied) return { ok: false, error: caught.error };
    throw caught;
  }
}
