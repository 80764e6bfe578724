// TASK-01..10 at the repository layer: revisions, attempts, acceptance, the success guard.
// Every update checks the attempt id and the row version (TASK-03); a stale writer is rejected.
import { randomUUID } from 'node:crypto';
import type { AgentDb } from '../store/agent-db';
import { UNSETTLED_ACTION_STATES } from '../store/run.repository';
import {
  type AcceptanceStatus,
  type AttemptGuard,
  type AttemptStatus,
  type Evidence,
  TaskError,
  type TaskRow,
  type TaskSpec,
  type TaskStatus,
} from './task.types';

interface RawTask {
  id: string;
  conversation_id: string | null;
  status: TaskStatus;
  current_revision: number;
  current_attempt_id: string | null;
  row_version: number;
}

interface RawAttempt {
  id: string;
  task_id: string;
  revision: number;
  status: AttemptStatus;
  row_version: number;
}

export class TaskRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = randomUUID,
  ) {}

  createTask(input: { conversationId: string | null; spec: TaskSpec }): TaskRow {
    const id = this.newId();
    const at = this.now();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO tasks (id, conversation_id, status, current_revision, row_version, created_at, updated_at)
           VALUES (?, ?, 'open', 1, 1, ?, ?)`,
        )
        .run(id, input.conversationId, at, at);
      this.db
        .prepare('INSERT INTO task_revisions (task_id, revision, spec_json, created_at) VALUES (?, 1, ?, ?)')
        .run(id, JSON.stringify(input.spec), at);
    })();
    return this.getTask(id);
  }

  getTask(id: string): TaskRow {
    const raw = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as RawTask | undefined;
    if (!raw) throw new TaskError('not_found', `task ${id} not found`);
    return {
      id: raw.id,
      conversationId: raw.conversation_id,
      status: raw.status,
      currentRevision: raw.current_revision,
      currentAttemptId: raw.current_attempt_id,
      rowVersion: raw.row_version,
    };
  }

  getSpec(taskId: string, revision: number): TaskSpec {
    const row = this.db
      .prepare('SELECT spec_json FROM task_revisions WHERE task_id = ? AND revision = ?')
      .get(taskId, revision) as { spec_json: string } | undefined;
    if (!row) throw new TaskError('not_found', `revision ${revision} of task ${taskId} not found`);
    return JSON.parse(row.spec_json) as TaskSpec;
  }

  /** TASK-01: any change creates a new revision; the running attempt is superseded (TASK-03). */
  reviseSpec(taskId: string, expectedRowVersion: number, spec: TaskSpec): TaskRow {
    return this.db.transaction(() => {
      const task = this.getTask(taskId);
      if (task.rowVersion !== expectedRowVersion)
        throw new TaskError('stale_version', 'task changed since it was read');
      const revision = task.currentRevision + 1;
      const at = this.now();
      this.db
        .prepare('INSERT INTO task_revisions (task_id, revision, spec_json, created_at) VALUES (?, ?, ?, ?)')
        .run(taskId, revision, JSON.stringify(spec), at);
      if (task.currentAttemptId) {
        this.db
          .prepare(
            "UPDATE attempts SET status = 'superseded', ended_at = ?, row_version = row_version + 1 WHERE id = ? AND status = 'running'",
          )
          .run(at, task.currentAttemptId);
      }
      this.db
        .prepare(
          "UPDATE tasks SET current_revision = ?, current_attempt_id = NULL, status = 'open', row_version = row_version + 1, updated_at = ? WHERE id = ?",
        )
        .run(revision, at, taskId);
      return this.getTask(taskId);
    })();
  }

  /** TASK-02: a new attempt against the current revision; an earlier running one is superseded. */
  startAttempt(taskId: string, expectedRowVersion: number): AttemptGuard {
    return this.db.transaction(() => {
      const task = this.getTask(taskId);
      if (task.rowVersion !== expectedRowVersion)
        throw new TaskError('stale_version', 'task changed since it was read');
      const at = this.now();
      if (task.currentAttemptId) {
        this.db
          .prepare(
            "UPDATE attempts SET status = 'superseded', ended_at = ?, row_version = row_version + 1 WHERE id = ? AND status IN ('running', 'interrupted')",
          )
          .run(at, task.currentAttemptId);
      }
      const attemptId = this.newId();
      this.db
        .prepare(
          "INSERT INTO attempts (id, task_id, revision, status, row_version, started_at) VALUES (?, ?, ?, 'running', 1, ?)",
        )
        .run(attemptId, taskId, task.currentRevision, at);
      this.db
        .prepare(
          "UPDATE tasks SET current_attempt_id = ?, status = 'running', row_version = row_version + 1, updated_at = ? WHERE id = ?",
        )
        .run(attemptId, at, taskId);
      return { attemptId, version: 1 };
    })();
  }

  /** TASK-03: the guard must name the task's current attempt at the version it read. */
  private checkGuard(guard: AttemptGuard): { attempt: RawAttempt; task: TaskRow } {
    const attempt = this.db.prepare('SELECT * FROM attempts WHERE id = ?').get(guard.attemptId) as
      RawAttempt | undefined;
    if (!attempt) throw new TaskError('not_found', `attempt ${guard.attemptId} not found`);
    const task = this.getTask(attempt.task_id);
    if (
      task.currentAttemptId !== attempt.id ||
      attempt.status === 'superseded' ||
      attempt.revision !== task.currentRevision
    ) {
      throw new TaskError(
        'stale_attempt',
        `attempt ${attempt.id} is not the current attempt of task ${task.id}`,
      );
    }
    if (attempt.row_version !== guard.version)
      throw new TaskError('stale_version', `attempt ${attempt.id} changed since it was read`);
    return { attempt, task };
  }

  private bump(attemptId: string, expected: number, set: string, params: unknown[]): AttemptGuard {
    const info = this.db
      .prepare(`UPDATE attempts SET ${set}, row_version = row_version + 1 WHERE id = ? AND row_version = ?`)
      .run(...params, attemptId, expected);
    if (info.changes !== 1)
      throw new TaskError('stale_version', `attempt ${attemptId} changed since it was read`);
    return { attemptId, version: expected + 1 };
  }

  updateProgress(guard: AttemptGuard, progress: Record<string, unknown>): AttemptGuard {
    return this.db.transaction(() => {
      this.checkGuard(guard);
      return this.bump(guard.attemptId, guard.version, 'progress_json = ?', [JSON.stringify(progress)]);
    })();
  }

  /** TASK-04/05/08/09: a verdict for one acceptance item of this revision, with evidence. */
  recordAcceptance(
    guard: AttemptGuard,
    verdict: { itemId: string; status: AcceptanceStatus; evidence: Evidence[] },
  ): AttemptGuard {
    return this.db.transaction(() => {
      const { attempt, task } = this.checkGuard(guard);
      const spec = this.getSpec(task.id, attempt.revision);
      const item = spec.acceptance.find((a) => a.id === verdict.itemId);
      if (!item)
        throw new TaskError(
          'unknown_item',
          `no acceptance item ${verdict.itemId} in revision ${attempt.revision}`,
        );
      if (verdict.status === 'not_applicable' && item.critical) {
        throw new TaskError('critical_not_applicable', `critical item ${item.id} cannot be not applicable`);
      }
      if (verdict.status !== 'not_run' && verdict.evidence.length === 0) {
        throw new TaskError('missing_evidence', `verdict on ${item.id} has no evidence`);
      }
      for (const e of verdict.evidence) this.checkOwnership(task.id, attempt.revision, e);
      this.db
        .prepare(
          `INSERT INTO acceptance_results (task_id, attempt_id, revision, item_id, status, evidence_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (attempt_id, item_id) DO UPDATE SET status = excluded.status, evidence_json = excluded.evidence_json, created_at = excluded.created_at`,
        )
        .run(
          task.id,
          attempt.id,
          attempt.revision,
          item.id,
          verdict.status,
          JSON.stringify(verdict.evidence),
          this.now(),
        );
      return this.bump(guard.attemptId, guard.version, 'status = status', []);
    })();
  }

  /**
   * TASK-08: a read or operation record counts only when a run of this task, on an attempt against
   * this same spec revision, produced it; an older revision's results are no evidence for a newer one.
   */
  private checkOwnership(taskId: string, revision: number, e: Evidence): void {
    if (e.kind !== 'read' && e.kind !== 'operation') return;
    const table = e.kind === 'read' ? 'tool_calls' : 'actions';
    const found = this.db
      .prepare(
        `SELECT 1 FROM ${table} x JOIN runs r ON r.id = x.run_id JOIN attempts a ON a.id = r.attempt_id
         WHERE x.call_id = ? AND r.task_id = ? AND a.task_id = ? AND a.revision = ? LIMIT 1`,
      )
      .get(e.ref, taskId, taskId, revision);
    if (!found)
      throw new TaskError(
        'foreign_evidence',
        `${e.kind} ${e.ref} is not a record of this task's revision ${revision}`,
      );
  }

  listAcceptance(
    attemptId: string,
  ): { itemId: string; status: AcceptanceStatus; evidence: Evidence[]; revision: number }[] {
    const rows = this.db
      .prepare(
        'SELECT item_id, status, evidence_json, revision FROM acceptance_results WHERE attempt_id = ? ORDER BY id',
      )
      .all(attemptId) as {
      item_id: string;
      status: AcceptanceStatus;
      evidence_json: string;
      revision: number;
    }[];
    return rows.map((r) => ({
      itemId: r.item_id,
      status: r.status,
      evidence: JSON.parse(r.evidence_json) as Evidence[],
      revision: r.revision,
    }));
  }

  /**
   * TASK-07/08/10: success only when no action of the task is preparing, started or unknown, and
   * every acceptance item of this revision passed (or is an allowed not-applicable) in this attempt.
   */
  markSucceeded(guard: AttemptGuard): AttemptGuard {
    return this.db.transaction(() => {
      const { attempt, task } = this.checkGuard(guard);
      const placeholders = UNSETTLED_ACTION_STATES.map(() => '?').join(', ');
      const unsettled = this.db
        .prepare(`SELECT COUNT(*) AS n FROM actions WHERE task_id = ? AND state IN (${placeholders})`)
        .get(task.id, ...UNSETTLED_ACTION_STATES) as { n: number };
      if (unsettled.n > 0)
        throw new TaskError(
          'unsettled_actions',
          `${unsettled.n} action(s) are preparing, started or unknown`,
        );
      const spec = this.getSpec(task.id, attempt.revision);
      const verdicts = new Map(
        this.listAcceptance(attempt.id)
          .filter((v) => v.revision === attempt.revision)
          .map((v) => [v.itemId, v.status]),
      );
      const missing = spec.acceptance.filter((item) => {
        const status = verdicts.get(item.id);
        return status !== 'passed' && status !== 'not_applicable';
      });
      if (missing.length > 0)
        throw new TaskError('insufficient_evidence', `not verified: ${missing.map((m) => m.id).join(', ')}`);
      return this.finish(guard, 'completed', 'succeeded');
    })();
  }

  /** Ends the attempt and sets the task state (never `succeeded`: use markSucceeded). */
  finishAttempt(
    guard: AttemptGuard,
    attemptStatus: Exclude<AttemptStatus, 'running' | 'superseded'>,
    taskStatus: Exclude<TaskStatus, 'succeeded'>,
  ): AttemptGuard {
    return this.db.transaction(() => {
      this.checkGuard(guard);
      return this.finish(guard, attemptStatus, taskStatus);
    })();
  }

  private finish(guard: AttemptGuard, attemptStatus: AttemptStatus, taskStatus: TaskStatus): AttemptGuard {
    const at = this.now();
    const next = this.bump(guard.attemptId, guard.version, 'status = ?, ended_at = ?', [attemptStatus, at]);
    this.db
      .prepare(
        'UPDATE tasks SET status = ?, row_version = row_version + 1, updated_at = ? WHERE current_attempt_id = ?',
      )
      .run(taskStatus, at, guard.attemptId);
    return next;
  }
}
