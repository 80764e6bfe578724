// Permission requests on the Center (REQ-1..3, REQ-6..11): scope requests only.
import {
  planGrantIssue,
  roleAtMost,
  scopeAtMost,
  type GrantScope,
  DEFAULT_GRANT_SCOPE,
} from '@arslan/policy';
import { CenterError } from './center.errors';
import { GRANTS_LOCK, planAndInsert, requireRole, type IssuedGrant } from './grant.service';
import { type AuditSink, type CenterRepos, type CenterStore, type Clock, type RequestRecord } from './ports';
import { isDelegated, principalName, type ContentPrincipal } from './principal';
import { newId } from './tokens';

/** REQ-9 */
export const MAX_PENDING_PER_REQUESTER = 20;
export const MAX_PENDING_PER_VAULT = 200;
/** REQ-10, REQ-11 */
export const REQUEST_EXPIRY_MS = 7 * 24 * 3600_000;
export const REQUEST_PURGE_MS = 30 * 24 * 3600_000;

export interface PublicRequest {
  readonly id: string;
  readonly vault: string;
  readonly kind: 'scope';
  readonly requester: string;
  readonly scope: GrantScope;
  readonly minutes: number;
  readonly status: RequestRecord['status'];
  readonly approver: string | null;
  readonly createdAt: string;
  readonly transitionedAt: string;
}

function publicRequest(r: RequestRecord, now: number): PublicRequest {
  const expired = r.status === 'pending' && r.createdAt + REQUEST_EXPIRY_MS < now;
  return {
    id: r.id,
    vault: r.vault,
    kind: 'scope',
    requester: r.requester,
    scope: r.scope,
    minutes: r.minutes,
    status: expired ? 'expired' : r.status,
    approver: r.approver,
    createdAt: new Date(r.createdAt).toISOString(),
    transitionedAt: new Date(r.transitionedAt).toISOString(),
  };
}

export function requestLock(vault: string): string {
  return `requests:${vault}`;
}

export class RequestService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
    private readonly clock: Clock,
  ) {}

  /** REQ-1, REQ-9: anyone in the vault, delegated callers included (REQ-8), may ask for a scope. */
  create(
    caller: ContentPrincipal,
    vault: string,
    body: { scope?: GrantScope; minutes: number },
  ): Promise<PublicRequest> {
    const now = this.clock.now();
    const scope = body.scope ?? DEFAULT_GRANT_SCOPE;
    return this.store.write([requestLock(vault)], async (repos) => {
      const requester = principalName(caller);
      if (caller.kind === 'grant' && caller.grant.vault !== vault) {
        throw new CenterError('forbidden', 'a grant stays in its vault');
      }
      await requireRole(repos, vault, requester);
      await repos.expirePending(now - REQUEST_EXPIRY_MS, now);
      if ((await repos.countPending(vault, requester)) >= MAX_PENDING_PER_REQUESTER) {
        throw new CenterError(
          'too_many_pending',
          `at most ${MAX_PENDING_PER_REQUESTER} pending requests per requester (REQ-9)`,
        );
      }
      if ((await repos.countPending(vault)) >= MAX_PENDING_PER_VAULT) {
        throw new CenterError(
          'too_many_pending',
          `at most ${MAX_PENDING_PER_VAULT} pending requests per vault (REQ-9)`,
        );
      }
      const record: RequestRecord = {
        id: newId(),
        vault,
        requester,
        credentialHash: caller.credentialHash,
        scope,
        minutes: body.minutes,
        status: 'pending',
        approver: null,
        grantId: null,
        createdAt: now,
        transitionedAt: now,
      };
      await repos.insertRequest(record);
      await this.audit.append({ type: 'request.create', actor: requester, vault, request: record.id, scope });
      return publicRequest(record, now);
    });
  }

  async list(caller: ContentPrincipal, vault: string): Promise<PublicRequest[]> {
    const now = this.clock.now();
    return this.store.read(async (repos) => {
      const name = principalName(caller);
      const role = await requireRole(repos, vault, name);
      const all = await repos.listRequests(vault);
      const seen =
        roleAtMost('admin', role) && !isDelegated(caller) ? all : all.filter((r) => r.requester === name);
      return seen.map((r) => publicRequest(r, now));
    });
  }

  /** REQ-2: approval records the bounds only; no token exists until the claim. */
  approve(caller: ContentPrincipal, vault: string, id: string): Promise<PublicRequest> {
    return this.decide(caller, vault, id, 'approved');
  }

  deny(caller: ContentPrincipal, vault: string, id: string): Promise<PublicRequest> {
    return this.decide(caller, vault, id, 'denied');
  }

  /** The requester withdraws its own pending request, with the creating credential. */
  cancel(caller: ContentPrincipal, vault: string, id: string): Promise<PublicRequest> {
    const now = this.clock.now();
    return this.store.write([requestLock(vault)], async (repos) => {
      const req = await this.own(repos, caller, vault, id);
      await this.transition(repos, req, 'pending', 'cancelled', { at: now }, now);
      await this.audit.append({ type: 'request.cancel', actor: req.requester, vault, request: id });
      return publicRequest({ ...req, status: 'cancelled', transitionedAt: now }, now);
    });
  }

  /** REQ-3: exactly one claim, with the creating credential, returns the token once. */
  claim(caller: ContentPrincipal, vault: string, id: string): Promise<IssuedGrant> {
    const now = this.clock.now();
    return this.store.write([GRANTS_LOCK], async (repos) => {
      const req = await this.own(repos, caller, vault, id);
      if (req.status !== 'approved' || req.approver === null) {
        throw new CenterError('request_not_claimable', `request is ${req.status}`);
      }
      const approverRole = await repos.roleOf(vault, req.approver);
      if (approverRole === null)
        throw new CenterError('request_not_claimable', 'the approver is no longer a member');
      const issued = await planAndInsert(repos, {
        issuer: { kind: 'member', name: req.approver, role: approverRole },
        vault,
        scope: req.scope,
        minutes: req.minutes,
        to: req.requester,
        now,
      });
      const won = await repos.transitionRequest(id, 'approved', 'claimed', {
        at: now,
        grantId: issued.grant.id,
      });
      if (!won) throw new CenterError('request_not_claimable', 'the request was already claimed');
      await this.audit.append({
        type: 'request.claim',
        actor: req.requester,
        vault,
        request: id,
        grant: issued.grant.id,
      });
      return issued;
    });
  }

  private decide(
    caller: ContentPrincipal,
    vault: string,
    id: string,
    to: 'approved' | 'denied',
  ): Promise<PublicRequest> {
    const now = this.clock.now();
    return this.store.write([requestLock(vault)], async (repos) => {
      if (isDelegated(caller))
        throw new CenterError('delegated_caller', 'a delegated grant may only create requests (REQ-8)');
      if (caller.kind === 'grant' && caller.grant.vault !== vault)
        throw new CenterError('forbidden', 'a grant stays in its vault');
      const req = await repos.findRequest(id);
      if (!req || req.vault !== vault) throw new CenterError('not_found', `no request ${id}`);
      const name = principalName(caller);
      if (req.requester === name)
        throw new CenterError('self_approval', 'nobody approves or denies their own request (REQ-7)');
      const role = await requireRole(repos, vault, name);
      if (!roleAtMost('admin', role))
        throw new CenterError('forbidden', `a ${role} cannot decide requests (GRANT-3)`);
      if (caller.kind === 'grant' && !scopeAtMost(req.scope, caller.grant.scope)) {
        throw new CenterError('insufficient_scope', `your grant does not cover ${req.scope}`);
      }
      if (to === 'approved') {
        // The bounds must be issuable by this approver to this requester (GRANT-1..7).
        const plan = planGrantIssue({
          issuer: { kind: 'member', name, role },
          vault,
          scope: req.scope,
          minutes: req.minutes,
          recipient: { name: req.requester, role: await repos.roleOf(vault, req.requester) },
          now,
          activeGrants: 0,
        });
        if (!plan.ok) throw new CenterError(`grant_${plan.error.code}`, plan.error.message);
      }
      await this.transition(repos, req, 'pending', to, { at: now, approver: name }, now);
      await this.audit.append({
        type: `request.${to === 'approved' ? 'approve' : 'deny'}`,
        actor: name,
        vault,
        request: id,
      });
      return publicRequest({ ...req, status: to, approver: name, transitionedAt: now }, now);
    });
  }

  /** The request, if the caller is its requester acting with the creating credential (REQ-3, REQ-8). */
  private async own(
    repos: CenterRepos,
    caller: ContentPrincipal,
    vault: string,
    id: string,
  ): Promise<RequestRecord> {
    if (isDelegated(caller))
      throw new CenterError('delegated_caller', 'a delegated grant may only create requests (REQ-8)');
    const req = await repos.findRequest(id);
    if (!req || req.vault !== vault) throw new CenterError('not_found', `no request ${id}`);
    if (req.requester !== principalName(caller) || req.credentialHash !== caller.credentialHash) {
      throw new CenterError(
        'not_requester',
        'only the requester, with the credential that created it, may do this (REQ-3)',
      );
    }
    return req;
  }

  private async transition(
    repos: CenterRepos,
    req: RequestRecord,
    from: 'pending',
    to: RequestRecord['status'],
    patch: { at: number; approver?: string },
    now: number,
  ): Promise<void> {
    if (req.status === 'pending' && req.createdAt + REQUEST_EXPIRY_MS < now) {
      await repos.expirePending(now - REQUEST_EXPIRY_MS, now);
      throw new CenterError('request_not_pending', 'the request has expired (REQ-10)');
    }
    if (!(await repos.transitionRequest(req.id, from, to, patch))) {
      throw new CenterError('request_not_pending', `request is ${req.status}`);
    }
  }
}
