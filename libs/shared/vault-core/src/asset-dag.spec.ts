import fc from 'fast-check';
import { bytesToHex, utf8Encode } from '@arslan/util';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  appendRevision,
  assetHeads,
  assetState,
  checkResolution,
  createResolution,
  currentView,
  isConflicted,
  type RevisionNode,
} from './asset-dag';
import { issueDeviceCertificate } from './device-certificate';
import { verifyRevision, writeRevision } from './revision';
import { generateDeviceKeys, generateUserIdentity } from './signing';
import { testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const id = (n: number | string): string => bytesToHex(sha256(utf8Encode(`node ${n}`)));
const node = (n: number, parents: number[], tombstone = false, asset = 'a'): RevisionNode => ({
  id: id(n),
  asset_id: asset,
  parents: parents.map(id).sort(),
  tombstone,
});

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

/** Random histories: node i picks parents among nodes < i (so always a DAG). */
const historyArb = fc
  .array(fc.record({ parentPicks: fc.array(fc.nat(), { maxLength: 3 }), tombstone: fc.boolean() }), {
    minLength: 1,
    maxLength: 25,
  })
  .map((specs) =>
    specs.map((s, i) => node(i, i === 0 ? [] : [...new Set(s.parentPicks.map((p) => p % i))], s.tombstone)),
  );

function naiveHeads(nodes: RevisionNode[]): string[] {
  const consumed = new Set(nodes.flatMap((n) => n.parents));
  return nodes
    .map((n) => n.id)
    .filter((x) => !consumed.has(x))
    .sort();
}

describe('asset DAG (HIST-1..4)', () => {
  it('HIST-2: a linear history has one head; a fork is conflicted; a merge resolves it', () => {
    const linear = [node(0, []), node(1, [0]), node(2, [1])];
    expect(assetHeads(linear)).toEqual([id(2)]);
    expect(isConflicted(linear)).toBe(false);
    const fork = [...linear, node(3, [1])];
    expect(assetHeads(fork)).toEqual([id(2), id(3)].sort());
    expect(isConflicted(fork)).toBe(true);
    expect(assetState(fork)).toEqual({ kind: 'conflicted', heads: [id(2), id(3)].sort() });
    expect(isConflicted([...fork, node(4, [2, 3])])).toBe(false);
    expect(assetState([])).toEqual({ kind: 'absent' });
  });

  it('HIST-3: a resolution must name every visible head', () => {
    const fork = [node(0, []), node(1, [0]), node(2, [0])];
    expect(code(() => checkResolution(fork, [id(1)]))).toBe('unresolved_heads');
    expect(code(() => checkResolution(fork, [id(1), id(2)]))).toBe('ok');
    expect(code(() => checkResolution(fork, [id(1), id(2), id(99)]))).toBe('unknown_parent');
    expect(code(() => checkResolution(fork, ['x']))).toBe('malformed');
  });

  it('HIST-3: createResolution writes a verifiable revision only when it names every head', () => {
    const user = generateUserIdentity(testOnlyRandom('u'));
    const dev = generateDeviceKeys(testOnlyRandom('d'));
    const certificate = issueDeviceCertificate(user.seed, {
      deviceSigningKey: dev.signingPublicKey,
      deviceExchangeKey: dev.exchangePublicKey,
      createdAt: 0,
    });
    const base = {
      vaultId: 'v',
      assetId: 'note',
      parents: [] as string[],
      policyHead: '00'.repeat(32),
      tombstone: false,
      epoch: 0,
      epochKey: new Uint8Array(32).fill(9),
      content: utf8Encode('x'),
      signer: { signingSeed: dev.signingSeed, certificate },
    };
    const root = writeRevision(base);
    const a = writeRevision({ ...base, parents: [root.id], content: utf8Encode('a') });
    const b = writeRevision({ ...base, parents: [root.id], content: utf8Encode('b') });
    const history = [root, a, b];
    expect(isConflicted(history)).toBe(true);
    expect(code(() => createResolution(history, { ...base, parents: [a.id] }))).toBe('unresolved_heads');
    expect(code(() => createResolution(history, { ...base, assetId: 'other', parents: [a.id, b.id] }))).toBe(
      'asset_mismatch',
    );
    const merged = createResolution(history, { ...base, parents: [b.id, a.id] });
    verifyRevision(merged, { isDeviceAllowed: () => true });
    expect(assetHeads([...history, merged])).toEqual([merged.id]);
  });

  it('HIST-4: a tombstone hides the asset from the current view and keeps every revision', () => {
    const history = [node(0, []), node(1, [0]), node(2, [1], true)];
    const other = [node(10, [], false, 'b')];
    expect(assetState(history)).toEqual({ kind: 'deleted', head: id(2) });
    expect(currentView([...history, ...other])).toEqual([{ asset_id: 'b', kind: 'live', heads: [id(10)] }]);
    expect(assetHeads(history)).toEqual([id(2)]);
    // History is intact: it can be revived on top of the tombstone.
    const revived = appendRevision(history, node(3, [2]));
    expect(revived).toHaveLength(4);
    expect(currentView(revived)).toEqual([{ asset_id: 'a', kind: 'live', heads: [id(3)] }]);
  });

  it('HIST-1: rejects unknown parents, cycles, self-parents, mixed assets and conflicting duplicates', () => {
    expect(code(() => assetHeads([node(1, [0])]))).toBe('unknown_parent');
    expect(code(() => appendRevision([node(0, [])], node(2, [1])))).toBe('unknown_parent');
    const cyc = [{ ...node(0, []), parents: [id(1)] }, node(1, [0])];
    expect(code(() => assetHeads(cyc))).toBe('cycle');
    expect(code(() => assetHeads([{ ...node(0, []), parents: [id(0)] }]))).toBe('cycle');
    expect(code(() => assetHeads([node(0, []), node(1, [0], false, 'b')]))).toBe('asset_mismatch');
    expect(code(() => appendRevision([node(0, [])], node(1, [0], false, 'b')))).toBe('asset_mismatch');
    expect(code(() => assetHeads([node(0, []), node(0, [], true)]))).toBe('duplicate_revision');
    expect(assetHeads([node(0, []), node(0, [])])).toEqual([id(0)]);
    expect(appendRevision([node(0, [])], node(0, []))).toHaveLength(1);
    expect(code(() => assetHeads([{ id: 'x' } as never]))).toBe('malformed');
    expect(code(() => assetHeads('x' as never))).toBe('malformed');
  });

  it('property HIST-2: heads and conflict agree with a naive recomputation, in any input order', () => {
    fc.assert(
      fc.property(historyArb, (nodes) => {
        const shuffled = [...nodes].reverse();
        expect(assetHeads(nodes)).toEqual(naiveHeads(nodes));
        expect(assetHeads(shuffled)).toEqual(naiveHeads(nodes));
        expect(isConflicted(nodes)).toBe(naiveHeads(nodes).length > 1);
      }),
      { numRuns: 200 },
    );
  });

  it('property HIST-3: a resolution naming every head leaves exactly one head; naming fewer is refused', () => {
    fc.assert(
      fc.property(historyArb, (nodes) => {
        const heads = naiveHeads(nodes);
        const resolution: RevisionNode = { id: id('res'), asset_id: 'a', parents: heads, tombstone: false };
        checkResolution(nodes, heads);
        expect(assetHeads(appendRevision(nodes, resolution))).toEqual([resolution.id]);
        if (heads.length > 1)
          expect(code(() => checkResolution(nodes, heads.slice(1)))).toBe('unresolved_heads');
      }),
      { numRuns: 200 },
    );
  });

  it('property HIST-4: tombstones never erase revisions; the view follows the single head', () => {
    fc.assert(
      fc.property(historyArb, (nodes) => {
        const view = currentView(nodes);
        const state = assetState(nodes);
        expect(nodes.every((n) => appendRevision(nodes, n).length === nodes.length)).toBe(true);
        const heads = naiveHeads(nodes);
        const headNode = nodes.find((n) => n.id === heads[0])!;
        if (heads.length > 1) expect(view).toEqual([{ asset_id: 'a', kind: 'conflicted', heads }]);
        else if (headNode.tombstone) expect([view, state]).toEqual([[], { kind: 'deleted', head: heads[0] }]);
        else expect(view).toEqual([{ asset_id: 'a', kind: 'live', heads }]);
      }),
      { numRuns: 200 },
    );
  });

  it('property HIST-1: redirecting any root to a descendant is reported as a cycle', () => {
    fc.assert(
      fc.property(historyArb, (nodes) => {
        const last = nodes[nodes.length - 1]!;
        if (nodes.length < 2 || !last.parents.length) return;
        const changed = nodes.map((n, i) => (i === 0 ? { ...n, parents: [last.id] } : n));
        // node 0 is an ancestor of `last` only if a path exists; otherwise the graph is still acyclic.
        const reach = new Set([last.id]);
        for (let i = nodes.length - 1; i >= 0; i--)
          if (reach.has(nodes[i]!.id)) for (const p of nodes[i]!.parents) reach.add(p);
        expect(code(() => assetHeads(changed))).toBe(reach.has(nodes[0]!.id) ? 'cycle' : 'ok');
      }),
      { numRuns: 200 },
    );
  });
});
