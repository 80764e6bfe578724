import {
  DEFAULT_GRANT_SCOPE,
  GRANT_SCOPES,
  MAX_ACTIVE_GRANTS,
  MAX_GRANT_DEPTH,
  MAX_GRANT_MINUTES,
  MIN_GRANT_MINUTES,
  RESERVED_MEMBER_NAME,
  roleCap,
  scopeAllows,
  scopeAtMost,
  type GrantAction,
  type GrantScope,
} from './grant-scope';
import { roleAtMost, ROLES } from './roles';

describe('grant scopes and caps', () => {
  it('GRANT-1: orders scopes read < read_write < read_write_delete < allow_all', () => {
    expect(GRANT_SCOPES).toEqual(['read', 'read_write', 'read_write_delete', 'allow_all']);
    expect(scopeAtMost('read', 'read_write')).toBe(true);
    expect(scopeAtMost('allow_all', 'read_write_delete')).toBe(false);
  });

  it('GRANT-1: caps each role (Reader read, Editor read_write, Admin read_write_delete, Owner allow_all)', () => {
    expect(ROLES.map(roleCap)).toEqual(['read', 'read_write', 'read_write_delete', 'allow_all']);
    expect(roleAtMost('admin', 'owner')).toBe(true);
    expect(roleAtMost('owner', 'admin')).toBe(false);
  });

  it('GRANT-2, GRANT-5, GRANT-6, GRANT-7, GRANT-9: pins the normative constants', () => {
    expect(DEFAULT_GRANT_SCOPE).toBe('read');
    expect([MIN_GRANT_MINUTES, MAX_GRANT_MINUTES]).toEqual([1, 60]);
    expect(MAX_GRANT_DEPTH).toBe(2);
    expect(MAX_ACTIVE_GRANTS).toBe(10_000);
    expect(RESERVED_MEMBER_NAME).toBe('center-admin');
  });

  it.each<[GrantScope, GrantAction[], GrantAction[]]>([
    ['read', ['read'], ['write', 'delete', 'admin_content']],
    ['read_write', ['read', 'write'], ['delete', 'admin_content']],
    ['read_write_delete', ['read', 'write', 'delete'], ['admin_content']],
    ['allow_all', ['read', 'write', 'delete', 'admin_content'], []],
  ])('scopeAllows: %s permits %j and refuses %j', (scope, allowed, refused) => {
    for (const action of allowed) expect(scopeAllows(scope, action)).toBe(true);
    for (const action of refused) expect(scopeAllows(scope, action)).toBe(false);
  });

  it('scopeAllows fails closed on unknown scopes and actions', () => {
    expect(scopeAllows('root' as GrantScope, 'read')).toBe(false);
    expect(scopeAllows('allow_all', 'sudo' as GrantAction)).toBe(false);
  });
});
