// Asset kinds and card ops of the vault IPC (MCP-5, MCP-11..13, OTP-9/10, CRED-1, RAG-3).
// Spread into vaultOpArgs / VaultOpResults. Every object is strict: unknown fields are rejected.
// (The primitives are repeated here, not imported from vault-ipc.schema.ts, which imports this file.)
import { z } from 'zod';
import { MAX_BODY_BYTES, MAX_TITLE_CHARS } from './vault-ipc.limits';

/** Every asset kind. Content written before kinds existed is a `memory`. */
export const ASSET_KINDS = ['memory', 'private', 'credential', 'card'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

/** Kinds the plain `write` op may create (cards go through `card_write`). */
export const WRITE_KINDS = ['memory', 'private', 'credential'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** Bounds of one card revision. */
export const MAX_CARD_FIELDS = 64;
export const MAX_CARD_FIELD_NAME_CHARS = 64;
export const MAX_CARD_FIELD_VALUE_BYTES = 4096;
export const MAX_CARD_LINKS = 256;
export const MAX_CARD_SECRETS = 64;
/** Bytes of one secret value given to a terminal `card_write` (stored as a credential asset). */
export const MAX_SECRET_VALUE_BYTES = 65_536;
export const MAX_CARD_GRAPH_DEPTH = 3;
export const MAX_CARD_GRAPH_NODES = 200;
/** Secret labels and link relations. */
export const CARD_LABEL_PATTERN = /^[a-z0-9_.-]{1,64}$/;
/** A secret reference in a card body or field value (MCP-11: stays literal text on read). */
export const SECRET_MARKER_PREFIX = '{{secret:';

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;
const vaultName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'vault names are 1-64 of a-z 0-9 . _ -');
const assetId = z.string().regex(/^[0-9a-f]{32}$/, 'asset ids are 32 lowercase hex');
const title = z.string().max(MAX_TITLE_CHARS);
const body = z.string().refine((s) => utf8Bytes(s) <= MAX_BODY_BYTES, 'body too large');
const label = z.string().regex(CARD_LABEL_PATTERN, 'labels are 1-64 of a-z 0-9 _ . -');
const CONTROL = /[\u0000-\u001f\u007f]/;
const fieldName = z
  .string()
  .min(1)
  .max(MAX_CARD_FIELD_NAME_CHARS)
  .refine((s) => !CONTROL.test(s), 'field names have no control characters');
const fieldValue = z
  .string()
  .refine(
    (s) => utf8Bytes(s) <= MAX_CARD_FIELD_VALUE_BYTES,
    `field values are at most ${MAX_CARD_FIELD_VALUE_BYTES} bytes`,
  );
const secretValue = z
  .string()
  .refine(
    (s) => utf8Bytes(s) <= MAX_SECRET_VALUE_BYTES,
    `secret values are at most ${MAX_SECRET_VALUE_BYTES} bytes`,
  );

/** Field updates: a value sets the field, an empty string removes it (OTP-9). */
export const cardFieldsSchema = z
  .record(fieldName, fieldValue)
  .refine((r) => Object.keys(r).length <= MAX_CARD_FIELDS, `at most ${MAX_CARD_FIELDS} fields`);

/** Terminal only: label → secret value (a new value stores a new credential revision; '' unmaps the label). */
export const cardSecretsSchema = z
  .record(label, secretValue)
  .refine((r) => Object.keys(r).length <= MAX_CARD_SECRETS, `at most ${MAX_CARD_SECRETS} secrets`);

const cardWriteShape = {
  vault: vaultName.optional(),
  /** Absent: create a card. Present: update it (omitted body/fields keep their value, OTP-9). */
  card_id: assetId.optional(),
  title,
  body: body.optional(),
  fields: cardFieldsSchema.optional(),
};

/** MCP-12: the MCP `card_write` has no secret map (a `secrets` member is an unknown field). */
export const mcpCardWriteArgs = z.strictObject(cardWriteShape);
export type McpCardWriteArgs = z.infer<typeof mcpCardWriteArgs>;

export const writeKindSchema = z.enum(WRITE_KINDS);

export const cardOpArgs = {
  card_write: z.strictObject({ ...cardWriteShape, secrets: cardSecretsSchema.optional() }),
  card_link: z.strictObject({
    vault: vaultName.optional(),
    from: assetId,
    to: assetId,
    rel: label,
    remove: z.boolean().optional(),
  }),
  card_graph: z.strictObject({
    vault: vaultName.optional(),
    card_id: assetId,
    depth: z.number().int().min(1).max(MAX_CARD_GRAPH_DEPTH).optional(),
  }),
} as const;

export interface CardLink {
  to: string;
  rel: string;
}

export interface CardGraphNode {
  card_id: string;
  title: string;
  fields: Record<string, string>;
}

export interface CardGraphEdge {
  from: string;
  to: string;
  rel: string;
}

export interface CardOpResults {
  card_write: { vault: string; card_id: string; revision_id: string };
  /** `changed: false` when the link already was (or was not) there: no new revision. */
  card_link: { vault: string; from: string; to: string; rel: string; revision_id: string; changed: boolean };
  card_graph: {
    vault: string;
    root: string;
    nodes: CardGraphNode[];
    edges: CardGraphEdge[];
    /** True when the node bound (MAX_CARD_GRAPH_NODES) cut the walk short. */
    truncated: boolean;
  };
}
