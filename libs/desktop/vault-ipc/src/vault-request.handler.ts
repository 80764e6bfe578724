// Dispatches parsed requests to the VaultService under the daemon's session policy:
// write ops one at a time (IPC-10), unlock idle expiry (IPC-11), sudo bound to the caller's
// parent pid (IPC-12/13), rate-limited password attempts (IPC-14), audit of failures while
// unlocked (IPC-15).
import type { VaultService } from '@arslan/desktop-vault';
import type { PeerCredentials } from '@arslan/peer-credentials';
import { IpcError, type VaultOpResults, type VaultRequest } from '@arslan/protocol';
import { assertUnreachable } from '@arslan/util';
import type { RagService } from '@arslan/vault-rag';
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
}

export class VaultRequestHandler {
  private readonly queue = new WriteQueue();

  constructor(private readonly deps: VaultRequestHandlerDeps) {}

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

  private async dispatch(request: VaultRequest, caller: Caller): Promise<unknown> {
    const { service, policy } = this.deps;
    switch (request.op) {
      case 'status':
        return this.status(caller);
      case 'init':
        return this.write(() => this.data(() => service.init(request.args.password)));
      case 'unlock':
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
      case 'restore':
        return this.write(() => this.data(() => service.restore(request.args)));
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
      default:
        return assertUnreachable(request);
    }
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
