// Vault roles (POL-2), lowest first. The order is the authority order used by
// the policy rules and by the grant caps (GRANT-1).
export const ROLES = ['reader', 'editor', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** 0 for reader … 3 for owner. */
export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

/** True when `a` carries no more authority than `b`. */
export function roleAtMost(a: Role, b: Role): boolean {
  return roleRank(a) <= roleRank(b);
}
