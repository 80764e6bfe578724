// BAK-1..6: backup of the shared vaults into an independent envelope, and recovery into
// a new store with a new device key, new vault ids and fresh single-owner policies.
import fs from 'node:fs';
import type { VaultOpResults } from '@arslan/protocol';
import { verifyPolicyHistory } from '@arslan/policy';
import { bytesToHex, hexToBytes, wipe } from '@arslan/util';
import {
  type RevisionRecord,
  assetState,
  openRevisionContent,
  parseRevisionJson,
  revisionToJson,
} from '@arslan/vault-core';
import { type AssetContent, decodeContent } from './asset-content';
import { openBackup, sealBackup, writeFileNoOverwrite } from './backup-envelope';
import {
  BACKUP_PAYLOAD_FORMAT,
  type BackupPayload,
  type BackupVault,
  parseBackupPayload,
} from './backup-payload';
import type { JsonValue } from './canonical-json';
import { initStore } from './store-init';
import { serviceError } from './vault-service.errors';
import { verifyAgainstPolicy } from './revision-verify';
import { forgetEd25519SigningKeys } from './node-ed25519';
import type { LocalVaultService } from './vault-service';

/** BAK-1/6: shared (not device-only) vaults with policy, epoch keys and every signed revision. */
export async function backupVaults(
  service: LocalVaultService,
  target: string,
  backupPassword: Uint8Array,
): Promise<VaultOpResults['backup']> {
  const state = service.serviceState();
  if (fs.existsSync(target)) throw serviceError('bad_request', 'the backup target already exists');
  const vaults: BackupVault[] = [];
  let assets = 0;
  for (const [name, vault] of Object.entries(state.vaults).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (vault.device_only) continue;
    const epochKeys: Record<string, string> = {};
    for (const epoch of Object.keys(vault.epoch_keys))
      epochKeys[epoch] = bytesToHex(service.epochKey(vault, Number(epoch)));
    const revisions = [...service.assetIndex().assets(vault.vault_id)].flatMap(([assetId, asset]) => {
      assets++;
      return service.assetRevisions(vault, assetId, asset).map((r) => ({
        created_at: r.createdAt,
        revision: revisionToJson(r.record),
      }));
    });
    vaults.push({
      name,
      vault_id: vault.vault_id,
      created_at: vault.created_at,
      policy: vault.policy,
      epoch_keys: epochKeys,
      revisions,
    });
  }
  const payload: BackupPayload = {
    format: BACKUP_PAYLOAD_FORMAT,
    version: 1,
    created_at: service.now(),
    user_seed: service.withUserSeed((seed) => bytesToHex(seed)),
    vaults,
  };
  const bytes = await sealBackup(payload, backupPassword, service.kdf, service.random);
  // VAULT-13: the export intent is committed before the file is written.
  service
    .requireStore()
    .withIntent('export', { kind: 'backup', vaults: vaults.length, assets }, () =>
      writeFileNoOverwrite(target, bytes, service.random),
    );
  return { path: target, bytes: bytes.length, vaults: vaults.length, assets };
}

interface RestoredHead {
  assetId: string;
  content: AssetContent;
  tombstone: boolean;
  createdAt: number;
}

/** Verifies a backed-up vault and returns the content of every current head (BAK-3). */
function recoverHeads(vault: BackupVault): RestoredHead[] {
  const policy = verifyPolicyHistory(vault.policy, { expectedVaultId: vault.vault_id });
  const byAsset = new Map<string, { record: RevisionRecord; createdAt: number }[]>();
  for (const r of vault.revisions) {
    const record = parseRevisionJson(r.revision);
    verifyAgainstPolicy(record, policy.head);
    byAsset.set(record.asset_id, [
      ...(byAsset.get(record.asset_id) ?? []),
      { record, createdAt: r.created_at },
    ]);
  }
  const heads: RestoredHead[] = [];
  for (const [assetId, revisions] of [...byAsset].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const state = assetState(revisions.map((r) => r.record));
    const headIds = state.kind === 'live' ? [state.head] : state.kind === 'conflicted' ? state.heads : [];
    for (const id of headIds) {
      const head = revisions.find((r) => r.record.id === id);
      if (!head) throw serviceError('corrupt', 'backup head missing');
      const wrapped = vault.epoch_keys[String(head.record.epoch)];
      if (wrapped === undefined) throw serviceError('corrupt', 'backup epoch key missing');
      const epochKey = hexToBytes(wrapped);
      let plain: Uint8Array | undefined;
      try {
        plain = openRevisionContent(head.record, { vaultId: vault.vault_id, epochKey });
        heads.push({
          assetId,
          content: decodeContent(plain),
          tombstone: head.record.tombstone,
          createdAt: head.createdAt,
        });
      } finally {
        wipe(epochKey);
        if (plain) wipe(plain);
      }
    }
  }
  return heads;
}

/**
 * BAK-2..5: decrypts and verifies everything first, then creates the new store, identity
 * (the recovered user seed), NEW device keys, NEW vault ids with fresh single-owner
 * policies, re-signs every current and conflict head, and keeps the original signed
 * history in a read-only sealed archive row `archive.<new vault id>`.
 */
export async function restoreFromBackup(
  service: LocalVaultService,
  file: string,
  backupPassword: Uint8Array,
  password: Uint8Array,
): Promise<VaultOpResults['restore']> {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    throw serviceError('not_found', 'cannot read the backup file');
  }
  const payload = parseBackupPayload(await openBackup(bytes, backupPassword, service.kdf));
  const recovered = payload.vaults.map((vault) => ({ vault, heads: recoverHeads(vault) }));

  await initStore(service.dataDir, password, service.kdf, { random: service.random });
  const store = service.openOwnStore();
  service.adoptStore(store);
  await store.unlock(password);
  const userSeed = hexToBytes(payload.user_seed);
  try {
    service.bootstrap(userSeed);
    let assets = 0;
    for (const { vault, heads } of recovered) {
      const index = service.newVaultIndex(userSeed, false);
      const archive = `archive.${index.vault_id}`;
      service.commit(
        (draft) => {
          draft.vaults[vault.name] = { ...index, archive };
        },
        [{ purpose: archive, value: vault as unknown as JsonValue }],
      );
      assets += new Set(heads.map((h) => h.assetId)).size;
      if (heads.length > 0)
        service.appendRevisions(
          vault.name,
          heads.map((h) => ({
            assetId: h.assetId,
            parents: [],
            content: h.content,
            tombstone: h.tombstone,
            createdAt: h.createdAt,
          })),
        );
    }
    return {
      vaults: service.vaultSummaries(),
      device_fingerprint: service.deviceFingerprint(),
      assets,
    };
  } finally {
    wipe(userSeed);
    forgetEd25519SigningKeys();
  }
}
