// The small indexes the service keeps inside the sealed `vault-state` row. Revisions
// themselves live in their own insert-only sealed rows (revision-rows.ts), so a commit
// re-encrypts only this index, never the history.
import type { PolicyEntry } from '@arslan/policy';
import type { DeviceCertificateJson } from '@arslan/vault-core';
import type { JsonObject } from './canonical-json';
import { serviceError } from './vault-service.errors';

export const SERVICE_STATE_VERSION = 1;
export const DEFAULT_VAULT = 'personal';
/** Sealed row holding the user identity Ed25519 seed (hex), DEV-1. */
export const IDENTITY_ROW = 'identity-key';

/** One unconsumed head of an asset (HIST-2). */
export interface HeadInfo {
  id: string;
  tombstone: boolean;
  created_at: number;
  /** Title of this head's content (for a tombstone: the title it deleted). */
  title: string;
}

export interface AssetIndex {
  heads: HeadInfo[];
  revisions: number;
  updated_at: number;
}

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
  assets: Record<string, AssetIndex>;
  /** BAK-4: purpose of the read-only archive row of the original history, if restored. */
  archive?: string;
}

export interface ServiceStateJson {
  service_version: number;
  certificate: DeviceCertificateJson;
  /** Member id (user identity public key, hex). */
  user_key: string;
  vaults: Record<string, VaultIndex>;
}

export type AssetStateKind = 'live' | 'conflicted' | 'deleted';

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

export function findAsset(vault: VaultIndex, assetId: string): AssetIndex {
  const asset = Object.hasOwn(vault.assets, assetId) ? vault.assets[assetId] : undefined;
  if (!asset) throw serviceError('not_found', 'no such asset');
  return asset;
}

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

/** Records a new revision in the index: its parents stop being heads, it becomes one. */
export function recordRevision(
  vault: VaultIndex,
  assetId: string,
  head: HeadInfo,
  parents: readonly string[],
): void {
  const asset = vault.assets[assetId] ?? { heads: [], revisions: 0, updated_at: 0 };
  const consumed = new Set(parents);
  asset.heads = [...asset.heads.filter((h) => !consumed.has(h.id)), head].sort((a, b) =>
    a.id < b.id ? -1 : 1,
  );
  asset.revisions += 1;
  asset.updated_at = Math.max(asset.updated_at, head.created_at);
  vault.assets[assetId] = asset;
}
