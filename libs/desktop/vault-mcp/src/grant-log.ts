// The persisted grant log: sealed rows `grants.<seq>` in the vault store, replayed at unlock.
// Only SHA-256 digests of tokens are ever written (GRANT-11). Entries are validated strictly on
// load: a row that does not parse is corruption, never skipped (fail closed).
import { z } from 'zod';

const hex32 = z.string().regex(/^[0-9a-f]{32}$/);
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const time = z.number().int().min(0);
const scope = z.enum(['read', 'read_write', 'read_write_delete']);
const name = z.string().min(1).max(128);
const vaultName = z.string().min(1).max(64);

export const grantEntrySchema = z.strictObject({
  t: z.literal('grant'),
  id: hex32,
  digest: hex64,
  vault_id: z.string().min(1).max(128),
  vault: vaultName,
  scope,
  issuer: name,
  subject: name,
  parent: hex32.nullable(),
  depth: z.number().int().min(1).max(2),
  created_at: time,
  expires_at: time,
  /** Set when the grant came from claiming a request (REQ-3). */
  request: hex32.nullable(),
});

export const revokeEntrySchema = z.strictObject({
  t: z.literal('revoke'),
  ids: z.array(hex32).min(1),
  at: time,
});

export const requestEntrySchema = z.strictObject({
  t: z.literal('request'),
  id: hex32,
  vault_id: z.string().min(1).max(128),
  vault: vaultName,
  scope,
  minutes: z.number().int().min(1).max(60),
  reason: z.string().max(500),
  requester_grant: hex32,
  subject: name,
  /** REQ-8: the requesting grant's subject differs from its issuer. */
  delegated: z.boolean(),
  created_at: time,
});

export const requestStateEntrySchema = z.strictObject({
  t: z.literal('request_state'),
  id: hex32,
  state: z.enum(['approved', 'denied', 'cancelled', 'expired', 'claimed']),
  at: time,
  scope: scope.optional(),
  minutes: z.number().int().min(1).max(60).optional(),
});

export const grantLogEntrySchema = z.discriminatedUnion('t', [
  grantEntrySchema,
  revokeEntrySchema,
  requestEntrySchema,
  requestStateEntrySchema,
]);

export type GrantEntry = z.infer<typeof grantEntrySchema>;
export type RequestEntry = z.infer<typeof requestEntrySchema>;
export type GrantLogEntry = z.infer<typeof grantLogEntrySchema>;
