// Ticket mode (CTR-3, CTR-4): enrollment, MCP-grant and unlock tickets. A ticket carries
// no content; only its SHA-256 is stored.
import { planGrantIssue, type GrantScope, MAX_GRANT_MINUTES, RESERVED_MEMBER_NAME } from '@arslan/policy';
import { CenterError } from './center.errors';
import { issuerFor, requireRole } from './grant.service';
import { type AuditSink, type CenterStore, type Clock, type TicketKind, type TicketRecord } from './ports';
import { principalName, isDelegated, type ContentPrincipal } from './principal';
import { digestsEqual, newId, newToken, sha256Hex } from './tokens';

/** What each ticket permits. An unlock ticket never grants sudo or MCP elevation (CTR-4). */
export const TICKET_PERMITS: Record<TicketKind, readonly string[]> = {
  enrollment: ['device_enrollment'],
  mcp_grant: ['mcp_grant'],
  unlock: ['local_password_unlock'],
};

export interface IssuedTicket {
  readonly id: string;
  readonly kind: TicketKind;
  readonly ticket: string;
  readonly vault: string;
  readonly member: string;
  readonly reusable: boolean;
  readonly permits: readonly string[];
  readonly expiresAt: string;
}

export interface RedeemedTicket {
  readonly id: string;
  readonly kind: TicketKind;
  readonly vault: string;
  readonly member: string;
  readonly permits: readonly string[];
  readonly sudo: false;
  readonly mcpElevation: false;
  readonly boundDevice: null;
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
      return this.insert(repos, 'enrollment', vault, member, minutes, RESERVED_MEMBER_NAME);
    });
  }

  /** CTR-4: reusable until expiry, bound to no device, permits only a local password unlock. */
  unlock(caller: ContentPrincipal, vault: string, minutes: number): Promise<IssuedTicket> {
    if (caller.kind !== 'member')
      throw new CenterError('forbidden', 'unlock tickets need a member credential');
    return this.store.write([], async (repos) => {
      await requireRole(repos, vault, caller.member.name);
      return this.insert(repos, 'unlock', vault, caller.member.name, minutes, caller.member.name);
    });
  }

  /** An MCP-grant ticket: the bounds must be issuable under GRANT-1..7 right now. */
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
      return this.insert(repos, 'mcp_grant', vault, name, body.minutes, name);
    });
  }

  /** The ticket is its own credential. Single-use kinds are consumed atomically. */
  redeem(ticket: string): Promise<RedeemedTicket> {
    const now = this.clock.now();
    const hash = sha256Hex(ticket);
    return this.store.write([], async (repos) => {
      const t = await repos.findTicketByHash(hash);
      if (!t || !digestsEqual(t.tokenHash, hash))
        throw new CenterError('invalid_credential', 'unknown ticket');
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
      return {
        id: t.id,
        kind: t.kind,
        vault: t.vault,
        member: t.member,
        permits: TICKET_PERMITS[t.kind],
        sudo: false,
        mcpElevation: false,
        boundDevice: null,
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
      expiresAt: new Date(record.expiresAt).toISOString(),
    };
  }
}
