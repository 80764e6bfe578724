// Dispatches parsed requests to the VaultService under the daemon's session policy:
// write ops one at a time (IPC-10), unlock idle expiry (IPC-11), sudo bound to the caller's
// parent pid (IPC-12/13), rate-limited password attempts (IPC-14), audit of failures while
// unlocked (IPC-15).
import type { VaultService } from '@arslan/desktop-vault';
import type { PeerCredentials } from '@arslan/peer-credentials';
import { IpcError, type VaultOpResults, type VaultRequest } from '@arslan/protocol';
import { assertUnreachable } from '@arslan/util';
import type { RagService } from '@arslan/vault-rag';
import {
  GrantRegistry,
  MUTATING_TOOLS,
  McpGateway,
  grantSummary,
  issuedGrant,
  requestSummary,
} from '@arslan/vault-mcp';
import { type CenterSeam, DEVICE_LOCAL_OPS } from './center-seam';
import { toIpcErrorBody } from './ipc-error.mapper';
import { type SessionPolicy } from './session-policy';
import { WriteQueue } from './write-queue';

export interface Caller {
  /** Kernel-reported peer; undefined when unknown (then no sudo: fail closed). */
  peer: PeerCredentials | undefined;
}

export interface VaultRequestHandlerDeps {
  service: VaultService;
  policy: SessionPolicy;
  parentPidOf: (pid: number) => number | undefined;
  dataDir: string;
  /** Retrieval (RAG-*); without it the RAG ops answer `bad_request`. */
  rag?: RagService;
  /** Configured Centers (CTR-*); absent = a standalone daemon. */
  center?: CenterSeam;
}

export class VaultRequestHandler {
  private readonly queue = new WriteQueue();
  private readonly grants: GrantRegistry;
  private readonly mcp: McpGateway;

  constructor(private readonly deps: VaultRequestHandlerDeps) {
    this.grants = new GrantRegistry(deps.service);
    this.mcp = new McpGateway({
      service: deps.service,
      registry: this.grants,
      ...(deps.rag ? { rag: deps.rag } : {}),
    });
  }

  async handle(request: VaultRequest, caller: Caller): Promise<unknown> {
    this.expireIdleUnlock();
    try {
      return await this.dispatch(request, caller);
    } catch (error) {
      this.auditFailure(request.op, error);
      throw error;
    }
  }

  /** IPC-11: lock when the unlock has been idle too long. Called per request and by the server's sweep. */
  expireIdleUnlock(): void {
    const { service, policy } = this.deps;
    if (policy.unlockExpired()) {
      service.lock();
      this.deps.rag?.clear(); // RAG-6
      this.grants.clear(); // MCP-9
      policy.locked();
    } else if (policy.unlockExpiresAt() === null && this.unlocked()) {
      policy.touch(); // unlocked without us seeing it: start the idle timer now
    }
  }

  private unlocked(): boolean {
    try {
      return this.deps.service.state().unlocked;
    } catch {
      return false;
    }
  }

  private callerParentPid(caller: Caller): number | undefined {
    return caller.peer ? this.deps.parentPidOf(caller.peer.pid) : undefined;
  }

  /** IPC-12: the op needs a live sudo grant of the caller's parent process. */
  private requireSudo(caller: Caller): void {
    if (!this.deps.policy.useSudo(this.callerParentPid(caller)))
      throw new IpcError('sudo_required', 'this operation needs sudo from this terminal');
  }

  /** IPC-14: password attempts are serialised (they run in the queue) and backed off after failures. */
  private async passwordAttempt<T>(attempt: () => Promise<T>): Promise<T> {
    const { policy } = this.deps;
    const delay = policy.attemptDelayMs();
    if (delay > 0)
      throw new IpcError('rate_limited', `too many failed attempts; retry in ${Math.ceil(delay / 1000)} s`);
    try {
      const result = await attempt();
      policy.attemptSucceeded();
      return result;
    } catch (error) {
      if (toIpcErrorBody(error).code === 'bad_password') policy.attemptFailed();
      throw error;
    }
  }

  private write<T>(task: () => T | Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  private async data<T>(run: () => T | Promise<T>): Promise<T> {
    const result = await run();
    this.deps.policy.touch();
    return result;
  }

  private status(caller: Caller): VaultOpResults['status'] {
    const { service, policy, dataDir } = this.deps;
    const state = service.state();
    return {
      initialized: state.initialized,
      unlocked: state.unlocked,
      unlock_idle_expires_at: state.unlocked ? policy.unlockExpiresAt() : null,
      sudo: state.unlocked && policy.hasSudo(this.callerParentPid(caller)),
      device_fingerprint: state.deviceFingerprint,
      vaults: state.vaults,
      data_dir: dataDir,
      pid: process.pid,
    };
  }

  /** CTR-1, CTR-7/8: Center rules that come before any local handling. */
  private centerRoute(request: VaultRequest): Promise<unknown> | undefined {
    const center = this.deps.center;
    if (!center) return undefined;
    // CTR-1; restoring into this data dir is a self-initialisation too. Both are allowed only as
    // an enrollment: a ticket-mode Center's enrollment ticket, redeemed first (see `enroll`).
    if (request.op === 'init' || request.op === 'restore') {
      if (center.redeemEnrollmentTicket && request.args.center_ticket !== undefined) return undefined;
      throw new IpcError(
        'center_managed',
        center.redeemEnrollmentTicket
          ? 'a Center is configured: creating the store here needs its enrollment ticket (CTR-1)'
          : 'a Center is configured: this device cannot initialise a vault by itself (CTR-1)',
      );
    }
    if (center.forward && !DEVICE_LOCAL_OPS.has(request.op)) return center.forward(request);
    return undefined;
  }

  private async dispatch(request: VaultRequest, caller: Caller): Promise<unknown> {
    const { service, policy } = this.deps;
    const forwarded = this.centerRoute(request);
    if (forwarded) return forwarded;
    switch (request.op) {
      case 'status':
        return this.status(caller);
      case 'init': {
        const { password, center_ticket } = request.args;
        return this.write(async () => {
          await this.enroll(center_ticket);
          return this.data(() => service.init(password));
        });
      }
      case 'unlock':
        // CTR-4: a valid unlock ticket first (it permits a local password unlock and nothing else).
        if (this.deps.center?.checkUnlockTicket)
          await this.deps.center.checkUnlockTicket(request.args.center_ticket);
        else if (request.args.center_ticket !== undefined)
          throw new IpcError('bad_request', 'no ticket-mode Center is configured');
        return this.write(() =>
          this.passwordAttempt(async () => {
            await service.unlock(request.args.password);
            policy.touch();
            return { unlock_idle_expires_at: policy.unlockExpiresAt()! };
          }),
        );
      case 'sudo':
        // serialised with the writes so that concurrent guesses cannot outrun the limiter
        return this.write(() =>
          this.passwordAttempt(async () => {
            const parentPid = this.callerParentPid(caller);
            if (parentPid === undefined)
              throw new IpcError('sudo_required', 'sudo needs the caller process to be identified');
            if (!service.state().unlocked) throw new IpcError('locked', 'unlock the vault before sudo');
            if (!(await service.verifyPassword(request.args.password)))
              throw new IpcError('bad_password', 'wrong password');
            return { sudo_expires_at: policy.grantSudo(parentPid) };
          }),
        );
      case 'lock':
        return this.write(() => {
          service.lock();
          this.deps.rag?.clear(); // RAG-6: lock clears every index and vector, aborts model work
          this.grants.clear(); // MCP-9: suspended in memory, kept in the sealed log
          policy.locked();
          return {};
        });
      case 'vault_create':
        return this.write(() => this.data(() => service.vaultCreate(request.args)));
      case 'write':
        return this.write(() => this.data(() => service.write(request.args)));
      case 'delete':
        return this.write(() => this.data(() => service.delete(request.args)));
      case 'resolve':
        return this.write(() => this.data(() => service.resolve(request.args)));
      case 'import':
        return this.write(() => this.data(() => service.import(request.args)));
      case 'backup':
        return this.write(() => {
          this.requireSudo(caller);
          return this.data(() => service.backup(request.args));
        });
      case 'restore': {
        const { center_ticket, ...restore } = request.args;
        return this.write(async () => {
          await this.enroll(center_ticket);
          return this.data(() => service.restore(restore));
        });
      }
      case 'shutdown':
        return this.write(() => ({}));
      case 'vault_list':
        return this.data(() => {
          const state = service.state();
          if (!state.initialized) throw new IpcError('not_initialized', 'no vault store yet');
          if (!state.unlocked) throw new IpcError('locked', 'the vault is locked');
          return { vaults: state.vaults };
        });
      case 'read':
        return this.data(() => service.read(request.args));
      case 'list':
        return this.data(() => service.list(request.args));
      case 'history':
        return this.data(() => service.history(request.args));
      case 'diff':
        return this.data(() => service.diff(request.args));
      // Cards (MCP-5): the daemon socket is the terminal surface (secret map allowed, MCP-12).
      case 'card_write':
        return this.write(() => this.data(() => service.cardWrite(request.args, 'terminal')));
      case 'card_link':
        return this.write(() => this.data(() => service.cardLink(request.args)));
      case 'card_graph':
        return this.data(() => service.cardGraph(request.args));
      case 'audit_verify':
        return this.data(() => service.auditVerify());
      // Retrieval: never in the write queue, so model work does not hold it (IPC-10, RAG-21).
      case 'search':
        return this.data(() => this.ragService().search(request.args));
      case 'retrieve':
        return this.data(() => this.ragService().retrieve('retrieve', request.args));
      case 'rag_search':
        return this.data(() => this.ragService().retrieve('rag_search', request.args));
      case 'rag_index':
        return this.data(() => this.ragService().index(request.args));
      case 'rag_status':
        return this.data(() => this.ragService().status(request.args));
      case 'rag_ask':
        return this.data(() => this.ragService().ask(request.args));
      // MCP grants. Terminal ops act as the local member (this OS user, IPC-6); `mcp_call` acts
      // only through the capability it carries and never looks at sudo (MCP-7, MCP-10).
      case 'mcp_grant_issue': {
        const bounds = await this.mcpTicketBounds(request.args);
        return this.write(() =>
          this.data(() => {
            const { vault, minutes, scope } = request.args;
            const registry = this.mcp.ensureGrants();
            if (bounds && (minutes > bounds.maxMinutes || Date.now() + minutes * 60_000 > bounds.notAfter))
              throw new IpcError('forbidden', 'the grant would outlive its MCP-grant ticket (CTR-3)');
            const issued = registry.issue({
              context: service.grantContext(vault),
              scope: scope ?? 'read',
              minutes,
            });
            this.mcp.audit('grant.issue', issued.record, 'terminal');
            return issuedGrant(issued);
          }),
        );
      }
      case 'mcp_grant_list':
        return this.write(() =>
          this.data(() => {
            const registry = this.mcp.ensureGrants();
            const vault = request.args.vault;
            const vaultId = vault === undefined ? undefined : service.grantContext(vault).vault_id;
            return { grants: registry.list(vaultId === undefined ? {} : { vaultId }).map(grantSummary) };
          }),
        );
      case 'mcp_grant_revoke':
        return this.write(() =>
          this.data(() => {
            const revoked = this.mcp.ensureGrants().revoke(request.args.grant_id);
            service.recordEvent('grant.revoke', { grants: revoked, surface: 'terminal' });
            return { revoked };
          }),
        );
      case 'mcp_request_list':
        return this.write(() =>
          this.data(() => {
            const registry = this.mcp.ensureGrants();
            const vault = request.args.vault;
            const filter = vault === undefined ? {} : { vaultId: service.grantContext(vault).vault_id };
            return { requests: registry.requests(filter).map(requestSummary) };
          }),
        );
      case 'mcp_request_decide':
        return this.write(() =>
          this.data(() => {
            const { request_id, decision, scope, minutes } = request.args;
            const bounds = { ...(scope ? { scope } : {}), ...(minutes ? { minutes } : {}) };
            const decided = this.mcp.ensureGrants().decide(request_id, decision, bounds);
            service.recordEvent(`grant.request.${decision}`, { request: request_id, surface: 'terminal' });
            return requestSummary(decided);
          }),
        );
      case 'mcp_call': {
        const { token, tool, arguments: args } = request.args;
        const call = () => this.data(() => this.mcp.call(token, tool, args));
        // Loading the grant log may purge and rewrite it: a write, so it waits its turn (IPC-10).
        const loaded = this.grants.loadedGeneration() === service.unlockGeneration();
        return MUTATING_TOOLS.has(tool) || !loaded ? this.write(call) : call();
      }
      default:
        return assertUnreachable(request);
    }
  }

  /**
   * CTR-1: with a Center configured, `init`/`restore` reach here only with an enrollment ticket.
   * Runs inside the write queue: an existing store is refused before the single-use ticket is
   * spent, and a refused ticket leaves nothing written locally.
   */
  private async enroll(ticket: string | undefined): Promise<void> {
    const center = this.deps.center;
    if (!center) {
      if (ticket !== undefined) throw new IpcError('bad_request', 'no ticket-mode Center is configured');
      return;
    }
    if (!center.redeemEnrollmentTicket || ticket === undefined)
      throw new IpcError('center_managed', 'a Center is configured: an enrollment ticket is needed (CTR-1)');
    if (this.deps.service.state().initialized)
      throw new IpcError('already_initialized', 'this data directory already holds a store');
    await center.redeemEnrollmentTicket(ticket);
  }

  /**
   * CTR-3: with a ticket-mode Center, a local MCP grant needs an MCP-grant ticket (redeemed, so
   * consumed, before anything local happens) and stays within its bounds.
   */
  private async mcpTicketBounds(args: {
    vault: string;
    scope?: 'read' | 'read_write' | 'read_write_delete';
    center_ticket?: string;
  }): Promise<{ notAfter: number; maxMinutes: number } | null> {
    const center = this.deps.center;
    if (!center?.redeemMcpGrantTicket) {
      if (args.center_ticket !== undefined)
        throw new IpcError('bad_request', 'no ticket-mode Center is configured');
      return null;
    }
    // Do not spend a single-use ticket on a grant that cannot be issued anyway.
    if (!this.unlocked()) throw new IpcError('locked', 'the vault is locked');
    const bounds = await center.redeemMcpGrantTicket(args.center_ticket, args.vault);
    const order = ['read', 'read_write', 'read_write_delete'] as const;
    if (order.indexOf(args.scope ?? 'read') > order.indexOf(bounds.maxScope))
      throw new IpcError('forbidden', `the MCP-grant ticket allows at most scope ${bounds.maxScope} (CTR-3)`);
    return bounds;
  }

  /** GRANT-13 / REQ-10/11: periodic purge while unlocked (called by the server's sweep). */
  sweepGrants(): void {
    if (!this.unlocked() || this.grants.loadedGeneration() === null) return;
    void this.queue
      .run(() => {
        if (this.unlocked() && this.grants.loadedGeneration() === this.deps.service.unlockGeneration())
          this.grants.sweep();
      })
      .catch(() => undefined);
  }

  private ragService(): RagService {
    const rag = this.deps.rag;
    if (!rag) throw new IpcError('bad_request', 'retrieval is not enabled in this daemon');
    return rag;
  }

  /** IPC-14/15: failures are audited only while unlocked; attempts while locked never are. */
  private auditFailure(op: string, error: unknown): void {
    if (!this.unlocked()) return;
    const { code } = toIpcErrorBody(error);
    void this.queue
      .run(() => {
        if (this.unlocked()) this.deps.service.recordFailure(op, code);
      })
      .catch(() => undefined);
  }
}
