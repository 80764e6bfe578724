// The floor side of bench:vault: the per-revision cryptography the spec requires (VAULT-8/9/10:
// fresh data key, content chunk sealed, data key wrapped, Ed25519 signature, content-addressed
// id; VAULT-2/6: the row and the checkpoint sealed under the master key) with vault-core's own
// functions, then one row insert + checkpoint upsert in one DELETE + synchronous=FULL
// transaction, and nothing else: no service state, asset index, lookups or snapshots.
// Its rate is the most any vault meeting the spec could reach with this row shape on this disk,
// so `raw ÷ floor` tells how much of the commits ratio the required crypto alone costs.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type * as CoreApi from '@arslan/vault-core';

export type FloorCore = Pick<
  typeof CoreApi,
  | 'writeRevision'
  | 'encodeRevisionRow'
  | 'sealState'
  | 'generateUserIdentity'
  | 'generateDeviceKeys'
  | 'issueDeviceCertificate'
>;

const POLICY_HEAD = '0'.repeat(64);

export function openCryptoFloor(
  core: FloorCore,
  dir: string,
  body: () => string,
): { commit: () => void; close: () => void } {
  const db = new Database(join(dir, 'floor.sqlite'));
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE revisions (seq INTEGER PRIMARY KEY, lookup BLOB NOT NULL, value BLOB NOT NULL) STRICT;
    CREATE TABLE checkpoints (purpose TEXT PRIMARY KEY, value BLOB NOT NULL) STRICT, WITHOUT ROWID;`);
  const insert = db.prepare('INSERT INTO revisions (seq, lookup, value) VALUES (?, ?, ?)');
  const upsert = db.prepare(
    'INSERT INTO checkpoints (purpose, value) VALUES (?, ?) ON CONFLICT(purpose) DO UPDATE SET value = excluded.value',
  );
  const transact = db.transaction((seq: number, lookup: Buffer, row: Uint8Array, checkpoint: Uint8Array) => {
    insert.run(seq, lookup, row);
    upsert.run('head', checkpoint);
  });
  const masterKey = new Uint8Array(randomBytes(32));
  const epochKey = new Uint8Array(randomBytes(32));
  const user = core.generateUserIdentity();
  const device = core.generateDeviceKeys();
  const certificate = core.issueDeviceCertificate(user.seed, {
    deviceSigningKey: device.signingPublicKey,
    deviceExchangeKey: device.exchangePublicKey,
    createdAt: Date.now(),
  });
  const encoder = new TextEncoder();
  let seq = 0;
  return {
    commit() {
      seq += 1;
      const revision = core.writeRevision({
        vaultId: 'vault-bench',
        assetId: `asset-${seq}`,
        parents: [],
        policyHead: POLICY_HEAD,
        tombstone: false,
        epoch: 1,
        epochKey,
        content: encoder.encode(body()),
        signer: { signingSeed: device.signingSeed, certificate },
      });
      const label = { table: 'revisions' as const, purpose: `rev.${String(seq).padStart(12, '0')}` };
      const row = core.sealState(
        masterKey,
        core.encodeRevisionRow({
          vault_id: 'vault-bench',
          created_at: Date.now(),
          title: `note ${seq}`,
          kind: 'note',
          revision,
        }),
        label,
      );
      const checkpoint = core.sealState(
        masterKey,
        encoder.encode(JSON.stringify({ generation: seq, revision_count: seq, row_count: 3 })),
        { table: 'checkpoints', purpose: 'head' },
      );
      transact(seq, randomBytes(16), row, checkpoint);
    },
    close: () => db.close(),
  };
}
