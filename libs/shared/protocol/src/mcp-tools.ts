// The MCP tools the vault serves (MCP-5, MCP-10) and their strict input schemas. The stdio MCP
// server registers these schemas and the daemon re-validates every call against the same ones,
// so a client that bypasses the MCP server gets no wider surface (MCP-6: each names its vault).
// MCP-14: no schema has a field that could choose a model provider, credentials or a proxy.
import { z } from 'zod';
import { cardOpArgs, mcpCardWriteArgs } from './vault-ipc.cards';
import { MAX_BODY_BYTES, MAX_TITLE_CHARS } from './vault-ipc.limits';

const vault = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'vault names are 1-64 of a-z 0-9 . _ -')
  .describe('the vault this call acts on; the grant must cover it');
const assetId = z.string().regex(/^[0-9a-f]{32}$/, 'asset ids are 32 lowercase hex');
const revisionId = z.string().regex(/^[0-9a-f]{64}$/, 'revision ids are 64 lowercase hex');
const hex32 = z.string().regex(/^[0-9a-f]{32}$/, 'ids are 32 lowercase hex');
const query = z.string().min(1).max(2000);
const mode = z.enum(['any', 'all', 'phrase']).describe('any: some words; all: every word; phrase: exact');
const kind = z.enum(['lexical', 'vector', 'hybrid']);
const limit = z.number().int().min(1).max(50);
const title = z.string().max(MAX_TITLE_CHARS);
const body = z.string().refine((s) => new TextEncoder().encode(s).length <= MAX_BODY_BYTES, 'body too large');
const minutes = z
  .number()
  .int()
  .min(1)
  .max(60)
  .describe('lifetime in minutes (1-60, never beyond the parent)');
const scope = z.enum(['read', 'read_write', 'read_write_delete']);

export const MCP_TOOL_SCHEMAS = {
  memory_search: z.strictObject({
    vault,
    query,
    mode: mode.optional(),
    kind: kind.optional(),
    limit: limit.optional(),
  }),
  memory_retrieve: z.strictObject({
    vault,
    query,
    mode: mode.optional(),
    kind: kind.optional(),
    limit: limit.optional(),
  }),
  memory_ask: z.strictObject({ vault, question: query, mode: mode.optional(), limit: limit.optional() }),
  memory_read: z.strictObject({ vault, asset_id: assetId }),
  memory_read_revision: z.strictObject({ vault, asset_id: assetId, revision_id: revisionId }),
  memory_history: z.strictObject({ vault, asset_id: assetId }),
  memory_diff: z.strictObject({ vault, asset_id: assetId, from: revisionId, to: revisionId }),
  memory_write: z.strictObject({ vault, asset_id: assetId.optional(), title, body }),
  memory_delete: z.strictObject({ vault, asset_id: assetId }),
  card_write: mcpCardWriteArgs.extend({ vault }),
  card_graph: cardOpArgs.card_graph.extend({ vault }),
  card_link: cardOpArgs.card_link.extend({ vault }),
  grant_issue: z.strictObject({ vault, minutes, scope: scope.optional() }),
  grant_list: z.strictObject({ vault }),
  grant_revoke: z.strictObject({ vault, grant_id: hex32 }),
  grant_request: z.strictObject({ vault, scope, minutes, reason: z.string().max(500).optional() }),
  grant_claim: z.strictObject({ vault, request_id: hex32 }),
} as const;

export type McpToolName = keyof typeof MCP_TOOL_SCHEMAS;
export const MCP_TOOL_NAMES = Object.keys(MCP_TOOL_SCHEMAS) as [McpToolName, ...McpToolName[]];
export type McpToolArgs<T extends McpToolName> = z.infer<(typeof MCP_TOOL_SCHEMAS)[T]>;

export const MCP_TOOL_DESCRIPTIONS: Record<McpToolName, string> = {
  memory_search: 'Search the vault; returns the best matching memories with a snippet each.',
  memory_retrieve: 'Retrieve the best matching passages (chunks) with citations.',
  memory_ask: 'Answer a question from the vault with citations, or say there is not enough evidence.',
  memory_read: 'Read the current revision of a memory or card.',
  memory_read_revision: 'Read one past revision of a memory or card.',
  memory_history: 'List the revisions of a memory or card.',
  memory_diff: 'Unified diff between two revisions of one memory or card.',
  memory_write: 'Create a memory, or update one (needs a write grant).',
  memory_delete: 'Delete a memory or card; its history is kept (needs a delete grant).',
  card_write:
    'Create or update a card (title, body, fields). Cards with secret references cannot be changed here.',
  card_graph: 'The cards linked to a card, up to a few hops away.',
  card_link: 'Link two cards (or remove a link) with a relation name.',
  grant_issue: 'Issue a child grant no wider, longer or deeper than this one; the token is shown once.',
  grant_list: 'List this grant and the grants issued from it (never their tokens).',
  grant_revoke: 'Revoke this grant or one issued from it, with all its descendants.',
  grant_request: 'Ask the vault owner for a grant with a wider scope or longer life.',
  grant_claim: 'Claim an approved request once; the new token is shown once.',
};
