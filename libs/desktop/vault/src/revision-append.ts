// The write path (VAULT-8..10, HIST-1/2): signs and seals new revisions of one vault and
// commits, in ONE transaction, one revision row per revision (with its index fields) plus the
// checkpoint. The state is rewritten only when the asset index snapshot is due (asset-index.ts).
import { wipe } from '@arslan/util';
import { writeRevision } from '@arslan/vault-core';
import { COMPACT_MIN_ROWS, type MetaRow, type StagedIndex } from './asset-index';
import { type AssetContent, encodeContent, kindOfContent } from './asset-content';
import type { JsonValue } from './canonical-json';
import { revisionRowInput } from './revision-rows';
import { findVault, withoutLegacyAssets } from './vault-index';
import type { LocalVaultService } from './vault-service';
import type { RevisionRowInput } from './vault-store';

export interface RevisionItem {
  assetId: string;
  parents: string[];
  content: AssetContent;
  tombstone: boolean;
  /** Index title (a tombstone keeps the title it deleted). */
  indexTitle?: string;
  createdAt?: number;
}

/** Returns the new revision ids, in item order. */
export function appendRevisions(
  service: LocalVaultService,
  vaultName: string,
  items: readonly RevisionItem[],
): string[] {
  const vault = findVault(service.serviceState(), vaultName);
  const policyHead = service.policyOf(vault).headHash;
  const epochKey = service.epochKey(vault, vault.epoch);
  const certificate = service.certificate();
  const store = service.requireStore();
  const index = service.assetIndex();
  const rows: RevisionRowInput[] = [];
  const metas: MetaRow[] = [];
  for (const item of items) {
    const content = encodeContent(item.content);
    const record = store.withDeviceSeed((signingSeed) =>
      writeRevision(
        {
          vaultId: vault.vault_id,
          assetId: item.assetId,
          parents: item.parents,
          policyHead,
          tombstone: item.tombstone,
          epoch: vault.epoch,
          epochKey,
          content,
          signer: { signingSeed, certificate },
        },
        service.random,
      ),
    );
    wipe(content);
    const createdAt = item.createdAt ?? service.now();
    const meta: MetaRow = {
      vault_id: vault.vault_id,
      asset_id: item.assetId,
      revision_id: record.id,
      parents: [...item.parents],
      tombstone: item.tombstone,
      created_at: createdAt,
      title: item.indexTitle ?? item.content.title,
      kind: kindOfContent(item.content),
    };
    rows.push(revisionRowInput(vault.vault_id, createdAt, meta.title, meta.kind, record));
    metas.push(meta);
  }
  // Revision rows + checkpoint; the state (with a new index snapshot) only every
  // snapshotInterval(assets) revision rows (asset-index.ts).
  const staged = index.stage(metas);
  const snapshot = index.snapshotDue(staged);
  if (snapshot) commitSnapshot(service, staged, rows);
  else store.appendRows([], rows);
  index.apply(staged, snapshot);
  return metas.map((m) => m.revision_id);
}

/** Rewrites the state with the index snapshot of `staged` (plus revision `rows`, one transaction). */
function commitSnapshot(service: LocalVaultService, staged: StagedIndex, rows: RevisionRowInput[]): void {
  const value = service.assetIndex().snapshot(staged) as unknown as JsonValue;
  service.requireStore().replaceState(
    (current) => ({
      ...current,
      vaults: withoutLegacyAssets(service.serviceState().vaults) as unknown as JsonValue,
      asset_index: value,
    }),
    { revisions: rows },
  );
}

/**
 * Before lock/close: a snapshot covering every revision row, so the next unlock opens none
 * (after a crash it opens < snapshotInterval(assets)). Best effort: a failure leaves the rows as they are.
 */
export function compactAssetIndex(service: LocalVaultService): void {
  try {
    const index = service.assetIndex();
    if (index.metaCount - index.snapshotUpto < COMPACT_MIN_ROWS) return;
    const staged = index.stage([]);
    commitSnapshot(service, staged, []);
    index.apply(staged, true);
  } catch {
    // the next unlock reads the revision rows instead
  }
}
