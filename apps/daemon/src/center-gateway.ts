// The daemon's side of the Center (CTR-1, CTR-3/4, CTR-7/8) behind the vault-ipc CenterSeam.
// - saas: content ops go to the Center's `/v1/rpc` through the typed client; ops without a Center
//   equivalent fail here with `unsupported_operation`; nothing ever falls back to the local store.
// - ticket: creating the local store (init/restore) needs a (consumed) enrollment ticket, unlock a
//   valid unlock ticket, a local MCP grant a (consumed) MCP-grant ticket within its scope and minutes.
// Every request has a deadline and refuses redirects (center-client); the credential and tickets
// never appear in messages or logs.
import { randomBytes } from 'node:crypto';
import { CenterApiError, CenterClient } from '@arslan/center-client';
import { IpcError, type VaultOpArgs, type VaultRequest } from '@arslan/protocol';
import type { CenterSeam, McpTicketBounds } from '@arslan/vault-ipc';
import { z } from 'zod';
import type { ResolvedCenter } from './daemon-centers';

/** The redemption answer, checked here too (the daemon does not take the Center's word for shape). */
const redeemedTicket = z.object({
  kind: z.string().max(64),
  vault: z.string().max(256),
  permits: z.array(z.string()),
  sudo: z.boolean(),
  mcpElevation: z.boolean(),
  boundDevice: z.unknown(),
  scope: z.enum(['read', 'read_write', 'read_write_delete']).nullable().optional(),
  grantMinutes: z.number().int().min(1).max(60).nullable().optional(),
  expiresAt: z.string(),
});
type RedeemableKind = 'enrollment' | 'mcp_grant' | 'unlock';
type Redeemed = z.infer<typeof redeemedTicket>;

const cardView = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  e2e: z.boolean(),
  revision: z.number().int(),
});
const cardList = z.object({
  cards: z.array(
    z.object({ id: z.string(), title: z.string(), e2e: z.boolean(), revision: z.number().int() }),
  ),
});
const deleted = z.object({ deleted: z.unknown() });

/** Center error → IPC error; never echoes the request (it may carry a ticket). */
export function toCenterIpcError(center: ResolvedCenter, error: unknown): IpcError {
  if (error instanceof IpcError) return error;
  if (error instanceof CenterApiError) {
    const detail = `${error.code}: ${error.message.replace(/^\d+ [a-z_]+: /, '').slice(0, 200)}`;
    if (error.code === 'unsupported_operation')
      return new IpcError('unsupported_operation', `center ${center.name}: ${detail} (CTR-8)`);
    if (error.code === 'not_found') return new IpcError('not_found', `center ${center.name}: ${detail}`);
    // The ticket is fine but not for this: refused before it was spent (CTR-1, CTR-3/4).
    if (error.code === 'ticket_wrong_kind' || error.code === 'ticket_wrong_vault')
      return new IpcError('forbidden', `center ${center.name}: ${detail}`);
    if (error.status >= 500) return new IpcError('center_unavailable', `center ${center.name}: ${detail}`);
    return new IpcError('center_refused', `center ${center.name}: ${detail}`);
  }
  if (error instanceof z.ZodError || error instanceof SyntaxError)
    return new IpcError(
      'center_unavailable',
      `center ${center.name} answered in an unexpected shape; nothing was done locally`,
    );
  const name = (error as { name?: unknown } | null)?.name;
  const why =
    name === 'TimeoutError' || name === 'AbortError'
      ? `no answer within ${center.timeoutMs} ms`
      : 'unreachable';
  return new IpcError('center_unavailable', `center ${center.name} is ${why}; nothing was done locally`);
}

function unsupported(center: ResolvedCenter, op: string, why = 'has no Center equivalent'): IpcError {
  return new IpcError(
    'unsupported_operation',
    `${op} ${why} on center ${center.name}; it is not run against the local store either (CTR-8)`,
  );
}

/** CTR-7/CTR-8: the IPC content ops that map onto the saas Center's RPC operations. */
export class SaasForwarder {
  private readonly client: CenterClient;

  constructor(private readonly center: ResolvedCenter) {
    if (center.credential === null) throw new Error(`center ${center.name}: saas mode needs a credential`);
    this.client = new CenterClient({
      baseUrl: center.url,
      token: center.credential,
      timeoutMs: center.timeoutMs,
    });
  }

  async forward(request: VaultRequest): Promise<unknown> {
    try {
      switch (request.op) {
        case 'write':
          return await this.write(request.args);
        case 'read':
          return await this.read(request.args);
        case 'list':
          return await this.list(request.args);
        case 'delete':
          return await this.remove(request.args);
        default:
          throw unsupported(this.center, request.op);
      }
    } catch (error) {
      throw toCenterIpcError(this.center, error);
    }
  }

  private vaultOf(args: { vault?: string }): string {
    return args.vault ?? this.center.vault;
  }

  private rpc(vault: string, op: string, params: Record<string, unknown>): Promise<unknown> {
    return this.client.call('rpc', { body: { vault, op, params } });
  }

  private async write(args: VaultOpArgs<'write'>): Promise<unknown> {
    // Private notes and credentials would reach the operator in readable form (CTR-6): refused.
    if (args.kind !== undefined && args.kind !== 'memory')
      throw unsupported(this.center, `write of kind ${args.kind}`, 'is not hosted');
    const vault = this.vaultOf(args);
    const id = args.asset_id ?? randomBytes(16).toString('hex');
    const card = cardView.parse(
      await this.rpc(vault, 'card.put', { id, title: args.title, body: args.body }),
    );
    return { vault, asset_id: card.id, revision_id: String(card.revision), center: this.center.name };
  }

  private async read(args: VaultOpArgs<'read'>): Promise<unknown> {
    if (args.revision_id !== undefined) throw unsupported(this.center, 'read of an older revision');
    const vault = this.vaultOf(args);
    const card = cardView.parse(await this.rpc(vault, 'card.get', { id: args.asset_id }));
    return {
      vault,
      asset_id: card.id,
      revision_id: String(card.revision),
      title: card.title,
      body: card.body,
      kind: 'memory',
      state: 'live',
      heads: [String(card.revision)],
      created_at: 0,
      center: this.center.name,
    };
  }

  private async list(args: VaultOpArgs<'list'>): Promise<unknown> {
    const vault = this.vaultOf(args);
    const { cards } = cardList.parse(await this.rpc(vault, 'card.list', {}));
    return {
      vault,
      assets: cards.map((c) => ({
        asset_id: c.id,
        title: c.title,
        kind: 'memory',
        state: 'live',
        heads: [String(c.revision)],
        updated_at: 0,
      })),
      center: this.center.name,
    };
  }

  private async remove(args: VaultOpArgs<'delete'>): Promise<unknown> {
    const vault = this.vaultOf(args);
    deleted.parse(await this.rpc(vault, 'card.delete', { id: args.asset_id }));
    return { vault, asset_id: args.asset_id, revision_id: '', center: this.center.name };
  }
}

/** CTR-3/CTR-4: ticket redemption at the ticket-mode Center. */
export class TicketRedeemer {
  private readonly client: CenterClient;

  constructor(
    private readonly center: ResolvedCenter,
    private readonly now: () => number = Date.now,
  ) {
    this.client = new CenterClient({ baseUrl: center.url, timeoutMs: center.timeoutMs });
  }

  /**
   * The expected kind and this device's vault go with the ticket: the Center refuses a mismatch
   * (`ticket_wrong_kind`, `ticket_wrong_vault`) before it spends a single-use ticket.
   */
  private async redeem(ticket: string | undefined, what: string, kind: RedeemableKind): Promise<Redeemed> {
    if (ticket === undefined)
      throw new IpcError(
        'center_managed',
        `center ${this.center.name} is configured: ${what} needs a Center ticket`,
      );
    try {
      const body = { ticket, kind, vault: this.center.vault };
      return redeemedTicket.parse(await this.client.call('redeemTicket', { body }));
    } catch (error) {
      throw toCenterIpcError(this.center, error);
    }
  }

  private checkCommon(t: Redeemed): void {
    if (t.vault !== this.center.vault)
      throw new IpcError(
        'forbidden',
        `the ticket is for another vault than this device's (center ${this.center.name})`,
      );
    const expiresAt = Date.parse(t.expiresAt);
    if (!Number.isFinite(expiresAt) || expiresAt <= this.now())
      throw new IpcError('forbidden', 'the ticket has expired');
    // Belt and braces: whatever a Center answers, a ticket never carries elevation (CTR-4).
    if (t.sudo !== false || t.mcpElevation !== false || t.boundDevice !== null)
      throw new IpcError('forbidden', 'the Center answered with a ticket this daemon does not accept');
  }

  /** CTR-4: reusable until expiry, bound to no device; permits the local password unlock only. */
  async checkUnlockTicket(ticket: string | undefined): Promise<void> {
    const t = await this.redeem(ticket, 'unlock', 'unlock');
    if (t.kind !== 'unlock' || !t.permits.includes('local_password_unlock'))
      throw new IpcError('forbidden', `a ${t.kind} ticket does not permit an unlock (CTR-4)`);
    this.checkCommon(t);
  }

  /** CTR-1/CTR-3: a single-use enrollment ticket for this device's vault lets it create its store. */
  async redeemEnrollmentTicket(ticket: string): Promise<void> {
    const t = await this.redeem(ticket, 'creating the store', 'enrollment');
    if (t.kind !== 'enrollment' || !t.permits.includes('device_enrollment'))
      throw new IpcError('forbidden', `a ${t.kind} ticket does not enroll a device (CTR-1, CTR-3)`);
    this.checkCommon(t);
  }

  /**
   * CTR-3: one single-use MCP-grant ticket for one local grant, within the scope and minutes the
   * Center recorded, and never past the ticket's expiry. An answer without bounds (an older Center)
   * gets the safe reading: `read` only.
   */
  async redeemMcpGrantTicket(ticket: string | undefined): Promise<McpTicketBounds> {
    const t = await this.redeem(ticket, 'an MCP grant', 'mcp_grant');
    if (t.kind !== 'mcp_grant' || !t.permits.includes('mcp_grant'))
      throw new IpcError('forbidden', `a ${t.kind} ticket does not permit an MCP grant (CTR-3, CTR-4)`);
    this.checkCommon(t);
    return {
      maxScope: t.scope ?? 'read',
      maxMinutes: t.grantMinutes ?? 60,
      notAfter: Date.parse(t.expiresAt),
    };
  }
}

/** The seam for the configured Centers, or undefined for a standalone daemon. */
export function centerSeamFor(centers: readonly ResolvedCenter[]): CenterSeam | undefined {
  if (centers.length === 0) return undefined;
  const saas = centers.filter((c) => c.mode === 'saas');
  const ticket = centers.find((c) => c.mode === 'ticket');
  const seam: CenterSeam = {};
  // CTR-7: exactly one saas Center (the config schema refuses more).
  if (saas.length === 1) {
    const forwarder = new SaasForwarder(saas[0]!);
    seam.forward = (request) => forwarder.forward(request);
  }
  if (ticket) {
    const redeemer = new TicketRedeemer(ticket);
    seam.checkUnlockTicket = (t) => redeemer.checkUnlockTicket(t);
    seam.redeemEnrollmentTicket = (t) => redeemer.redeemEnrollmentTicket(t);
    seam.redeemMcpGrantTicket = (t) => redeemer.redeemMcpGrantTicket(t);
  }
  return seam;
}
