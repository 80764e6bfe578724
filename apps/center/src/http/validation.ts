// Edge validation: strict zod schemas (unknown fields and wrong types are 400 bad_request).
import { z } from 'zod';
import { CenterError, MCP_TICKET_SCOPES } from '@arslan/center-domain';
import { GRANT_SCOPES, ROLES } from '@arslan/policy';

export const VaultId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'invalid vault id');
export const MemberName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\u0000-\u001f\u007f-\u009f]+$/, 'control characters are not allowed');
export const Scope = z.enum(GRANT_SCOPES);
export const Minutes = z.number().int();
export const Id = z.string().min(1).max(64);

export const IssueGrantBody = z.strictObject({ to: MemberName, scope: Scope.optional(), minutes: Minutes });
export const CreateRequestBody = z.strictObject({
  kind: z.literal('scope').optional(),
  scope: Scope.optional(),
  minutes: Minutes,
});
export const CreateMemberBody = z.strictObject({ name: MemberName });
export const SetRoleBody = z.strictObject({ role: z.enum(ROLES) });
export const EnrollmentBody = z.strictObject({ vault: VaultId, member: MemberName, minutes: Minutes });
export const UnlockTicketBody = z.strictObject({ minutes: Minutes });
/** CTR-3: `minutes` is the ticket's life and the longest grant it allows; a local scope only (CTR-10). */
export const McpTicketBody = z.strictObject({
  scope: z.enum(MCP_TICKET_SCOPES).optional(),
  minutes: Minutes,
});
/** `kind` / `vault`: what the redeemer expects; a mismatch is refused and the ticket stays unspent. */
export const RedeemBody = z.strictObject({
  ticket: z.string().min(1).max(256),
  kind: z.enum(['enrollment', 'mcp_grant', 'unlock']).optional(),
  vault: VaultId.optional(),
});
export const EmptyBody = z.union([z.undefined(), z.null(), z.strictObject({})]);
export const RpcBody = z.strictObject({
  vault: VaultId,
  op: z.string().min(1).max(64),
  params: z.record(z.string(), z.unknown()).optional(),
});

const B64Key = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 bytes of base64url');
const CardId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'invalid card id');
/** Strict params per saas RPC operation (CTR-7). */
export const RPC_PARAMS = {
  'card.put': z.strictObject({
    id: CardId.optional(),
    title: z.string().max(1024),
    body: z
      .string()
      .max(256 * 1024)
      .optional(),
    e2e: z.boolean().optional(),
    secret: z
      .string()
      .max(64 * 1024)
      .optional(),
    envelopes: z
      .array(z.strictObject({ wire: z.unknown() }))
      .max(64)
      .optional(),
  }),
  'card.get': z.strictObject({
    id: CardId,
    device: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  }),
  'card.list': z.strictObject({}),
  'card.delete': z.strictObject({ id: CardId }),
  'card.set_e2e': z.strictObject({ id: CardId, e2e: z.boolean() }),
  'device.add': z.strictObject({
    ed25519: B64Key,
    x25519: B64Key,
    authorizedBy: z.union([z.literal('self'), z.string().regex(/^[0-9a-f]{64}$/)]),
    signature: z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'must be 64 bytes of base64url'),
  }),
  'device.list': z.strictObject({}),
  'device.revoke': z.strictObject({ id: z.string().regex(/^[0-9a-f]{64}$/) }),
} as const;
export type RpcOp = keyof typeof RPC_PARAMS;

/** SEAL-9: the new device's public keys, for a pairing code. */
export const PairingOfferBody = z.strictObject({ ed25519: B64Key, x25519: B64Key });
/** SEAL-9: what the scanning device submits: the QR text and its own authorisation. */
export const PairingScanBody = z.strictObject({
  payload: z.string().min(1).max(1024),
  authorizedBy: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'must be 64 bytes of base64url'),
});

export function isRpcOp(op: string): op is RpcOp {
  return Object.prototype.hasOwnProperty.call(RPC_PARAMS, op);
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new CenterError(
      'bad_request',
      `invalid ${where}`,
      result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  return result.data;
}

/** REQ-6: the Center accepts scope requests only. */
export function rejectRoleRequest(body: unknown): void {
  if (typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'role') {
    throw new CenterError('role_request_unsupported', 'the Center accepts scope requests only (REQ-6)');
  }
}
