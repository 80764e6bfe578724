// The in-memory asset index (heads, titles, kinds, counts, updated_at per asset), rebuilt at
// unlock from the snapshot kept in the sealed state plus the revision rows appended after it
// (each row carries its index fields: revision-rows.ts), so a write never re-encrypts anything
// that grows with the vault.
import { ASSET_KINDS, type AssetKind } from '@arslan/protocol';
import { decodeStoredRow } from './revision-rows';
import { serviceError } from './vault-service.errors';
import type { StoredRevisionRow } from './vault-store';

/** One unconsumed head of an asset (HIST-2). */
export interface HeadInfo {
  id: string;
  tombstone: boolean;
  created_at: number;
  /** Title of this head's content (for a tombstone: the title it deleted). */
  title: string;
  /** Kind of this head's content; absent in snapshots written before kinds were indexed. */
  kind?: AssetKind;
}

export interface AssetIndex {
  heads: readonly HeadInfo[];
  revisions: number;
  updated_at: number;
}

/** The index fields of one revision (from its row). */
export interface MetaRow {
  vault_id: string;
  asset_id: string;
  revision_id: string;
  parents: string[];
  tombstone: boolean;
  created_at: number;
  title: string;
  kind: AssetKind;
}

/** Compact snapshot entry: [asset_id, revisions, updated_at, heads[[id, tombstone 0|1, created_at, title, kind]]]. */
type SnapshotAsset = [string, number, number, [string, 0 | 1, number, string, AssetKind?][]];

/** Stored as `asset_index` in the service state; covers the revision rows with seq <= upto. */
export interface IndexSnapshot {
  upto: number;
  /** vault_id → its assets. */
  vaults: Record<string, SnapshotAsset[]>;
}

/** A snapshot is written with the commit that leaves this many revision rows after the last one. */
export const SNAPSHOT_EVERY = 256;
/**
 * …or, for large indexes, 1/SNAPSHOT_DIVISOR of the asset count: a snapshot costs O(assets) (20,000
 * assets: ~250 ms), so a fixed interval made the average write grow with the vault (0.66 ms at 5,000
 * assets, 1.35 ms at 20,000). With the interval growing too, the amortised cost stays flat, and
 * an unlock after a crash replays at most 1/8 of the asset count in revision rows.
 */
export const SNAPSHOT_DIVISOR = 8;

/** Revision rows after the last snapshot that make the next one due, for an index of `assets`. */
export function snapshotInterval(assets: number): number {
  return Math.max(SNAPSHOT_EVERY, Math.ceil(assets / SNAPSHOT_DIVISOR));
}
/** lock()/close() write a snapshot when at least this many revision rows follow the last one. */
export const COMPACT_MIN_ROWS = 32;

/** The index entry after `meta` (its parents stop being heads, it becomes one). Never mutates `asset`. */
export function withRevision(asset: AssetIndex | undefined, meta: MetaRow): AssetIndex {
  const consumed = new Set(meta.parents);
  const head: HeadInfo = {
    id: meta.revision_id,
    tombstone: meta.tombstone,
    created_at: meta.created_at,
    title: meta.title,
    kind: meta.kind,
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
const isKind = (v: unknown): v is AssetKind => (ASSET_KINDS as readonly unknown[]).includes(v);

function parseSnapshotHead(h: unknown): HeadInfo {
  const [id, tomb, createdAt, title, kind] = Array.isArray(h) ? (h as unknown[]) : [];
  if (
    !isStr(id) ||
    (tomb !== 0 && tomb !== 1) ||
    !isInt(createdAt) ||
    !isStr(title) ||
    (kind !== undefined && !isKind(kind))
  )
    throw serviceError('corrupt', 'index snapshot head');
  return { id, tombstone: tomb === 1, created_at: createdAt, title, ...(kind === undefined ? {} : { kind }) };
}

/** The index fields of a stored (opened) revision row (revision-rows.ts); wipes `plain`. */
export function metaOfRevisionRow(plain: Uint8Array): MetaRow {
  const row = decodeStoredRow(plain);
  if (!isKind(row.kind)) throw serviceError('corrupt', 'revision row kind');
  const rev = row.revision;
  return {
    vault_id: row.vault_id,
    asset_id: rev.asset_id,
    revision_id: rev.id,
    parents: rev.parents,
    tombstone: rev.tombstone,
    created_at: row.created_at,
    title: row.title,
    kind: row.kind,
  };
}

/** Index changes of one commit, applied only after it committed. */
export interface StagedIndex {
  changes: Map<string, { vaultId: string; assetId: string; asset: AssetIndex }>;
  metaCount: number;
}

export class AssetIndexes {
  private readonly vaults = new Map<string, Map<string, AssetIndex>>();
  /** Number of revision rows indexed (= seq of the last one). */
  metaCount = 0;
  /** Revision rows covered by the stored snapshot. */
  snapshotUpto = 0;

  /**
   * Rebuilds from the stored snapshot and the revision rows after it; `corrupt` on any gap or
   * if the rows end before `revisionCount` (the checkpoint's count) or the snapshot.
   */
  static rebuild(
    snapshot: IndexSnapshot | undefined,
    tail: readonly StoredRevisionRow[],
    revisionCount: number,
  ): AssetIndexes {
    const index = new AssetIndexes();
    if (snapshot !== undefined) index.loadSnapshot(snapshot);
    for (const row of tail) {
      if (row.seq !== index.metaCount + 1) throw serviceError('corrupt', 'revision rows have a gap');
      const meta = metaOfRevisionRow(row.value);
      index.set(meta.vault_id, meta.asset_id, withRevision(index.find(meta.vault_id, meta.asset_id), meta));
      index.metaCount++;
    }
    if (index.metaCount !== revisionCount)
      throw serviceError('corrupt', 'the index snapshot does not match the revision rows');
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
    return staged.metaCount - this.snapshotUpto >= snapshotInterval(this.assetCount());
  }

  /** Assets indexed, over all vaults. */
  assetCount(): number {
    let n = 0;
    for (const byId of this.vaults.values()) n += byId.size;
    return n;
  }

  /** The snapshot of this index with `staged` applied. */
  snapshot(staged: StagedIndex): IndexSnapshot {
    const vaults: IndexSnapshot['vaults'] = {};
    const add = (vaultId: string, assetId: string, a: AssetIndex): void => {
      (vaults[vaultId] ??= []).push([
        assetId,
        a.revisions,
        a.updated_at,
        a.heads.map((h) =>
          h.kind === undefined
            ? [h.id, h.tombstone ? 1 : 0, h.created_at, h.title]
            : [h.id, h.tombstone ? 1 : 0, h.created_at, h.title, h.kind],
        ),
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
