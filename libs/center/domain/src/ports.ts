// Ports of the Center domain. Adapters: libs/center/data-access (Prisma, audit file).
import { type GrantScope, type Role } from '@arslan/policy';

export interface MemberRecord {
  readonly name: string;
  readonly credentialHash: string;
}

export interface GrantRecord {
  readonly id: string;
  readonly tokenHash: string;
  readonly vault: string;
  readonly scope: GrantScope;
  readonly issuer: string;
  readonly subject: string;
  readonly depth: number;
  readonly parentId: string | null;
  /** ms since the Unix epoch */
  readonly expiresAt: number;
  readonly createdAt: number;
}

export const REQUEST_STATUSES = ['pending', 'approved', 'denied', 'cancelled', 'expired', 'claimed'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export interface RequestRecord {
  readonly id: string;
  readonly vault: string;
  readonly requester: string;
  /** SHA-256 of the credential (member credential or grant token) that created the request. */
  readonly credentialHash: string;
  readonly scope: GrantScope;
  readonly minutes: number;
  readonly status: RequestStatus;
  readonly approver: string | null;
  readonly grantId: string | null;
  readonly createdAt: number;
  readonly transitionedAt: number;
}

/** `device_pairing`: SEAL-9 pairing codes; never redeemable at /v1/tickets/redeem. */
export const TICKET_KINDS = ['enrollment', 'mcp_grant', 'unlock', 'device_pairing'] as const;
export type TicketKind = (typeof TICKET_KINDS)[number];

/** The scopes an MCP-grant ticket may carry: a daemon's local grant scopes (never `allow_all`, CTR-10). */
export const MCP_TICKET_SCOPES = ['read', 'read_write', 'read_write_delete'] as const;
export type McpTicketScope = (typeof MCP_TICKET_SCOPES)[number];

export interface TicketRecord {
  readonly id: string;
  readonly kind: TicketKind;
  readonly tokenHash: string;
  readonly vault: string;
  readonly member: string;
  readonly reusable: boolean;
  /** MCP-grant tickets only (CTR-3): the widest local scope a daemon may issue; null otherwise. */
  readonly scope: McpTicketScope | null;
  /** MCP-grant tickets only: the longest grant (whole minutes, GRANT-5); null otherwise. */
  readonly grantMinutes: number | null;
  readonly expiresAt: number;
  readonly usedAt: number | null;
  readonly createdAt: number;
}

export interface RosterEntry {
  readonly name: string;
  readonly role: Role;
}

/** Saas mode: a hosted card row; `data` is server-encrypted (StoreCipher). */
export interface CardRecord {
  readonly id: string;
  readonly vault: string;
  readonly data: string;
  readonly e2e: boolean;
  readonly revision: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A paired device: public keys only (SEAL-3). Keys are base64url, the id is the fingerprint. */
export interface DeviceRecord {
  readonly vault: string;
  readonly id: string;
  readonly member: string;
  readonly ed25519: string;
  readonly x25519: string;
  readonly authorizedBy: string;
  readonly signature: string;
  readonly createdAt: number;
}

export interface SealedEnvelopeRecord {
  readonly vault: string;
  readonly cardId: string;
  readonly deviceId: string;
  readonly revision: number;
  /** The envelope wire JSON, exactly as uploaded. */
  readonly wire: string;
  readonly createdAt: number;
}

/** Everything the domain reads or writes, inside one transaction (or none, for `read`). */
export interface CenterRepos {
  findCard(vault: string, id: string): Promise<CardRecord | null>;
  listCards(vault: string): Promise<CardRecord[]>;
  upsertCard(card: CardRecord): Promise<void>;
  deleteCard(vault: string, id: string): Promise<boolean>;
  findDevice(vault: string, id: string): Promise<DeviceRecord | null>;
  listDevices(vault: string): Promise<DeviceRecord[]>;
  insertDevice(device: DeviceRecord): Promise<void>;
  deleteDevice(vault: string, id: string): Promise<boolean>;
  /** Replaces every envelope of the card with `envelopes`. */
  replaceEnvelopes(vault: string, cardId: string, envelopes: readonly SealedEnvelopeRecord[]): Promise<void>;
  findEnvelope(vault: string, cardId: string, deviceId: string): Promise<SealedEnvelopeRecord | null>;
  deleteEnvelopesOfDevice(vault: string, deviceId: string): Promise<number>;
  deleteEnvelopesOfCard(vault: string, cardId: string): Promise<number>;

  findMember(name: string): Promise<MemberRecord | null>;
  findMemberByCredentialHash(hash: string): Promise<MemberRecord | null>;
  insertMember(member: MemberRecord): Promise<void>;
  deleteMember(name: string): Promise<void>;
  roleOf(vault: string, name: string): Promise<Role | null>;
  roster(vault: string): Promise<RosterEntry[]>;
  vaultsOf(name: string): Promise<string[]>;
  setRole(vault: string, name: string, role: Role): Promise<void>;
  removeMembership(vault: string, name: string): Promise<boolean>;

  findGrant(id: string): Promise<GrantRecord | null>;
  findGrantByTokenHash(hash: string): Promise<GrantRecord | null>;
  countActiveGrants(now: number): Promise<number>;
  grantsOfVault(vault: string): Promise<GrantRecord[]>;
  insertGrant(grant: GrantRecord): Promise<void>;
  deleteGrants(ids: readonly string[]): Promise<number>;
  deleteExpiredGrants(now: number): Promise<number>;
  deleteOrphanGrants(): Promise<number>;

  insertRequest(request: RequestRecord): Promise<void>;
  findRequest(id: string): Promise<RequestRecord | null>;
  listRequests(vault: string): Promise<RequestRecord[]>;
  countPending(vault: string, requester?: string): Promise<number>;
  /** Conditional update: only when the row is still in `from`; true when it changed. */
  transitionRequest(
    id: string,
    from: RequestStatus,
    to: RequestStatus,
    patch: { approver?: string; grantId?: string; at: number },
  ): Promise<boolean>;
  expirePending(createdBefore: number, now: number): Promise<number>;
  purgeRequests(transitionedBefore: number): Promise<number>;

  insertTicket(ticket: TicketRecord): Promise<void>;
  findTicketByHash(hash: string): Promise<TicketRecord | null>;
  /** Conditional: only an unused ticket is marked; true when it changed. */
  markTicketUsed(id: string, at: number): Promise<boolean>;
  deleteExpiredTickets(now: number): Promise<number>;
}

export interface CenterStore {
  readonly provider: 'sqlite' | 'postgresql';
  /** Reads outside a transaction. */
  read<T>(fn: (repos: CenterRepos) => Promise<T>): Promise<T>;
  /**
   * One transaction. `locks` are serialisation keys taken first (sorted), so limits
   * checked inside hold under concurrency on every database.
   */
  write<T>(locks: readonly string[], fn: (repos: CenterRepos) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface AuditEvent {
  readonly type: string;
  readonly actor: string;
  readonly [field: string]: string | number | boolean | null;
}

/** AUD-3: appends one entry durably or throws (then the change must be refused). */
export interface AuditSink {
  append(event: AuditEvent): Promise<void>;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
