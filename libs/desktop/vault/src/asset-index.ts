// The in-memory asset index (heads, titles, counts, updated_at per asset), rebuilt at unlock
// from the snapshot kept in the sealed state plus the meta rows written after it. Every
// revision has a small insert-only sealed meta row `meta.<seq, 12 digits>` committed with
// its revision row, so a write never re-encrypts anything that grows with the vault.
import type { JsonValue } from './canonical-json';
import { serviceError } from './vault-service.errors';

/** One unconsumed head of an asset (HIST-2). */
export interface HeadInfo {
  id: string;
  tombstone: boolean;
  created_at: number;
  /** Title of this head's content (for a tombstone: the title it deleted). */
  title: string;
}

export interface AssetIndex {
  heads: readonly HeadInfo[];
  revisions: number;
  updated_at: number;
}

/** Plaintext of a meta row. */
export interface MetaRow {
  vault_id: string;
  asset_id: string;
  revision_id: string;
  parents: string[];
  tombstone: boolean;
  created_at: number;
  title: string;
}

/** Compact snapshot entry: [asset_id, revisions, updated_at, heads[[id, tombstone 0|1, created_at, title]]]. */
type SnapshotAsset = [string, number, number, [string, 0 | 1, number, string][]];

/** Stored as `asset_index` in the service state; covers meta rows with seq < upto. */
export interface IndexSnapshot {
  upto: number;
  /** vault_id → its assets. */
  vaults: Record<string, SnapshotAsset[]>;
}

export const META_FROM = 'meta.';
export const META_TO = 'meta/';
/** A snapshot is written with the commit that leaves this many meta rows after the last one. */
export const SNAPSHOT_EVERY = 256;
/** lock()/close() write a snapshot when at least this many meta rows follow the last one. */
export const COMPACT_MIN_ROWS = 32;

export function metaPurpose(seq: number): string {
  return `${META_FROM}${String(seq).padStart(12, '0')}`;
}

/** The index entry after `meta` (its parents stop being heads, it becomes one). Never mutates `asset`. */
export function withRevision(asset: AssetIndex | undefined, meta: MetaRow): AssetIndex {
  const consumed = new Set(meta.parents);
  const head: HeadInfo = {
    id: meta.revision_id,
    tombstone: meta.tombstone,
    created_at: meta.created_at,
    title: meta.title,
  };
  const heads = [...(asset?.heads ?? []).filter((h) => !consumed.has(h.id)), head];
  return {
    heads: heads.sort((a, b) => (a.id < b.id ? -1 : 1)),
    revisions: (asset?.revisions ?? 0) + 1,
    updated_at: Math.max(asset?.updated_at ?? 0, meta.created_at),
  };
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);

function parseSnapshotHead(h: unknown): HeadInfo {
  const [id, tomb, createdAt, title] = Array.isArray(h) ? (h as unknown[]) : [];
  if (!isStr(id) || (tomb !== 0 && tomb !== 1) || !isInt(createdAt) || !isStr(title))
    throw serviceError('corrupt', 'index snapshot head');
  return { id, tombstone: tomb === 1, created_at: createdAt, title };
}

export function parseMetaRow(value: JsonValue): MetaRow {
  const m = value as Partial<MetaRow> | null;
  if (
    typeof m !== 'object' ||
    m === null ||
    !isStr(m.vault_id) ||
    !isStr(m.asset_id) ||
    !isStr(m.revision_id) ||
    !Array.isArray(m.parents) ||
    !m.parents.every(isStr) ||
    typeof m.tombstone !== 'boolean' ||
    !isInt(m.created_at) ||
    !isStr(m.title)
  )
    throw serviceError('corrupt', 'meta row shape');
  return m as MetaRow;
}

/** Index changes of one commit, applied only after it committed. */
export interface StagedIndex {
  changes: Map<string, { vaultId: string; assetId: string; asset: AssetIndex }>;
  metaCount: number;
}

export class AssetIndexes {
  private readonly vaults = new Map<string, Map<string, AssetIndex>>();
  /** Number of meta rows (= seq of the next one). */
  metaCount = 0;
  /** Meta rows covered by the stored snapshot. */
  snapshotUpto = 0;

  /** Rebuilds from the stored snapshot and the meta rows after it (`corrupt` on any gap). */
  static rebuild(
    snapshot: IndexSnapshot | undefined,
    tail: readonly { purpose: string; value: JsonValue }[],
  ): AssetIndexes {
    const index = new AssetIndexes();
    if (snapshot !== undefined) index.loadSnapshot(snapshot);
    for (const row of tail) {
      if (row.purpose !== metaPurpose(index.metaCount)) throw serviceError('corrupt', 'meta rows have a gap');
      const meta = parseMetaRow(row.value);
      index.set(meta.vault_id, meta.asset_id, withRevision(index.find(meta.vault_id, meta.asset_id), meta));
      index.metaCount++;
    }
    return index;
  }

  assets(vaultId: string): ReadonlyMap<string, AssetIndex> {
    return this.vaults.get(vaultId) ?? new Map();
  }

  find(vaultId: string, assetId: string): AssetIndex | undefined {
    return this.vaults.get(vaultId)?.get(assetId);
  }

  /** The index entries `metas` produce, without changing this index. */
  stage(metas: readonly MetaRow[]): StagedIndex {
    const changes: StagedIndex['changes'] = new Map();
    for (const meta of metas) {
      const key = `${meta.vault_id}/${meta.asset_id}`;
      const before = changes.get(key)?.asset ?? this.find(meta.vault_id, meta.asset_id);
      changes.set(key, { vaultId: meta.vault_id, assetId: meta.asset_id, asset: withRevision(before, meta) });
    }
    return { changes, metaCount: this.metaCount + metas.length };
  }

  apply(staged: StagedIndex, snapshotWritten: boolean): void {
    for (const c of staged.changes.values()) this.set(c.vaultId, c.assetId, c.asset);
    this.metaCount = staged.metaCount;
    if (snapshotWritten) this.snapshotUpto = staged.metaCount;
  }

  snapshotDue(staged: StagedIndex): boolean {
    return staged.metaCount - this.snapshotUpto >= SNAPSHOT_EVERY;
  }

  /** The snapshot of this index with `staged` applied. */
  snapshot(staged: StagedIndex): IndexSnapshot {
    const vaults: IndexSnapshot['vaults'] = {};
    const add = (vaultId: string, assetId: string, a: AssetIndex): void => {
      (vaults[vaultId] ??= []).push([
        assetId,
        a.revisions,
        a.updated_at,
        a.heads.map((h) => [h.id, h.tombstone ? 1 : 0, h.created_at, h.title]),
      ]);
    };
    for (const [vaultId, byId] of this.vaults)
      for (const [assetId, a] of byId)
        if (!staged.changes.has(`${vaultId}/${assetId}`)) add(vaultId, assetId, a);
    for (const c of staged.changes.values()) add(c.vaultId, c.assetId, c.asset);
    return { upto: staged.metaCount, vaults };
  }

  private set(vaultId: string, assetId: string, asset: AssetIndex): void {
    let byId = this.vaults.get(vaultId);
    if (!byId) this.vaults.set(vaultId, (byId = new Map()));
    byId.set(assetId, asset);
  }

  private loadSnapshot(snapshot: IndexSnapshot): void {
    if (typeof snapshot?.vaults !== 'object' || snapshot.vaults === null || !isInt(snapshot.upto))
      throw serviceError('corrupt', 'index snapshot shape');
    for (const [vaultId, assets] of Object.entries(snapshot.vaults)) {
      if (!Array.isArray(assets)) throw serviceError('corrupt', 'index snapshot vault');
      const byId = new Map<string, AssetIndex>();
      this.vaults.set(vaultId, byId);
      for (const e of assets) {
        const [assetId, revisions, updatedAt, heads] = Array.isArray(e) ? e : [];
        if (!isStr(assetId) || !isInt(revisions) || !isInt(updatedAt) || !Array.isArray(heads))
          throw serviceError('corrupt', 'index snapshot entry');
        byId.set(assetId, { heads: heads.map(parseSnapshotHead), revisions, updated_at: updatedAt });
      }
    }
    this.metaCount = this.snapshotUpto = snapshot.upto;
  }
}

export type AssetStateKind = 'live' | 'conflicted' | 'deleted';

export function assetStateOf(asset: AssetIndex): AssetStateKind {
  if (asset.heads.length > 1) return 'conflicted';
  return asset.heads[0]?.tombstone ? 'deleted' : 'live';
}

/** The head shown for an asset: the newest created_at (ties: highest id). */
export function newestHead(asset: AssetIndex): HeadInfo {
  const sorted = [...asset.heads].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
  const head = sorted[0];
  if (!head) throw serviceError('corrupt', 'asset without heads');
  return head;
}
