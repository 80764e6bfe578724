// WORK-07..13: rows of background jobs (queued → running → completed/failed/cancelled).
import type { AgentDb } from './agent-db';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobRow {
  id: string;
  originConversationId: string;
  jobConversationId: string;
  message: string;
  workspace: string;
  provider: string;
  model: string;
  tier: 'light' | 'standard' | 'deep';
  attended: boolean;
  status: JobStatus;
  runId: string | null;
  taskId: string | null;
  answer: string | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
}

interface RawJob {
  id: string;
  origin_conversation_id: string;
  job_conversation_id: string;
  message: string;
  workspace: string;
  provider: string;
  model: string;
  tier: JobRow['tier'];
  attended: number;
  status: JobStatus;
  run_id: string | null;
  task_id: string | null;
  answer: string | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
}

const toRow = (r: RawJob): JobRow => ({
  id: r.id,
  originConversationId: r.origin_conversation_id,
  jobConversationId: r.job_conversation_id,
  message: r.message,
  workspace: r.workspace,
  provider: r.provider,
  model: r.model,
  tier: r.tier,
  attended: r.attended === 1,
  status: r.status,
  runId: r.run_id,
  taskId: r.task_id,
  answer: r.answer,
  createdAt: r.created_at,
  startedAt: r.started_at,
  endedAt: r.ended_at,
});

export type NewJob = Omit<
  JobRow,
  'status' | 'runId' | 'taskId' | 'answer' | 'createdAt' | 'startedAt' | 'endedAt'
>;

export class JobRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number,
  ) {}

  create(job: NewJob): JobRow {
    this.db
      .prepare(
        `INSERT INTO background_jobs (id, origin_conversation_id, job_conversation_id, message, workspace,
           provider, model, tier, attended, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
      )
      .run(
        job.id,
        job.originConversationId,
        job.jobConversationId,
        job.message,
        job.workspace,
        job.provider,
        job.model,
        job.tier,
        job.attended ? 1 : 0,
        this.now(),
      );
    return this.get(job.id)!;
  }

  get(id: string): JobRow | undefined {
    const raw = this.db.prepare('SELECT * FROM background_jobs WHERE id = ?').get(id) as RawJob | undefined;
    return raw ? toRow(raw) : undefined;
  }

  list(originConversationId?: string): JobRow[] {
    const rows = (
      originConversationId === undefined
        ? this.db.prepare('SELECT * FROM background_jobs ORDER BY created_at, rowid').all()
        : this.db
            .prepare(
              'SELECT * FROM background_jobs WHERE origin_conversation_id = ? ORDER BY created_at, rowid',
            )
            .all(originConversationId)
    ) as RawJob[];
    return rows.map(toRow);
  }

  markRunning(id: string, runId: string, taskId: string): void {
    this.db
      .prepare(
        "UPDATE background_jobs SET status = 'running', run_id = ?, task_id = ?, started_at = ? WHERE id = ? AND status = 'queued'",
      )
      .run(runId, taskId, this.now(), id);
  }

  finish(id: string, status: Exclude<JobStatus, 'queued' | 'running'>, answer: string | null): void {
    this.db
      .prepare(
        "UPDATE background_jobs SET status = ?, answer = ?, ended_at = ? WHERE id = ? AND status IN ('queued', 'running')",
      )
      .run(status, answer, this.now(), id);
  }

  /** After a restart nothing of an earlier process runs: its open jobs are interrupted. */
  interruptOpen(): number {
    return this.db
      .prepare(
        "UPDATE background_jobs SET status = 'interrupted', ended_at = ? WHERE status IN ('queued', 'running')",
      )
      .run(this.now()).changes;
  }
}
