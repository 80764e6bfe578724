// HIST-1..4: the content-addressed revision DAG of one asset. Works on the node view of
// a revision (id, asset, parents, tombstone); RevisionRecord fits it directly. Signatures
// and content addresses are verifyRevision's job; this module checks the graph.
import { type RevisionRecord, type WriteRevisionInput, writeRevision } from './revision';
import { isHex64 } from './input-guards';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

export interface RevisionNode {
  readonly id: string;
  readonly asset_id: string;
  readonly parents: readonly string[];
  readonly tombstone: boolean;
}

export type AssetState =
  | { kind: 'absent' }
  | { kind: 'live'; head: string }
  | { kind: 'deleted'; head: string }
  | { kind: 'conflicted'; heads: string[] };

export interface AssetView {
  asset_id: string;
  kind: 'live' | 'conflicted';
  /** One head when live; every head (sorted) when conflicted. */
  heads: string[];
}

function assertNode(node: unknown): RevisionNode {
  const n = node as RevisionNode;
  if (
    typeof node !== 'object' ||
    node === null ||
    !isHex64(n.id) ||
    typeof n.asset_id !== 'string' ||
    n.asset_id.length === 0 ||
    !Array.isArray(n.parents) ||
    !n.parents.every(isHex64) ||
    typeof n.tombstone !== 'boolean'
  )
    throw new VaultFormatError('malformed', 'revision node');
  return n;
}

function sameNode(a: RevisionNode, b: RevisionNode): boolean {
  return (
    a.tombstone === b.tombstone &&
    a.parents.length === b.parents.length &&
    a.parents.every((p, i) => p === b.parents[i])
  );
}

/**
 * Validates one asset's history and indexes it by id: one asset id (`asset_mismatch`),
 * one node per id (`duplicate_revision`; identical copies are merged), every parent
 * present (`unknown_parent`), no cycle (`cycle`). Input order does not matter.
 */
function indexHistory(revisions: readonly RevisionNode[]): Map<string, RevisionNode> {
  if (!Array.isArray(revisions)) throw new VaultFormatError('malformed', 'revisions must be an array');
  const byId = new Map<string, RevisionNode>();
  let assetId: string | undefined;
  for (const raw of revisions) {
    const node = assertNode(raw);
    assetId ??= node.asset_id;
    if (node.asset_id !== assetId) throw new VaultFormatError('asset_mismatch', node.id);
    const seen = byId.get(node.id);
    if (seen && !sameNode(seen, node)) throw new VaultFormatError('duplicate_revision', node.id);
    byId.set(node.id, node);
  }
  const children = new Map<string, string[]>();
  const pending = new Map<string, number>();
  for (const node of byId.values()) {
    pending.set(node.id, new Set(node.parents).size);
    for (const parent of new Set(node.parents)) {
      if (!byId.has(parent)) throw new VaultFormatError('unknown_parent', `${node.id} names ${parent}`);
      children.set(parent, [...(children.get(parent) ?? []), node.id]);
    }
  }
  // Kahn's algorithm: every node must become ready, or there is a cycle.
  const ready = [...pending].filter(([, n]) => n === 0).map(([id]) => id);
  let visited = 0;
  while (ready.length > 0) {
    const id = ready.pop() as string;
    visited++;
    for (const child of children.get(id) ?? []) {
      const left = (pending.get(child) as number) - 1;
      pending.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  if (visited !== byId.size) throw new VaultFormatError('cycle');
  return byId;
}

function headsOf(byId: Map<string, RevisionNode>): string[] {
  const consumed = new Set<string>();
  for (const node of byId.values()) for (const p of node.parents) consumed.add(p);
  return [...byId.keys()].filter((id) => !consumed.has(id)).sort();
}

/** HIST-2: the revisions no other revision names as a parent, sorted. */
export function assetHeads(revisions: readonly RevisionNode[]): string[] {
  return headsOf(indexHistory(revisions));
}

/** HIST-2: more than one unconsumed head. */
export function isConflicted(revisions: readonly RevisionNode[]): boolean {
  return assetHeads(revisions).length > 1;
}

/** HIST-2/4: live, deleted (single tombstone head; history kept) or conflicted. */
export function assetState(revisions: readonly RevisionNode[]): AssetState {
  const byId = indexHistory(revisions);
  const heads = headsOf(byId);
  if (heads.length === 0) return { kind: 'absent' };
  if (heads.length > 1) return { kind: 'conflicted', heads };
  const head = heads[0] as string;
  return (byId.get(head) as RevisionNode).tombstone ? { kind: 'deleted', head } : { kind: 'live', head };
}

/**
 * HIST-4: the assets visible now, sorted by asset id, over revisions of any number of
 * assets. Tombstoned assets are left out; their revisions are not touched.
 */
export function currentView(revisions: readonly RevisionNode[]): AssetView[] {
  if (!Array.isArray(revisions)) throw new VaultFormatError('malformed', 'revisions must be an array');
  const byAsset = new Map<string, RevisionNode[]>();
  for (const raw of revisions) {
    const node = assertNode(raw);
    byAsset.set(node.asset_id, [...(byAsset.get(node.asset_id) ?? []), node]);
  }
  const views: AssetView[] = [];
  for (const assetId of [...byAsset.keys()].sort()) {
    const state = assetState(byAsset.get(assetId) as RevisionNode[]);
    if (state.kind === 'live') views.push({ asset_id: assetId, kind: 'live', heads: [state.head] });
    else if (state.kind === 'conflicted')
      views.push({ asset_id: assetId, kind: 'conflicted', heads: state.heads });
  }
  return views;
}

/**
 * Accepts one more revision into a valid history: same asset, parents already present,
 * id new (an identical copy returns the history unchanged). Returns a new array.
 */
export function appendRevision<T extends RevisionNode>(revisions: readonly T[], revision: T): T[] {
  const byId = indexHistory(revisions);
  const node = assertNode(revision);
  const first = revisions[0];
  if (first && first.asset_id !== node.asset_id) throw new VaultFormatError('asset_mismatch', node.id);
  const seen = byId.get(node.id);
  if (seen) {
    if (!sameNode(seen, node)) throw new VaultFormatError('duplicate_revision', node.id);
    return [...revisions];
  }
  for (const parent of node.parents)
    if (!byId.has(parent)) throw new VaultFormatError('unknown_parent', `${node.id} names ${parent}`);
  return [...revisions, revision];
}

/** HIST-3: `unresolved_heads` unless `parents` names every current head; parents must exist. */
export function checkResolution(revisions: readonly RevisionNode[], parents: readonly string[]): void {
  const byId = indexHistory(revisions);
  if (!Array.isArray(parents) || !parents.every(isHex64))
    throw new VaultFormatError('malformed', 'parents must be revision ids');
  for (const p of parents) if (!byId.has(p)) throw new VaultFormatError('unknown_parent', p);
  const named = new Set(parents);
  const missing = headsOf(byId).filter((h) => !named.has(h));
  if (missing.length > 0) throw new VaultFormatError('unresolved_heads', missing.join(','));
}

/** HIST-3: writes a revision that consumes every head of `revisions` (checked first). */
export function createResolution(
  revisions: readonly RevisionNode[],
  input: WriteRevisionInput,
  random: RandomSource = systemRandom,
): RevisionRecord {
  if (typeof input !== 'object' || input === null) throw new VaultFormatError('malformed', 'input');
  const first = revisions[0];
  if (first && first.asset_id !== input.assetId) throw new VaultFormatError('asset_mismatch', input.assetId);
  checkResolution(revisions, input.parents);
  return writeRevision(input, random);
}
