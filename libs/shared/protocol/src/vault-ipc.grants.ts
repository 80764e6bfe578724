// MCP grant ops of the vault IPC (MCP-1..14, GRANT-*, REQ-*); spread into vaultOpArgs.
// Terminal ops (`mcp_grant_*`, `mcp_request_*`) act as the local member; `mcp_call` acts only
// through the capability it carries (MCP-7, MCP-10), never through terminal elevation.
import { z } from 'zod';
import { MCP_TOOL_NAMES } from './mcp-tools';

export const MCP_TOKEN_PREFIX = 'amcp_';
/** `amcp_` + base64url of 32 random bytes. Anything else is refused before lookup. */
export const mcpToken = z.string().regex(/^amcp_[A-Za-z0-9_-]{43}$/, 'not an MCP capability token');
export const grantId = z.string().regex(/^[0-9a-f]{32}$/, 'grant ids are 32 lowercase hex');
export const requestId = z.string().regex(/^[0-9a-f]{32}$/, 'request ids are 32 lowercase hex');
const vaultName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'vault names are 1-64 of a-z 0-9 . _ -');
/** GRANT-5. */
export const grantMinutes = z.number().int().min(1).max(60);
/** Scopes a local grant may carry (allow_all is the hosted content surface only, CTR). */
export const localGrantScope = z.enum(['read', 'read_write', 'read_write_delete']);

export const grantOpArgs = {
  mcp_grant_issue: z.strictObject({
    vault: vaultName,
    minutes: grantMinutes,
    scope: localGrantScope.optional(),
    /** CTR-3: an MCP-grant ticket, required while a ticket-mode Center is configured. */
    center_ticket: z.string().min(1).max(256).optional(),
  }),
  mcp_grant_list: z.strictObject({ vault: vaultName.optional() }),
  mcp_grant_revoke: z.strictObject({ grant_id: grantId }),
  mcp_request_list: z.strictObject({ vault: vaultName.optional() }),
  mcp_request_decide: z.strictObject({
    request_id: requestId,
    decision: z.enum(['approve', 'deny']),
    /** Approval may narrow the requested bounds, never widen them (REQ-2). */
    scope: localGrantScope.optional(),
    minutes: grantMinutes.optional(),
  }),
  /** One MCP tool call; `arguments` is validated by the daemon against the tool's own schema. */
  mcp_call: z.strictObject({
    token: mcpToken,
    tool: z.enum(MCP_TOOL_NAMES),
    arguments: z.record(z.string(), z.unknown()),
  }),
} as const;

export type LocalGrantScope = z.infer<typeof localGrantScope>;

/** A grant as listed: never the token (GRANT-10). */
export interface GrantSummary {
  grant_id: string;
  vault: string;
  scope: LocalGrantScope;
  depth: number;
  parent_id: string | null;
  issuer: string;
  subject: string;
  created_at: number;
  expires_at: number;
}

export interface IssuedGrant extends GrantSummary {
  /** The capability: present exactly once, in this response (GRANT-10). */
  token: string;
}

export type RequestState = 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired' | 'claimed';

export interface RequestSummary {
  request_id: string;
  vault: string;
  scope: LocalGrantScope;
  minutes: number;
  reason: string;
  requester_grant: string;
  subject: string;
  state: RequestState;
  created_at: number;
  updated_at: number;
}

export interface GrantOpResults {
  mcp_grant_issue: IssuedGrant;
  mcp_grant_list: { grants: GrantSummary[] };
  mcp_grant_revoke: { revoked: string[] };
  mcp_request_list: { requests: RequestSummary[] };
  mcp_request_decide: RequestSummary;
  /** The tool's own result object (see mcp-tools.ts). */
  mcp_call: Record<string, unknown>;
}
