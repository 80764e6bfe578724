// The vault-level data the service keeps inside the sealed `vault-state` row (vault list,
// policies, epoch keys, identity). Revisions and their per-asset meta live in insert-only
// sealed rows (revision-rows.ts, asset-index.ts); a write does not rewrite this state.
import type { PolicyEntry } from '@arslan/policy';
import type { AssetIndex, AssetIndexes, IndexSnapshot } from './asset-index';
import type { DeviceCertificateJson } from '@arslan/vault-core';
import type { JsonObject } from './canonical-json';
import { serviceError } from './vault-service.errors';

export const SERVICE_STATE_VERSION = 1;
export const DEFAULT_VAULT = 'personal';
/** Sealed row holding the user identity Ed25519 seed (hex), DEV-1. */
export const IDENTITY_ROW = 'identity-key';

export interface VaultIndex {
  vault_id: string;
  device_only: boolean;
  created_at: number;
  /** Current permission epoch (VAULT-7). */
  epoch: number;
  /** epoch → wrapped epoch key (hex, createEpochKey under the master key). */
  epoch_keys: Record<string, string>;
  /** Signed policy history, genesis first. */
  policy: PolicyEntry[];
  /** BAK-4: purpose of the read-only archive row of the original history, if restored. */
  archive?: string;
}

export interface ServiceStateJson {
  service_version: number;
  certificate: DeviceCertificateJson;
  /** Member id (user identity public key, hex). */
  user_key: string;
  vaults: Record<string, VaultIndex>;
  /** Asset index snapshot (asset-index.ts); rewritten every snapshotInterval(assets) revision rows, not per write. */
  asset_index?: IndexSnapshot;
}

export function isBootstrapped(value: JsonObject): boolean {
  return value['service_version'] === SERVICE_STATE_VERSION;
}

export function asServiceState(value: JsonObject): ServiceStateJson {
  if (!isBootstrapped(value)) throw serviceError('corrupt', 'service state missing');
  return value as unknown as ServiceStateJson;
}

export function findVault(state: ServiceStateJson, name: string | undefined): VaultIndex {
  const vault = Object.hasOwn(state.vaults, name ?? DEFAULT_VAULT)
    ? state.vaults[name ?? DEFAULT_VAULT]
    : undefined;
  if (!vault) throw serviceError('not_found', 'no such vault');
  return vault;
}

/** Stores written before meta rows kept `vaults.<name>.assets` in the state: read as a snapshot at seq 0. */
export function legacySnapshot(state: ServiceStateJson): IndexSnapshot | undefined {
  const vaults: IndexSnapshot['vaults'] = {};
  let found = false;
  for (const v of Object.values(state.vaults)) {
    const assets = (v as { assets?: Record<string, AssetIndex> }).assets;
    if (typeof assets !== 'object' || assets === null) continue;
    found = true;
    vaults[v.vault_id] = Object.entries(assets).map(([id, a]) => [
      id,
      a.revisions,
      a.updated_at,
      a.heads.map((h) => [h.id, h.tombstone ? 1 : 0, h.created_at, h.title]),
    ]);
  }
  return found ? { upto: 0, vaults } : undefined;
}

/** The vaults without the legacy `assets` indexes (dropped with the first snapshot). */
export function withoutLegacyAssets(vaults: Record<string, VaultIndex>): Record<string, VaultIndex> {
  return Object.fromEntries(
    Object.entries(vaults).map(([name, v]) => {
      const { assets: _legacy, ...rest } = v as VaultIndex & { assets?: unknown };
      return [name, rest];
    }),
  );
}

export function findAsset(indexes: AssetIndexes, vault: VaultIndex, assetId: string): AssetIndex {
  const asset = indexes.find(vault.vault_id, assetId);
  if (!asset) throw serviceError('not_found', 'no such asset');
  return asset;
}
