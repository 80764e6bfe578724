// DEV-2 + VAULT-10 + HIST-1 for one stored revision against its vault's policy head.
import { type PolicyEntry, isDeviceAllowed } from '@arslan/policy';
import { type RevisionRecord, verifyRevision } from '@arslan/vault-core';
import { certificateFingerprint } from './device-identity';

/**
 * Certificate (DEV-1), allow-list by device fingerprint (DEV-2), signature (VAULT-10) and
 * content address (HIST-1). Returns the writer's device fingerprint; throws VaultFormatError.
 */
export function verifyAgainstPolicy(record: RevisionRecord, policyHead: PolicyEntry): string {
  const fingerprint = certificateFingerprint(record.certificate);
  verifyRevision(record, {
    isDeviceAllowed: (_deviceHex, userHex) => isDeviceAllowed(policyHead, userHex, fingerprint),
  });
  return fingerprint;
}
