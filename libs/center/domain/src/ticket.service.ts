// Ticket mode (CTR-3, CTR-4): enrollment, MCP-grant and unlock tickets. A ticket carries
// no content; only its SHA-256 is stored.
import { planGrantIssue, type GrantScope, MAX_GRANT_MINUTES, RESERVED_MEMBER_NAME } from '@arslan/policy';
import { CenterError } from './center.errors';
import { issuerFor, requireRole } from './grant.service';
import {
  type AuditSink,
  type CenterStore,
  type Clock,
  MCP_TICKET_SCOPES,
  type McpTicketScope,
  type TicketKind,
  type TicketRecord,
} from './ports';
import { principalName, isDelegated, type ContentPrincipal } from './principal';
import { digestsEqual, newId, newToken, sha256Hex } from './tokens';

/** What each ticket permits. An unlock ticket never grants sudo or MCP elevation (CTR-4). */
export const TICKET_PERMITS: Record<TicketKind, readonly string[]> = {
  enrollment: ['device_enrollment'],
  mcp_grant: ['mcp_grant'],
  unlock: ['local_password_unlock'],
  device_pairing: ['hosted_device_pairing'],
};

/** The kinds `redeem` answers for; a pairing code is only usable on the scan path (SEAL-9). */
export type RedeemableKind = Exclude<TicketKind, 'device_pairing'>;

/** What the redeemer expects; a mismatch is refused before a single-use ticket is consumed. */
export interface RedeemExpectation {
  readonly kind?: RedeemableKind;
  readonly vault?: string;
}

export interface IssuedTicket {
  readonly id: string;
  readonly kind: TicketKind;
  readonly ticket: string;
  readonly vault: string;
  readonly member: string;
  readonly reusable: boolean;
  readonly permits: readonly string[];
  /** MCP-grant tickets: the widest scope and longest grant a daemon may issue (CTR-3); else null. */
  readonly scope: McpTicketScope | null;
  readonly grantMinutes: number | null;
  readonly expiresAt: string;
}

export interface RedeemedTicket {
  readonly id: string;
  readonly kind: RedeemableKind;
  readonly vault: string;
  readonly member: string;
  readonly permits: readonly string[];
  readonly sudo: false;
  readonly mcpElevation: false;
  readonly boundDevice: null;
  readonly scope: McpTicketScope | null;
  readonly grantMinutes: number | null;
  readonly expiresAt: string;
}

export class TicketService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
    private readonly clock: Clock,
  ) {}

  /** Registration is server administration: only the admin bearer issues enrollment tickets. */
  enrollment(vault: string, member: string, minutes: number): Promise<IssuedTicket> {
    return this.store.write([], async (repos) => {
      if (!(await repos.findMember(member))) throw new CenterError('not_found', `no member ${member}`);
      return this.insert(repos, 'enrollment', vault, member, minutes, RESERVED_MEMBER_NAME, null);
    });
  }

  /** CTR-4: reusable until expiry, bound to no device, permits only a local password unlock. */
  unlock(caller: ContentPrincipal, vault: string, minutes: number): Promise<IssuedTicket> {
    if (caller.kind !== 'member')
      throw new CenterError('forbidden', 'unlock tickets need a member credential');
    return this.store.write([], async (repos) => {
      await requireRole(repos, vault, caller.member.name);
      return this.insert(repos, 'unlock', vault, caller.member.name, minutes, caller.member.name, null);
    });
  }

  /**
   * An MCP-grant ticket: the bounds must be issuable under GRANT-1..7 right now. The ticket records
   * them (scope, `minutes` as the longest grant) so that the redeeming daemon issues no wider grant.
   * Only a daemon's local scopes: `allow_all` is the hosted surface alone (CTR-10).
   */
  mcpGrant(
    caller: ContentPrincipal,
    vault: string,
    body: { scope?: GrantScope; minutes: number },
  ): Promise<IssuedTicket> {
    if (isDelegated(caller))
      throw new CenterError('delegated_caller', 'a delegated grant cannot mint MCP tickets');
    const now = this.clock.now();
    return this.store.write([], async (repos) => {
      const issuer = await issuerFor(repos, vault, caller);
      const name = principalName(caller);
      const plan = planGrantIssue({
        issuer,
        vault,
        ...(body.scope ? { scope: body.scope } : {}),
        minutes: body.minutes,
        recipient: { name, role: await repos.roleOf(vault, name) },
        now,
        activeGrants: 0,
      });
      if (!plan.ok) throw new CenterError(`grant_${plan.error.code}`, plan.error.message);
      const scope = MCP_TICKET_SCOPES.find((s) => s === plan.plan.scope);
      if (scope === undefined)
        throw new CenterError(
          'bad_request',
          'an MCP-grant ticket carries read, read_write or read_write_delete',
        );
      return this.insert(repos, 'mcp_grant', vault, name, body.minutes, name, {
        scope,
        grantMinutes: body.minutes,
      });
    });
  }

  /**
   * The ticket is its own credential. Single-use kinds are consumed atomically, and only once the
   * ticket matches what the redeemer expects (a wrong kind or vault leaves it unspent).
   */
  redeem(ticket: string, expect: RedeemExpectation = {}): Promise<RedeemedTicket> {
    const now = this.clock.now();
    const hash = sha256Hex(ticket);
    return this.store.write([], async (repos) => {
      const t = await repos.findTicketByHash(hash);
      if (!t || !digestsEqual(t.tokenHash, hash) || t.kind === 'device_pairing')
        throw new CenterError('invalid_credential', 'unknown ticket');
      if (expect.kind !== undefined && t.kind !== expect.kind)
        throw new CenterError('ticket_wrong_kind', `this is not a ${expect.kind} ticket`);
      if (expect.vault !== undefined && t.vault !== expect.vault)
        throw new CenterError('ticket_wrong_vault', 'the ticket is for another vault');
      if (t.expiresAt <= now) throw new CenterError('ticket_expired', 'the ticket has expired');
      if (!t.reusable && !(await repos.markTicketUsed(t.id, now))) {
        throw new CenterError('ticket_used', 'this ticket was already used');
      }
      await this.audit.append({
        type: 'ticket.redeem',
        actor: t.member,
        vault: t.vault,
        ticket: t.id,
        kind: t.kind,
      });
      const kind: RedeemableKind = t.kind;
      return {
        id: t.id,
        kind,
        vault: t.vault,
        member: t.member,
        permits: TICKET_PERMITS[t.kind],
        sudo: false,
        mcpElevation: false,
        boundDevice: null,
        scope: t.kind === 'mcp_grant' ? t.scope : null,
        grantMinutes: t.kind === 'mcp_grant' ? t.grantMinutes : null,
        expiresAt: new Date(t.expiresAt).toISOString(),
      };
    });
  }

  private async insert(
    repos: Parameters<Parameters<CenterStore['write']>[1]>[0],
    kind: TicketKind,
    vault: string,
    member: string,
    minutes: number,
    actor: string,
    bounds: { scope: McpTicketScope; grantMinutes: number } | null,
  ): Promise<IssuedTicket> {
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_GRANT_MINUTES * 24) {
      throw new CenterError('bad_request', 'minutes must be 1..1440');
    }
    const now = this.clock.now();
    const ticket = newToken('ticket');
    const record: TicketRecord = {
      id: newId(),
      kind,
      tokenHash: sha256Hex(ticket),
      vault,
      member,
      reusable: kind === 'unlock',
      scope: bounds?.scope ?? null,
      grantMinutes: bounds?.grantMinutes ?? null,
      expiresAt: now + minutes * 60_000,
      usedAt: null,
      createdAt: now,
    };
    await repos.insertTicket(record);
    await this.audit.append({ type: `ticket.${kind}`, actor, vault, member, ticket: record.id });
    return {
      id: record.id,
      kind,
      ticket,
      vault,
      member,
      reusable: record.reusable,
      permits: TICKET_PERMITS[kind],
      scope: record.scope,
      grantMinutes: record.grantMinutes,
      expiresAt: new Date(record.expiresAt).toISOString(),
    };
  }
}
