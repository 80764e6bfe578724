import { z } from 'zod';
import {
  IPC_VERSION,
  MAX_BODY_BYTES,
  MAX_IMPORT_ITEMS,
  MAX_PASSWORD_CHARS,
  MAX_TITLE_CHARS,
} from './vault-ipc.limits';
import { cardOpArgs, writeKindSchema } from './vault-ipc.cards';
import { grantOpArgs } from './vault-ipc.grants';

// IPC-1: one typed request interface for every client surface; every object is
// strict, so an unknown field anywhere is rejected.

const password = z.string().min(1).max(MAX_PASSWORD_CHARS);
const vaultName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'vault names are 1-64 of a-z 0-9 . _ -');
const assetId = z.string().regex(/^[0-9a-f]{32}$/, 'asset ids are 32 lowercase hex');
const revisionId = z.string().regex(/^[0-9a-f]{64}$/, 'revision ids are 64 lowercase hex');
const title = z.string().max(MAX_TITLE_CHARS);
const body = z.string().refine((s) => new TextEncoder().encode(s).length <= MAX_BODY_BYTES, 'body too large');
const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/'), 'path must be absolute');
const empty = z.strictObject({});
const centerTicket = z.string().min(1).max(256);
const ragQuery = z.string().min(1).max(2000);
const matchMode = z.enum(['any', 'all', 'phrase']);
const searchKind = z.enum(['lexical', 'vector', 'hybrid']);
const ragLimit = z.number().int().min(1).max(50);

export const vaultOpArgs = {
  status: empty,
  /** `center_ticket`: CTR-1, an enrollment ticket, required while a ticket-mode Center is configured. */
  init: z.strictObject({ password, center_ticket: centerTicket.optional() }),
  /** `center_ticket`: CTR-4, required while a ticket-mode Center is configured. */
  unlock: z.strictObject({ password, center_ticket: centerTicket.optional() }),
  lock: empty,
  sudo: z.strictObject({ password }),
  vault_create: z.strictObject({ name: vaultName, device_only: z.boolean().optional() }),
  vault_list: empty,
  write: z.strictObject({
    vault: vaultName.optional(),
    asset_id: assetId.optional(),
    title,
    body,
    kind: writeKindSchema.optional(),
  }),
  read: z.strictObject({
    vault: vaultName.optional(),
    asset_id: assetId,
    revision_id: revisionId.optional(),
  }),
  list: z.strictObject({ vault: vaultName.optional(), include_deleted: z.boolean().optional() }),
  history: z.strictObject({ vault: vaultName.optional(), asset_id: assetId }),
  diff: z.strictObject({ vault: vaultName.optional(), asset_id: assetId, from: revisionId, to: revisionId }),
  delete: z.strictObject({ vault: vaultName.optional(), asset_id: assetId }),
  resolve: z.strictObject({ vault: vaultName.optional(), asset_id: assetId, title, body }),
  import: z.strictObject({
    vault: vaultName.optional(),
    items: z.array(z.strictObject({ title, body })).min(1).max(MAX_IMPORT_ITEMS),
  }),
  backup: z.strictObject({ path: absolutePath, backup_password: password }),
  /** `center_ticket`: as for `init` (a restore creates the store too, CTR-1). */
  restore: z.strictObject({
    path: absolutePath,
    backup_password: password,
    password,
    center_ticket: centerTicket.optional(),
  }),
  audit_verify: empty,
  // Retrieval (RAG-*): every op names its vault (default `personal`) and a match mode.
  search: z.strictObject({
    vault: vaultName.optional(),
    query: ragQuery,
    mode: matchMode.optional(),
    kind: searchKind.optional(),
    limit: ragLimit.optional(),
  }),
  retrieve: z.strictObject({
    vault: vaultName.optional(),
    query: ragQuery,
    mode: matchMode.optional(),
    kind: searchKind.optional(),
    limit: ragLimit.optional(),
  }),
  rag_index: z.strictObject({ vault: vaultName.optional() }),
  rag_status: z.strictObject({ vault: vaultName.optional() }),
  rag_search: z.strictObject({
    vault: vaultName.optional(),
    query: ragQuery,
    mode: matchMode.optional(),
    kind: searchKind.optional(),
    limit: ragLimit.optional(),
  }),
  rag_ask: z.strictObject({
    vault: vaultName.optional(),
    question: ragQuery,
    mode: matchMode.optional(),
    limit: ragLimit.optional(),
  }),
  shutdown: empty,
  ...cardOpArgs,
  ...grantOpArgs,
} as const;

export type VaultOp = keyof typeof vaultOpArgs;
export const VAULT_OPS = Object.keys(vaultOpArgs) as VaultOp[];
export type VaultOpArgs<Op extends VaultOp> = z.infer<(typeof vaultOpArgs)[Op]>;

/** The version-1 request wrapper (IPC-2): exactly these members. */
export const requestWrapperSchema = z.strictObject({
  v: z.literal(IPC_VERSION),
  id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  op: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'op is snake_case'),
  args: z.record(z.string(), z.unknown()).optional(),
});

export type VaultRequest = { [Op in VaultOp]: { v: 1; id: number; op: Op; args: VaultOpArgs<Op> } }[VaultOp];

export const responseErrorSchema = z.strictObject({ code: z.string(), message: z.string() });

export const responseWrapperSchema = z.union([
  z.strictObject({
    v: z.literal(IPC_VERSION),
    id: z.number().int().min(0),
    ok: z.literal(true),
    result: z.unknown(),
  }),
  z.strictObject({
    v: z.literal(IPC_VERSION),
    id: z.number().int().min(0),
    ok: z.literal(false),
    error: responseErrorSchema,
  }),
]);

export type VaultResponse =
  | { v: 1; id: number; ok: true; result: unknown }
  | { v: 1; id: number; ok: false; error: { code: string; message: string } };
