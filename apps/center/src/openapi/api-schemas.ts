// Response shapes of the Center's HTTP API, for the OpenAPI document (the request shapes are the
// edge validators in http/validation.ts).
import { z } from 'zod';
import { GRANT_SCOPES, ROLES } from '@arslan/policy';

const Scope = z.enum(GRANT_SCOPES);
const Iso = z.string().describe('ISO 8601 time');

export const ErrorBody = z.strictObject({
  error: z.strictObject({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
export const PublicGrant = z.strictObject({
  id: z.string(),
  vault: z.string(),
  scope: Scope,
  issuer: z.string(),
  subject: z.string(),
  depth: z.number().int(),
  parentId: z.string().nullable(),
  expiresAt: Iso,
});
export const IssuedGrant = z.strictObject({
  grant: PublicGrant,
  token: z.string().describe('shown once (GRANT-10)'),
});
export const GrantList = z.strictObject({ grants: z.array(PublicGrant) });
export const Revoked = z.strictObject({ revoked: z.array(z.string()) });
export const PublicRequest = z.strictObject({
  id: z.string(),
  vault: z.string(),
  kind: z.literal('scope'),
  requester: z.string(),
  scope: Scope,
  minutes: z.number().int(),
  status: z.enum(['pending', 'approved', 'denied', 'cancelled', 'expired', 'claimed']),
  approver: z.string().nullable(),
  createdAt: Iso,
  transitionedAt: Iso,
});
export const RequestList = z.strictObject({ requests: z.array(PublicRequest) });
const TicketKind = z.enum(['enrollment', 'mcp_grant', 'unlock']);
const McpScope = z.enum(['read', 'read_write', 'read_write_delete']);
export const IssuedTicket = z.strictObject({
  id: z.string(),
  kind: TicketKind,
  ticket: z.string().describe('shown once'),
  vault: z.string(),
  member: z.string(),
  reusable: z.boolean(),
  permits: z.array(z.string()),
  scope: McpScope.nullable().describe('MCP-grant tickets: the widest scope a grant may carry (CTR-3)'),
  grantMinutes: z.number().int().nullable().describe('MCP-grant tickets: the longest grant in minutes'),
  expiresAt: Iso,
});
export const RedeemedTicket = z.strictObject({
  id: z.string(),
  kind: TicketKind,
  vault: z.string(),
  member: z.string(),
  permits: z.array(z.string()),
  sudo: z.literal(false),
  mcpElevation: z.literal(false),
  boundDevice: z.null(),
  scope: McpScope.nullable().describe('MCP-grant tickets: the widest scope a grant may carry (CTR-3)'),
  grantMinutes: z.number().int().nullable().describe('MCP-grant tickets: the longest grant in minutes'),
  expiresAt: Iso,
});
export const Whoami = z.strictObject({
  kind: z.enum(['member', 'grant']),
  name: z.string(),
  depth: z.number().int(),
  scope: Scope.optional(),
  grant: z.string().optional(),
});
export const CreatedMember = z.strictObject({
  name: z.string(),
  credential: z.string().describe('shown once'),
});
export const Invalidated = z.strictObject({ invalidated: z.number().int() });
export const Roster = z.strictObject({
  members: z.array(z.strictObject({ name: z.string(), role: z.enum(ROLES) })),
});
export const LockState = z.strictObject({ locked: z.boolean() });
export const Status = z.strictObject({
  mode: z.enum(['ticket', 'saas']),
  locked: z.boolean(),
  database: z.string(),
});
export const Sweep = z.strictObject({
  grantsPurged: z.number().int(),
  requestsExpired: z.number().int(),
  requestsPurged: z.number().int(),
  ticketsPurged: z.number().int(),
});
export const Livez = z.strictObject({ status: z.literal('ok') });
export const Readyz = z.strictObject({ status: z.literal('ok'), database: z.string() });
export const NoBody = z.strictObject({});
export const PairingOffer = z.strictObject({
  payload: z.string().describe('the QR text (arslan-pair:1:…); carries a single-use code'),
  fingerprint: z.string().describe('the new device, to compare on the scanning device'),
  expiresAt: Iso,
});
export const PairedDevice = z.strictObject({ id: z.string(), member: z.string() });
export const RpcResult = z.unknown().describe('depends on op; see docs/center.md');
export const MetricsText = z.string().describe('Prometheus text format');
