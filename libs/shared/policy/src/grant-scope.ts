// Grant scope math shared by the local daemon and the Center (GRANT-1, GRANT-9).
import { assertUnreachable } from '@arslan/util';
import { type Role } from './roles';

/** Ordered lowest first: read < read_write < read_write_delete < allow_all. */
export const GRANT_SCOPES = ['read', 'read_write', 'read_write_delete', 'allow_all'] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** GRANT-2: the scope when none is given. */
export const DEFAULT_GRANT_SCOPE: GrantScope = 'read';
/** GRANT-5: lifetime bounds in whole minutes. */
export const MIN_GRANT_MINUTES = 1;
export const MAX_GRANT_MINUTES = 60;
/** GRANT-6: deepest allowed delegation depth (member credential 0, member-issued 1). */
export const MAX_GRANT_DEPTH = 2;
/** GRANT-9: the same limit for the daemon and the Center. */
export const MAX_ACTIVE_GRANTS = 10_000;
/** GRANT-7: never a grant recipient (and never a policy member name). */
export const RESERVED_MEMBER_NAME = 'center-admin';

/** What a caller tries to do with content; `admin_content` is the hosted content-admin surface. */
export const GRANT_ACTIONS = ['read', 'write', 'delete', 'admin_content'] as const;
export type GrantAction = (typeof GRANT_ACTIONS)[number];

export function isGrantScope(value: unknown): value is GrantScope {
  return typeof value === 'string' && (GRANT_SCOPES as readonly string[]).includes(value);
}

export function isGrantAction(value: unknown): value is GrantAction {
  return typeof value === 'string' && (GRANT_ACTIONS as readonly string[]).includes(value);
}

export function scopeRank(scope: GrantScope): number {
  return GRANT_SCOPES.indexOf(scope);
}

/** True when `a` grants no more than `b`. */
export function scopeAtMost(a: GrantScope, b: GrantScope): boolean {
  return scopeRank(a) <= scopeRank(b);
}

/** GRANT-1: the highest scope a role can hold or issue. */
export function roleCap(role: Role): GrantScope {
  switch (role) {
    case 'reader':
      return 'read';
    case 'editor':
      return 'read_write';
    case 'admin':
      return 'read_write_delete';
    case 'owner':
      return 'allow_all';
    default:
      return assertUnreachable(role, 'role');
  }
}

/** The lowest scope that permits `action`. */
export function requiredScope(action: GrantAction): GrantScope {
  switch (action) {
    case 'read':
      return 'read';
    case 'write':
      return 'read_write';
    case 'delete':
      return 'read_write_delete';
    case 'admin_content':
      return 'allow_all';
    default:
      return assertUnreachable(action, 'grant action');
  }
}

/** Does `scope` permit `action`? Unknown scopes or actions are refused (fail closed). */
export function scopeAllows(scope: GrantScope, action: GrantAction): boolean {
  if (!isGrantScope(scope) || !isGrantAction(action)) return false;
  return scopeAtMost(requiredScope(action), scope);
}
