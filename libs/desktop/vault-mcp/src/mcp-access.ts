// What each MCP tool needs from a capability (MCP-3, MCP-6, MCP-8, GRANT-1): the action its scope
// must allow, and which asset kinds it may touch. MCP never reaches private memories or
// credentials; everything not listed here (files, processes, remote sessions, the loopback
// proxy, crypto jobs, membership, desktop status, credential copy) has no tool at all.
import type { GrantAction } from '@arslan/policy';
import type { AssetKind, McpToolName } from '@arslan/protocol';

export const TOOL_ACTION: Record<McpToolName, GrantAction> = {
  memory_search: 'read',
  memory_retrieve: 'read',
  memory_ask: 'read',
  memory_read: 'read',
  memory_read_revision: 'read',
  memory_history: 'read',
  memory_diff: 'read',
  memory_write: 'write',
  memory_delete: 'delete',
  card_write: 'write',
  card_graph: 'read',
  card_link: 'write',
  // Grant service ops are bounded by the issuing rules themselves (GRANT-4, MCP-10).
  grant_issue: 'read',
  grant_list: 'read',
  grant_revoke: 'read',
  grant_request: 'read',
  grant_claim: 'read',
};

/** Kinds an asset-addressed tool may act on; private memories and credentials never (MCP-8, CRED-1). */
export const TOOL_KINDS: Partial<Record<McpToolName, readonly AssetKind[]>> = {
  memory_read: ['memory', 'card'],
  memory_read_revision: ['memory', 'card'],
  memory_history: ['memory', 'card'],
  memory_diff: ['memory', 'card'],
  memory_write: ['memory'],
  memory_delete: ['memory', 'card'],
};

/** Tools that change the vault or the grant table: run one at a time with other writes (IPC-10). */
export const MUTATING_TOOLS: ReadonlySet<McpToolName> = new Set<McpToolName>([
  'memory_write',
  'memory_delete',
  'card_write',
  'card_link',
  'grant_issue',
  'grant_revoke',
  'grant_request',
  'grant_claim',
]);
