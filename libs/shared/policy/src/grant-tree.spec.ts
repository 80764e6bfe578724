import { isGrantError } from './grant.errors';
import {
  descendantsOf,
  grantsInvalidatedByPolicyChange,
  purgeExpired,
  revokeGrant,
  type GrantNode,
} from './grant-tree';
import { type GrantScope } from './grant-scope';

const T = 1_000_000;
function g(id: string, parentId: string | null, patch: Partial<GrantNode> = {}): GrantNode {
  return {
    id,
    parentId,
    vault: 'v1',
    scope: 'read',
    issuer: 'ana',
    subject: 'bob',
    expiresAt: T + 60_000,
    ...patch,
  };
}
// root ─┬─ a ── a1 ── a2
//       └─ b
// other (separate root)
const grants = [
  g('root', null),
  g('a', 'root'),
  g('a1', 'a'),
  g('a2', 'a1'),
  g('b', 'root'),
  g('other', null),
];

describe('grant tree', () => {
  it('GRANT-14: descendantsOf finds every transitive child, not the grant itself', () => {
    expect(descendantsOf(grants, 'root')).toEqual(['a', 'a1', 'a2', 'b']);
    expect(descendantsOf(grants, 'a1')).toEqual(['a2']);
    expect(descendantsOf(grants, 'b')).toEqual([]);
  });

  it('GRANT-14: revoking a grant revokes all its descendants', () => {
    const { survivors, removedIds } = revokeGrant(grants, 'a');
    expect(removedIds).toEqual(['a', 'a1', 'a2']);
    expect(survivors.map((x) => x.id)).toEqual(['root', 'b', 'other']);
    expect(() => revokeGrant(grants, 'nope')).toThrow(expect.objectContaining({ code: 'unknown_grant' }));
  });

  it('GRANT-13: purging removes expired grants and their descendants, and orphans', () => {
    const set = [...grants, g('orphan', 'gone')].map((x) => (x.id === 'a1' ? { ...x, expiresAt: T } : x));
    const { survivors, removedIds } = purgeExpired(set, T);
    expect(removedIds).toEqual(['a1', 'a2', 'orphan']);
    expect(survivors.map((x) => x.id)).toEqual(['root', 'a', 'b', 'other']);
    expect(purgeExpired(set, T - 1).removedIds).toEqual(['orphan']);
  });

  it('GRANT-13: a parent cycle never survives a purge', () => {
    const cycle = [g('x', 'y'), g('y', 'x')];
    expect(purgeExpired(cycle, 0).removedIds).toEqual(['x', 'y']);
    expect(descendantsOf(cycle, 'x')).toEqual(['y']);
  });

  it('rejects duplicate ids and malformed grants', () => {
    const caught = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return isGrantError(e, 'malformed');
      }
      return false;
    };
    expect(caught(() => purgeExpired([g('x', null), g('x', null)], 0))).toBe(true);
    expect(caught(() => purgeExpired([{ ...g('x', null), scope: 'root' as GrantScope }], 0))).toBe(true);
    expect(caught(() => purgeExpired(grants, Number.NaN))).toBe(true);
  });
});

describe('grantsInvalidatedByPolicyChange (GRANT-15)', () => {
  const roster = (members: [string, 'owner' | 'admin' | 'editor' | 'reader'][], vaultId = 'v1') => ({
    vaultId,
    members: members.map(([name, role]) => ({ name, role })),
  });
  const prev = roster([
    ['olivia', 'owner'],
    ['ana', 'admin'],
    ['bob', 'admin'],
    ['cy', 'editor'],
  ]);
  const tree = [
    g('g1', null, { issuer: 'ana', subject: 'bob', scope: 'read_write_delete' }),
    g('g2', 'g1', { issuer: 'bob', subject: 'cy', scope: 'read' }),
    g('g3', null, { issuer: 'olivia', subject: 'cy', scope: 'read_write' }),
    g('g4', null, { issuer: 'ana', subject: 'ana', scope: 'read', vault: 'v2' }),
  ];

  it('GRANT-15: removing a member invalidates grants they issued or hold, with descendants', () => {
    const next = roster([
      ['olivia', 'owner'],
      ['bob', 'admin'],
      ['cy', 'editor'],
    ]);
    expect(grantsInvalidatedByPolicyChange(tree, prev, next)).toEqual(['g1', 'g2']);
  });

  it("GRANT-15: lowering an issuer's role below a scope it issued invalidates that grant and its descendants", () => {
    const next = roster([
      ['olivia', 'owner'],
      ['ana', 'editor'],
      ['bob', 'admin'],
      ['cy', 'editor'],
    ]);
    expect(grantsInvalidatedByPolicyChange(tree, prev, next)).toEqual(['g1', 'g2']);
  });

  it('GRANT-1, GRANT-15: lowering a holder below its grant scope invalidates it; unaffected grants stay', () => {
    const next = roster([
      ['olivia', 'owner'],
      ['ana', 'admin'],
      ['bob', 'admin'],
      ['cy', 'reader'],
    ]);
    expect(grantsInvalidatedByPolicyChange(tree, prev, next)).toEqual(['g3']);
    expect(grantsInvalidatedByPolicyChange(tree, prev, prev)).toEqual([]);
  });

  it('ignores grants of other vaults and refuses rosters of different vaults', () => {
    expect(grantsInvalidatedByPolicyChange(tree, prev, roster([['olivia', 'owner']]))).not.toContain('g4');
    expect(() => grantsInvalidatedByPolicyChange(tree, prev, roster([['olivia', 'owner']], 'v2'))).toThrow(
      expect.objectContaining({ code: 'malformed' }),
    );
  });
});
