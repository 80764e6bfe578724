// WORK-07..13: background jobs. A job runs a whole task through the same RunService (model access,
// tool loop, acceptance and repair) in its own conversation (own context) with its own budget. It
// is created only explicitly (local API or the model's start_background_job call, WORK-11), waits
// in a queue while 3 jobs run (WORK-09), reports progress to its originating conversation as a
// job card (WORK-08), asks with that conversation's approvals (WORK-13), and is tied to no socket
// or window (WORK-10): only `cancel` or the daemon stopping ends it.
import { randomUUID } from 'node:crypto';
import type { RunResult } from '../loop/loop.types';
import type { RunService } from '../loop/run-service';
import type { ActionKind, ModelProvider } from '../ports';
import type { AgentDb } from '../store/agent-db';
import { JobRepository, type JobRow } from '../store/job.repository';
import type { TaskStatus } from '../tasks/task.types';

export const DEFAULT_MAX_RUNNING_JOBS = 3;

export interface CreateJobInput {
  /** The conversation the job was started from: its cards, approvals and progress card. */
  originConversationId: string;
  message: string;
  /** Absolute, real path of the working folder. */
  workspace: string;
  provider: ModelProvider | string;
  model: string;
  tier?: JobRow['tier'];
  /** false: nobody can answer cards (a headless origin): fail-closed (APPR-017). Default true. */
  attended?: boolean;
  allow?: readonly ActionKind[];
}

/** The job card shown in the originating conversation (WORK-08). */
export interface JobCard extends JobRow {
  /** The job's task state (TASK-*), once it runs. */
  taskStatus: TaskStatus | null;
  /** Position in the wait queue (1 = next), null unless queued. */
  queuePosition: number | null;
}

export interface JobEvent {
  type: 'job';
  job: JobCard;
}

export type JobListener = (event: JobEvent) => void;

export type CancelJobResult = 'cancelled' | 'stopping' | 'already_finished' | 'not_found';

export interface JobServiceOptions {
  service: RunService;
  db: AgentDb;
  maxRunning?: number;
  now?: () => number;
  newId?: () => string;
}

export class JobService {
  readonly maxRunning: number;
  private readonly repo: JobRepository;
  private readonly queue: string[] = [];
  private readonly providers = new Map<string, ModelProvider | string>();
  private readonly allow = new Map<string, readonly ActionKind[]>();
  private readonly active = new Map<string, Promise<JobRow>>();
  private readonly done = new Map<string, Array<(row: JobRow) => void>>();
  private readonly taskStatus = new Map<string, TaskStatus>();
  private readonly listeners = new Set<JobListener>();
  private readonly newId: () => string;
  /** Jobs of an earlier process marked interrupted when the service opened. */
  readonly interrupted: number;

  constructor(private readonly options: JobServiceOptions) {
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING_JOBS;
    this.repo = new JobRepository(options.db, options.now ?? Date.now);
    this.newId = options.newId ?? randomUUID;
    this.interrupted = this.repo.interruptOpen();
  }

  /** WORK-11: the only way a job comes to be. */
  create(input: CreateJobInput): JobCard {
    const { service } = this.options;
    service.runs.ensureConversation(input.originConversationId);
    const id = this.newId();
    this.repo.create({
      id,
      originConversationId: input.originConversationId,
      jobConversationId: `job-${id}`,
      message: input.message,
      workspace: input.workspace,
      provider: typeof input.provider === 'string' ? input.provider : input.provider.kind,
      model: input.model,
      tier: input.tier ?? 'standard',
      attended: input.attended ?? true,
    });
    this.providers.set(id, input.provider);
    this.allow.set(id, input.allow ?? []);
    this.queue.push(id);
    this.publish(id);
    this.pump();
    return this.card(this.repo.get(id)!);
  }

  get(id: string): JobCard | undefined {
    const row = this.repo.get(id);
    return row ? this.card(row) : undefined;
  }

  list(originConversationId?: string): JobCard[] {
    return this.repo.list(originConversationId).map((r) => this.card(r));
  }

  runningCount(): number {
    return this.active.size;
  }

  /** Resolves with the job's final row (tests, the CLI); undefined for an unknown job. */
  settled(id: string): Promise<JobRow> | undefined {
    const row = this.repo.get(id);
    if (!row) return undefined;
    if (row.status !== 'queued' && row.status !== 'running') return Promise.resolve(row);
    return new Promise((resolve) => {
      const waiters = this.done.get(id) ?? [];
      waiters.push(resolve);
      this.done.set(id, waiters);
    });
  }

  cancel(id: string): CancelJobResult {
    const row = this.repo.get(id);
    if (!row) return 'not_found';
    if (row.status === 'queued') {
      this.queue.splice(this.queue.indexOf(id), 1);
      this.finish(id, 'cancelled', null);
      return 'cancelled';
    }
    if (row.status === 'running' && row.runId) {
      this.options.service.stop(row.runId);
      return 'stopping';
    }
    return 'already_finished';
  }

  /** Stops every running job and empties the queue (daemon shutdown); waits for them to settle. */
  async stopAll(): Promise<void> {
    for (const id of this.queue.splice(0)) this.finish(id, 'cancelled', null);
    const running = [...this.active.keys()];
    for (const id of running) {
      const runId = this.repo.get(id)?.runId;
      if (runId) this.options.service.stop(runId);
    }
    await Promise.allSettled([...this.active.values()]);
  }

  subscribe(listener: JobListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** WORK-09: start queued jobs while fewer than `maxRunning` run. */
  private pump(): void {
    while (this.active.size < this.maxRunning && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.active.set(id, this.startJob(id));
    }
  }

  private startJob(id: string): Promise<JobRow> {
    const row = this.repo.get(id)!;
    const { service } = this.options;
    let result: Promise<RunResult>;
    try {
      const started = service.startRun({
        conversationId: row.jobConversationId,
        message: row.message,
        workspace: row.workspace,
        provider: this.providers.get(id) ?? row.provider,
        model: row.model,
        tier: row.tier,
        attended: row.attended,
        allow: this.allow.get(id) ?? [],
        approvalConversationId: row.originConversationId, // WORK-13
      });
      this.repo.markRunning(id, started.runId, started.taskId);
      this.taskStatus.set(id, 'running');
      // WORK-08: the job run's task progress updates the card in the originating conversation.
      const sub = service.snapshotAndSubscribe({ runId: started.runId }, (event) => {
        if (event.type !== 'task_progress') return;
        this.taskStatus.set(id, event.status);
        this.publish(id);
      });
      result = started.result.finally(() => sub?.unsubscribe());
      this.publish(id);
    } catch (error) {
      // e.g. an unknown provider name: the job fails; the reason never includes secrets.
      this.finish(id, 'failed', error instanceof Error ? error.message : 'the job could not start');
      return Promise.resolve(this.afterJob(id));
    }
    return result.then(
      (r) => {
        // WORK-12: a run that completed (verified or wrapped up) is a completed job.
        const status =
          r.status === 'succeeded' || r.status === 'wrapped_up'
            ? 'completed'
            : r.status === 'stopped'
              ? 'cancelled'
              : r.status === 'interrupted'
                ? 'interrupted'
                : 'failed';
        this.finish(id, status, r.answer || null);
        return this.afterJob(id);
      },
      () => {
        this.finish(id, 'failed', null);
        return this.afterJob(id);
      },
    );
  }

  private afterJob(id: string): JobRow {
    this.active.delete(id);
    this.providers.delete(id);
    this.allow.delete(id);
    queueMicrotask(() => this.pump());
    return this.repo.get(id)!;
  }

  private finish(
    id: string,
    status: 'completed' | 'failed' | 'cancelled' | 'interrupted',
    answer: string | null,
  ): void {
    this.repo.finish(id, status, answer);
    this.publish(id);
    const row = this.repo.get(id)!;
    for (const resolve of this.done.get(id) ?? []) resolve(row);
    this.done.delete(id);
  }

  private card(row: JobRow): JobCard {
    const position = this.queue.indexOf(row.id);
    return {
      ...row,
      taskStatus: this.taskStatus.get(row.id) ?? this.storedTaskStatus(row.taskId),
      queuePosition: row.status === 'queued' && position >= 0 ? position + 1 : null,
    };
  }

  private storedTaskStatus(taskId: string | null): TaskStatus | null {
    if (!taskId) return null;
    try {
      return this.options.service.tasks.getTask(taskId).status;
    } catch {
      return null;
    }
  }

  private publish(id: string): void {
    const row = this.repo.get(id);
    if (!row) return;
    const event: JobEvent = { type: 'job', job: this.card(row) };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // one failing subscriber (a closed socket) must not stop the job or the others
      }
    }
  }
}
