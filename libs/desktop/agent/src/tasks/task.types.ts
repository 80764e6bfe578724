// TASK-01..10: the agreed terms of a task, its attempts and evidence-based acceptance.
export interface AcceptanceItem {
  id: string;
  description: string;
  /** TASK-09: critical checks may never be marked not applicable. */
  critical: boolean;
}

export interface TaskSpec {
  instruction: string;
  inputs?: string[];
  scope?: string[];
  acceptance: AcceptanceItem[];
  budget?: { tier?: string; dollarCap?: number | null };
}

export type AcceptanceStatus = 'passed' | 'failed' | 'not_run' | 'not_applicable';

/** LOOP-20: listings/reads, operation records and artifact references are distinct evidence. */
export interface Evidence {
  kind: 'read' | 'operation' | 'artifact' | 'check' | 'user';
  /** Call id, action id, artifact path… owned by this task. */
  ref: string;
  /** Content digest for artifacts (TASK-06). */
  sha256?: string;
}

export type TaskStatus =
  'open' | 'running' | 'succeeded' | 'failed' | 'stopped' | 'unverified' | 'interrupted';
export type AttemptStatus = 'running' | 'completed' | 'failed' | 'stopped' | 'interrupted' | 'superseded';

export interface TaskRow {
  id: string;
  conversationId: string | null;
  status: TaskStatus;
  currentRevision: number;
  currentAttemptId: string | null;
  rowVersion: number;
}

/** TASK-03: every update names the attempt and the row version it read. */
export interface AttemptGuard {
  attemptId: string;
  version: number;
}

export type TaskErrorCode =
  | 'not_found'
  /** The attempt is not (or no longer) the task's current attempt. */
  | 'stale_attempt'
  /** The row changed since it was read. */
  | 'stale_version'
  /** TASK-07: an action is preparing, started or of unknown effect. */
  | 'unsettled_actions'
  /** TASK-05: a verdict without evidence. */
  | 'missing_evidence'
  /** TASK-09 */
  | 'critical_not_applicable'
  /** TASK-10: not every acceptance item has a passing verdict for this revision and attempt. */
  | 'insufficient_evidence'
  /** TASK-08: a read/operation record that belongs to another task or an older spec revision. */
  | 'foreign_evidence'
  | 'unknown_item';

export class TaskError extends Error {
  constructor(
    readonly code: TaskErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TaskError';
  }
}
