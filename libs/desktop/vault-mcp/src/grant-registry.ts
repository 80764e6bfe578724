// The daemon's grant table (GRANT-*, REQ-*, MCP-9): an in-memory view replayed from the sealed
// grant log at unlock, dropped at lock (grants are suspended, never revoked: GRANT-12). Every
// change is persisted first and applied to memory only after the commit returned, so a failed
// commit changes nothing. Tokens exist only in the issue/claim response (GRANT-10).
import { randomBytes } from 'node:crypto';
import type { GrantVaultContext, JsonObject, JsonValue } from '@arslan/desktop-vault';
import {
  type GrantError,
  type GrantIssuer,
  MAX_ACTIVE_GRANTS,
  descendantsOf,
  planGrantIssue,
  purgeExpired,
  scopeAtMost,
} from '@arslan/policy';
import { IpcError, type LocalGrantScope, type RequestState } from '@arslan/protocol';
import { type GrantEntry, type GrantLogEntry, type RequestEntry, grantLogEntrySchema } from './grant-log';
import { digestsEqual, newGrantId, newGrantToken, tokenDigest } from './grant-token';

/** REQ-9. */
export const MAX_PENDING_PER_REQUESTER = 20;
export const MAX_PENDING_PER_VAULT = 200;
/** REQ-10 / REQ-11. */
export const REQUEST_EXPIRY_MS = 7 * 24 * 3_600_000;
export const REQUEST_PURGE_MS = 30 * 24 * 3_600_000;
/** Compact the log when it holds this many more rows than live entries. */
const COMPACT_SLACK_ROWS = 1024;

export interface GrantLogPort {
  readGrantLog(): JsonValue[];
  appendGrantLog(entries: readonly JsonObject[], firstSeq: number): void;
  rewriteGrantLog(entries: readonly JsonObject[]): void;
}

export interface GrantRecord {
  readonly id: string;
  readonly parentId: string | null;
  /** The vault id (GrantNode.vault): a vault re-created under the same name is another vault. */
  readonly vault: string;
  readonly vaultName: string;
  readonly scope: LocalGrantScope;
  readonly issuer: string;
  readonly subject: string;
  readonly depth: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly digest: Buffer;
  readonly requestId: string | null;
}

export interface RequestRecord {
  readonly entry: RequestEntry;
  readonly state: RequestState;
  readonly updatedAt: number;
  readonly approved?: { scope: LocalGrantScope; minutes: number };
}

export interface GrantRegistryOptions {
  now?: () => number;
  random?: (n: number) => Uint8Array;
}

export interface IssueInput {
  context: GrantVaultContext;
  scope: LocalGrantScope;
  minutes: number;
  /** Re-delegation through this grant (GRANT-4, GRANT-6); absent: the local member issues. */
  parent?: GrantRecord;
}

const GRANT_ERROR_TO_IPC: Record<string, 'bad_request' | 'forbidden' | 'limit_reached'> = {
  malformed: 'bad_request',
  bad_lifetime: 'bad_request',
  too_many_grants: 'limit_reached',
};

function fromGrantError(error: GrantError): IpcError {
  return new IpcError(GRANT_ERROR_TO_IPC[error.code] ?? 'forbidden', `${error.message} (${error.code})`);
}

function recordOf(entry: GrantEntry): GrantRecord {
  return {
    id: entry.id,
    parentId: entry.parent,
    vault: entry.vault_id,
    vaultName: entry.vault,
    scope: entry.scope,
    issuer: entry.issuer,
    subject: entry.subject,
    depth: entry.depth,
    createdAt: entry.created_at,
    expiresAt: entry.expires_at,
    digest: Buffer.from(entry.digest, 'hex'),
    requestId: entry.request,
  };
}

function entryOf(record: GrantRecord): GrantEntry {
  return {
    t: 'grant',
    id: record.id,
    digest: record.digest.toString('hex'),
    vault_id: record.vault,
    vault: record.vaultName,
    scope: record.scope,
    issuer: record.issuer,
    subject: record.subject,
    parent: record.parentId,
    depth: record.depth,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    request: record.requestId,
  };
}

class Tables {
  readonly grants = new Map<string, GrantRecord>();
  readonly byDigest = new Map<string, GrantRecord>();
  readonly requests = new Map<string, RequestRecord>();

  apply(entry: GrantLogEntry): void {
    switch (entry.t) {
      case 'grant': {
        const record = recordOf(entry);
        this.grants.set(record.id, record);
        this.byDigest.set(entry.digest, record);
        return;
      }
      case 'revoke':
        for (const id of entry.ids) this.dropGrant(id);
        return;
      case 'request':
        this.requests.set(entry.id, { entry, state: 'pending', updatedAt: entry.created_at });
        return;
      case 'request_state': {
        const current = this.requests.get(entry.id);
        if (!current) throw new IpcError('corrupt', 'a request state names no request');
        this.requests.set(entry.id, {
          entry: current.entry,
          state: entry.state,
          updatedAt: entry.at,
          ...(entry.scope !== undefined && entry.minutes !== undefined
            ? { approved: { scope: entry.scope, minutes: entry.minutes } }
            : current.approved
              ? { approved: current.approved }
              : {}),
        });
        return;
      }
    }
  }

  dropGrant(id: string): void {
    const record = this.grants.get(id);
    if (!record) return;
    this.grants.delete(id);
    this.byDigest.delete(record.digest.toString('hex'));
  }

  /** The log that rebuilds exactly these tables. */
  entries(): GrantLogEntry[] {
    const out: GrantLogEntry[] = [...this.grants.values()].map(entryOf);
    for (const request of this.requests.values()) {
      out.push(request.entry);
      if (request.state !== 'pending')
        out.push({
          t: 'request_state',
          id: request.entry.id,
          state: request.state,
          at: request.updatedAt,
          ...(request.approved ?? {}),
        });
    }
    return out;
  }
}

export class GrantRegistry {
  private tables = new Tables();
  private rows = 0;
  private generation: number | null = null;
  private readonly now: () => number;
  private readonly random: (n: number) => Uint8Array;

  constructor(
    private readonly port: GrantLogPort,
    options: GrantRegistryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? randomBytes;
  }

  /** The unlock generation the table was loaded for; null when not loaded (locked). */
  loadedGeneration(): number | null {
    return this.generation;
  }

  /** GRANT-12/MCP-9: replays the sealed log, then purges what expired meanwhile (GRANT-13). */
  load(generation: number): void {
    this.clear();
    const tables = new Tables();
    const raw = this.port.readGrantLog();
    for (const value of raw) {
      const parsed = grantLogEntrySchema.safeParse(value);
      if (!parsed.success) throw new IpcError('corrupt', 'a grant log entry is malformed');
      tables.apply(parsed.data);
    }
    this.tables = tables;
    this.rows = raw.length;
    this.generation = generation;
    this.sweep();
  }

  /** MCP-9: lock forgets every grant in memory; the sealed log keeps them. */
  clear(): void {
    this.tables = new Tables();
    this.rows = 0;
    this.generation = null;
  }

  activeCount(): number {
    return this.tables.grants.size;
  }

  /** GRANT-11: digest lookup, then a constant-time comparison; never echoes the token. */
  authenticate(token: string): GrantRecord {
    const digest = tokenDigest(token);
    const record = this.tables.byDigest.get(digest.toString('hex'));
    if (!record || !digestsEqual(record.digest, digest))
      throw new IpcError('unauthorized', 'the grant is unknown, expired or revoked');
    if (this.now() >= record.expiresAt) throw new IpcError('unauthorized', 'the grant has expired');
    return record;
  }

  get(id: string): GrantRecord | undefined {
    return this.tables.grants.get(id);
  }

  issue(input: IssueInput, after: GrantLogEntry[] = []): { record: GrantRecord; token: string } {
    if (this.tables.grants.size >= MAX_ACTIVE_GRANTS) this.sweep();
    const { context, parent } = input;
    const roles = new Map(context.members.map((m) => [m.name, m.role]));
    let issuer: GrantIssuer;
    let recipient: string;
    if (parent) {
      const subjectRole = roles.get(parent.subject);
      if (!subjectRole)
        throw new IpcError('forbidden', 'the grant holder is no longer a member of this vault');
      const { id, scope, expiresAt, depth, subject } = parent;
      issuer = {
        kind: 'grant',
        parent: { id, vault: parent.vault, scope, expiresAt, depth, subject },
        subjectRole,
      };
      recipient = parent.subject;
    } else {
      const role = roles.get(context.local_member);
      if (!role) throw new IpcError('forbidden', 'this device user is not a member of the vault');
      issuer = { kind: 'member', name: context.local_member, role };
      recipient = context.local_member;
    }
    const now = this.now();
    const decision = planGrantIssue({
      issuer,
      vault: context.vault_id,
      scope: input.scope,
      minutes: input.minutes,
      recipient: { name: recipient, role: roles.get(recipient) ?? null },
      now,
      activeGrants: this.tables.grants.size,
    });
    if (!decision.ok) throw fromGrantError(decision.error);
    const token = newGrantToken(this.random);
    const { plan } = decision;
    const entry: GrantEntry = {
      t: 'grant',
      id: newGrantId(this.random),
      digest: tokenDigest(token).toString('hex'),
      vault_id: plan.vault,
      vault: context.vault,
      scope: plan.scope as LocalGrantScope,
      issuer: plan.issuer,
      subject: plan.subject,
      parent: plan.parentId,
      depth: plan.depth,
      created_at: now,
      expires_at: plan.expiresAt,
      request: null,
    };
    for (const e of after) if (e.t === 'request_state' && e.state === 'claimed') entry.request = e.id;
    this.persist([entry, ...after]);
    return { record: this.tables.grants.get(entry.id) as GrantRecord, token };
  }

  /** Unexpired grants, optionally only `within` and its descendants, or one vault's. */
  list(filter: { within?: GrantRecord; vaultId?: string } = {}): GrantRecord[] {
    const now = this.now();
    let records = [...this.tables.grants.values()];
    if (filter.within) {
      const ids = new Set([filter.within.id, ...descendantsOf(records, filter.within.id)]);
      records = records.filter((g) => ids.has(g.id));
    }
    if (filter.vaultId !== undefined) records = records.filter((g) => g.vault === filter.vaultId);
    return (
      records
        .filter((g) => g.expiresAt > now)
        // oldest first; a parent before its children when issued in the same millisecond
        .sort((a, b) => a.createdAt - b.createdAt || a.depth - b.depth || (a.id < b.id ? -1 : 1))
    );
  }

  /** GRANT-14: the grant and all its descendants. Through a grant, only itself or its own subtree. */
  revoke(id: string, within?: GrantRecord): string[] {
    const all = [...this.tables.grants.values()];
    if (!this.tables.grants.has(id)) throw new IpcError('not_found', 'no such active grant');
    if (within && id !== within.id && !descendantsOf(all, within.id).includes(id))
      throw new IpcError('forbidden', 'a grant can revoke only itself and the grants issued from it');
    const ids = [id, ...descendantsOf(all, id)];
    this.persist([{ t: 'revoke', ids, at: this.now() }]);
    return ids;
  }

  // ---------------------------------------------------------------- permission requests (REQ-*)

  request(
    grant: GrantRecord,
    input: { scope: LocalGrantScope; minutes: number; reason: string },
  ): RequestRecord {
    this.expireRequests();
    const pending = [...this.tables.requests.values()].filter(
      (r) => r.state === 'pending' && r.entry.vault_id === grant.vault,
    );
    if (pending.length >= MAX_PENDING_PER_VAULT)
      throw new IpcError(
        'limit_reached',
        `${MAX_PENDING_PER_VAULT} requests are pending in this vault (REQ-9)`,
      );
    if (pending.filter((r) => r.entry.subject === grant.subject).length >= MAX_PENDING_PER_REQUESTER)
      throw new IpcError(
        'limit_reached',
        `${MAX_PENDING_PER_REQUESTER} of your requests are pending (REQ-9)`,
      );
    const entry: RequestEntry = {
      t: 'request',
      id: newGrantId(this.random),
      vault_id: grant.vault,
      vault: grant.vaultName,
      scope: input.scope,
      minutes: input.minutes,
      reason: input.reason,
      requester_grant: grant.id,
      subject: grant.subject,
      delegated: grant.subject !== grant.issuer,
      created_at: this.now(),
    };
    this.persist([entry]);
    return this.tables.requests.get(entry.id) as RequestRecord;
  }

  requests(filter: { vaultId?: string; requesterGrant?: string } = {}): RequestRecord[] {
    this.expireRequests();
    return [...this.tables.requests.values()]
      .filter((r) => filter.vaultId === undefined || r.entry.vault_id === filter.vaultId)
      .filter((r) => filter.requesterGrant === undefined || r.entry.requester_grant === filter.requesterGrant)
      .sort((a, b) => a.entry.created_at - b.entry.created_at || (a.entry.id < b.entry.id ? -1 : 1));
  }

  /** REQ-2: approval records bounds (never wider than asked) and creates no token. */
  decide(
    id: string,
    decision: 'approve' | 'deny',
    bounds: { scope?: LocalGrantScope; minutes?: number } = {},
  ): RequestRecord {
    this.expireRequests();
    const request = this.tables.requests.get(id);
    if (!request) throw new IpcError('not_found', 'no such request');
    if (request.state !== 'pending') throw new IpcError('forbidden', `the request is ${request.state}`);
    const at = this.now();
    if (decision === 'deny') {
      this.persist([{ t: 'request_state', id, state: 'denied', at }]);
    } else {
      const scope = bounds.scope ?? request.entry.scope;
      const minutes = bounds.minutes ?? request.entry.minutes;
      if (!scopeAtMost(scope, request.entry.scope) || minutes > request.entry.minutes)
        throw new IpcError('bad_request', 'an approval may narrow the requested bounds, never widen them');
      this.persist([{ t: 'request_state', id, state: 'approved', at, scope, minutes }]);
    }
    return this.tables.requests.get(id) as RequestRecord;
  }

  /** REQ-3/REQ-8: once, by the very grant that asked, if it is not a delegated grant. */
  claim(grant: GrantRecord, id: string, context: GrantVaultContext): { record: GrantRecord; token: string } {
    this.expireRequests();
    const request = this.tables.requests.get(id);
    if (!request || request.entry.vault_id !== grant.vault)
      throw new IpcError('not_found', 'no such request');
    if (request.entry.requester_grant !== grant.id)
      throw new IpcError('forbidden', 'only the grant that made the request can claim it (REQ-3)');
    if (request.entry.delegated || grant.subject !== grant.issuer)
      throw new IpcError('forbidden', 'a delegated grant may request but not claim (REQ-8)');
    if (request.state !== 'approved' || !request.approved)
      throw new IpcError('forbidden', `the request is ${request.state}, not approved`);
    return this.issue({ context, scope: request.approved.scope, minutes: request.approved.minutes }, [
      { t: 'request_state', id, state: 'claimed', at: this.now() },
    ]);
  }

  // ---------------------------------------------------------------- expiry and compaction

  /**
   * GRANT-13: drops expired grants and their descendants (and orphans); REQ-10/11: expires old
   * pending requests and forgets requests 30 days after their last change. Rewrites the log when
   * anything was dropped, so the sealed log never keeps purged grants.
   */
  sweep(): { grants: number; requests: number } {
    const now = this.now();
    const removal = purgeExpired([...this.tables.grants.values()], now);
    this.expireRequests();
    const stale = [...this.tables.requests.values()].filter(
      (r) => r.state !== 'pending' && now - r.updatedAt >= REQUEST_PURGE_MS,
    );
    const live =
      this.tables.grants.size - removal.removedIds.length + this.tables.requests.size - stale.length;
    if (removal.removedIds.length === 0 && stale.length === 0 && this.rows <= 2 * live + COMPACT_SLACK_ROWS)
      return { grants: 0, requests: 0 };
    const next = new Tables();
    for (const entry of this.tables.entries()) next.apply(entry);
    for (const id of removal.removedIds) next.dropGrant(id);
    for (const r of stale) next.requests.delete(r.entry.id);
    const entries = next.entries();
    this.port.rewriteGrantLog(entries as unknown as JsonObject[]);
    this.tables = next;
    this.rows = entries.length;
    return { grants: removal.removedIds.length, requests: stale.length };
  }

  private expireRequests(): void {
    const now = this.now();
    const expired = [...this.tables.requests.values()].filter(
      (r) => r.state === 'pending' && now - r.entry.created_at > REQUEST_EXPIRY_MS,
    );
    if (expired.length > 0)
      this.persist(expired.map((r) => ({ t: 'request_state', id: r.entry.id, state: 'expired', at: now })));
  }

  private persist(entries: GrantLogEntry[]): void {
    if (this.generation === null)
      throw new IpcError('locked', 'grants are suspended while the vault is locked');
    this.port.appendGrantLog(entries as unknown as JsonObject[], this.rows + 1);
    this.rows += entries.length;
    for (const entry of entries) this.tables.apply(entry);
  }
}
