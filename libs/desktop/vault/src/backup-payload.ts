// The plaintext inside a backup envelope (BAK-1/6): the signed local state needed for
// recovery — per shared vault its policy history, raw epoch keys and every signed revision —
// plus the user identity seed. Never grants, device-only vaults, caches or device keys.
import type { PolicyEntry } from '@arslan/policy';
import type { RevisionJson } from '@arslan/vault-core';
import { serviceError } from './vault-service.errors';

export const BACKUP_PAYLOAD_FORMAT = 'arslan-backup-payload';

export interface BackupRevision {
  created_at: number;
  revision: RevisionJson;
}

export interface BackupVault {
  name: string;
  vault_id: string;
  created_at: number;
  policy: PolicyEntry[];
  /** epoch → raw epoch key (hex). Only ever inside the encrypted envelope. */
  epoch_keys: Record<string, string>;
  revisions: BackupRevision[];
}

export interface BackupPayload {
  format: typeof BACKUP_PAYLOAD_FORMAT;
  version: 1;
  created_at: number;
  /** The user identity Ed25519 seed (hex): recovery material (DEV-1). */
  user_seed: string;
  vaults: BackupVault[];
}

export function parseBackupPayload(value: unknown): BackupPayload {
  const p = value as Partial<BackupPayload> | null;
  const ok =
    typeof p === 'object' &&
    p !== null &&
    p.format === BACKUP_PAYLOAD_FORMAT &&
    p.version === 1 &&
    typeof p.user_seed === 'string' &&
    /^[0-9a-f]{64}$/.test(p.user_seed) &&
    Array.isArray(p.vaults) &&
    p.vaults.every(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof v.name === 'string' &&
        typeof v.vault_id === 'string' &&
        Array.isArray(v.policy) &&
        typeof v.epoch_keys === 'object' &&
        v.epoch_keys !== null &&
        Array.isArray(v.revisions) &&
        v.revisions.every((r) => typeof r === 'object' && r !== null && Number.isSafeInteger(r.created_at)),
    );
  if (!ok) throw serviceError('corrupt', 'backup payload shape');
  return p as BackupPayload;
}
