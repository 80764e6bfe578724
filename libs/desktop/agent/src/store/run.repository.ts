// "What was said" (conversations, messages) and "what was actually done" (runs, steps, events,
// actions) — DATA-04/07. Synchronous better-sqlite3 statements; callers inject the clock.
import type { AgentDb } from './agent-db';

export type RunMode = 'interactive' | 'headless' | 'scheduled';
export type RunStatus =
  | 'running'
  /** Delivered an answer. */
  | 'succeeded'
  /** A soft limit was reached and the run delivered what it had (BUD-04). */
  | 'wrapped_up'
  /** A hard limit or the dollar cap stopped the run (BUD-05/11). */
  | 'budget_exceeded'
  | 'stopped'
  | 'failed'
  /** Stream broke (LOOP-15) or the daemon restarted (CKPT-05): continue only when the user asks. */
  | 'interrupted';

export type ActionState = 'preparing' | 'started' | 'confirmed' | 'failed' | 'unknown' | 'cancelled';
export const UNSETTLED_ACTION_STATES: readonly ActionState[] = ['preparing', 'started', 'unknown'];

export interface RunRow {
  id: string;
  conversationId: string;
  taskId: string | null;
  attemptId: string | null;
  mode: RunMode;
  status: RunStatus;
  provider: string;
  model: string;
  tier: string;
  answer: string | null;
  checkpoint: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

export interface ActionRow {
  id: number;
  runId: string;
  taskId: string | null;
  callId: string;
  tool: string;
  kind: string | null;
  summary: string;
  state: ActionState;
}

export interface ToolCallRow {
  callId: string;
  stepIndex: number;
  seq: number;
  tool: string;
  argsJson: string;
  outcome: string;
  detail: string;
}

interface RawRun {
  id: string;
  conversation_id: string;
  task_id: string | null;
  attempt_id: string | null;
  mode: RunMode;
  status: RunStatus;
  provider: string;
  model: string;
  tier: string;
  answer: string | null;
  checkpoint_json: string;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

function toRun(raw: RawRun): RunRow {
  return {
    id: raw.id,
    conversationId: raw.conversation_id,
    taskId: raw.task_id,
    attemptId: raw.attempt_id,
    mode: raw.mode,
    status: raw.status,
    provider: raw.provider,
    model: raw.model,
    tier: raw.tier,
    answer: raw.answer,
    checkpoint: JSON.parse(raw.checkpoint_json) as Record<string, unknown>,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    endedAt: raw.ended_at,
  };
}

export class RunRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  ensureConversation(id: string, title: string | null = null): void {
    this.db
      .prepare('INSERT OR IGNORE INTO conversations (id, title, created_at) VALUES (?, ?, ?)')
      .run(id, title, this.now());
  }

  /** DATA-09: ids come from AUTOINCREMENT and are never reused. */
  addMessage(conversationId: string, role: 'user' | 'assistant', text: string, runId: string | null): number {
    const info = this.db
      .prepare(
        'INSERT INTO messages (conversation_id, run_id, role, text, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(conversationId, runId, role, text, this.now());
    return Number(info.lastInsertRowid);
  }

  deleteMessage(id: number): void {
    this.db.prepare('DELETE FROM messages WHERE id = ?').run(id);
  }

  listMessages(conversationId: string): { id: number; role: 'user' | 'assistant'; text: string }[] {
    return this.db
      .prepare('SELECT id, role, text FROM messages WHERE conversation_id = ? ORDER BY id')
      .all(conversationId) as { id: number; role: 'user' | 'assistant'; text: string }[];
  }

  createRun(
    run: Omit<RunRow, 'createdAt' | 'updatedAt' | 'endedAt' | 'answer' | 'checkpoint' | 'status'>,
  ): void {
    const at = this.now();
    this.db
      .prepare(
        `INSERT INTO runs (id, conversation_id, task_id, attempt_id, mode, status, provider, model, tier, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
      )
      .run(
        run.id,
        run.conversationId,
        run.taskId,
        run.attemptId,
        run.mode,
        run.provider,
        run.model,
        run.tier,
        at,
        at,
      );
  }

  getRun(id: string): RunRow | undefined {
    const raw = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RawRun | undefined;
    return raw ? toRun(raw) : undefined;
  }

  /** CKPT-01: progress and used budget, written before and after each tool execution (LOOP-08). */
  checkpoint(id: string, checkpoint: Record<string, unknown>): void {
    this.db
      .prepare("UPDATE runs SET checkpoint_json = ?, updated_at = ? WHERE id = ? AND status = 'running'")
      .run(JSON.stringify(checkpoint), this.now(), id);
  }

  /** Ends a running run; returns false when it had already ended (a late writer loses: CKPT-08). */
  finishRun(id: string, status: Exclude<RunStatus, 'running'>, answer: string | null): boolean {
    const at = this.now();
    const info = this.db
      .prepare(
        "UPDATE runs SET status = ?, answer = ?, updated_at = ?, ended_at = ? WHERE id = ? AND status = 'running'",
      )
      .run(status, answer, at, at, id);
    return info.changes === 1;
  }

  /**
   * CKPT-05 / SIDE-003: on startup, unfinished runs become `interrupted` (resumed only when the user
   * asks); actions that had started become `unknown` and are never re-run blindly; actions that never
   * started are `cancelled`.
   */
  recoverAfterRestart(): { interruptedRuns: string[]; unknownActions: number } {
    return this.db.transaction(() => {
      const at = this.now();
      const runs = this.db.prepare("SELECT id FROM runs WHERE status = 'running'").all() as { id: string }[];
      this.db
        .prepare(
          "UPDATE runs SET status = 'interrupted', updated_at = ?, ended_at = ? WHERE status = 'running'",
        )
        .run(at, at);
      const unknown = this.db
        .prepare("UPDATE actions SET state = 'unknown', updated_at = ? WHERE state = 'started'")
        .run(at).changes;
      this.db
        .prepare("UPDATE actions SET state = 'cancelled', updated_at = ? WHERE state = 'preparing'")
        .run(at);
      this.db
        .prepare(
          "UPDATE attempts SET status = 'interrupted', ended_at = ?, row_version = row_version + 1 WHERE status = 'running'",
        )
        .run(at);
      this.db
        .prepare(
          "UPDATE tasks SET status = 'interrupted', updated_at = ?, row_version = row_version + 1 WHERE status = 'running'",
        )
        .run(at);
      this.db
        .prepare("UPDATE cards SET status = 'cancelled', closed_at = ? WHERE status = 'pending'")
        .run(at);
      return { interruptedRuns: runs.map((r) => r.id), unknownActions: unknown };
    })();
  }

  addStep(
    runId: string,
    stepIndex: number,
    step: { narration: string; stopReason: string; inputTokens: number; outputTokens: number },
  ): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO steps (run_id, step_index, narration, stop_reason, input_tokens, output_tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        stepIndex,
        step.narration,
        step.stopReason,
        step.inputTokens,
        step.outputTokens,
        this.now(),
      );
  }

  recordToolCall(runId: string, row: ToolCallRow): void {
    this.db
      .prepare(
        `INSERT INTO tool_calls (run_id, call_id, step_index, seq, tool, args_json, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, call_id) DO UPDATE SET outcome = excluded.outcome, detail = excluded.detail`,
      )
      .run(runId, row.callId, row.stepIndex, row.seq, row.tool, row.argsJson, row.outcome, row.detail);
  }

  listToolCalls(runId: string): ToolCallRow[] {
    return this.db
      .prepare(
        `SELECT call_id AS callId, step_index AS stepIndex, seq, tool, args_json AS argsJson, outcome, detail
         FROM tool_calls WHERE run_id = ? ORDER BY seq`,
      )
      .all(runId) as ToolCallRow[];
  }

  appendTrajectory(runId: string, seq: number, item: unknown): void {
    this.db
      .prepare('INSERT INTO trajectory (run_id, seq, item_json) VALUES (?, ?, ?)')
      .run(runId, seq, JSON.stringify(item));
  }

  loadTrajectory(runId: string): unknown[] {
    const rows = this.db
      .prepare('SELECT item_json FROM trajectory WHERE run_id = ? ORDER BY seq')
      .all(runId) as {
      item_json: string;
    }[];
    return rows.map((r) => JSON.parse(r.item_json) as unknown);
  }

  appendEvent(runId: string, seq: number, type: string, payload: unknown, at: number): void {
    this.db
      .prepare('INSERT INTO events (run_id, seq, type, payload_json, at) VALUES (?, ?, ?, ?, ?)')
      .run(runId, seq, type, JSON.stringify(payload), at);
  }

  /** CKPT-02: events in order, for replay by a reconnecting UI. */
  loadEvents(runId: string, afterSeq = 0): { seq: number; type: string; payload: unknown; at: number }[] {
    const rows = this.db
      .prepare('SELECT seq, type, payload_json, at FROM events WHERE run_id = ? AND seq > ? ORDER BY seq')
      .all(runId, afterSeq) as { seq: number; type: string; payload_json: string; at: number }[];
    return rows.map((r) => ({
      seq: r.seq,
      type: r.type,
      payload: JSON.parse(r.payload_json) as unknown,
      at: r.at,
    }));
  }

  createAction(a: {
    runId: string;
    taskId: string | null;
    callId: string;
    tool: string;
    kind: string | null;
    summary: string;
  }): void {
    const at = this.now();
    this.db
      .prepare(
        `INSERT INTO actions (run_id, task_id, call_id, tool, kind, summary, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'preparing', ?, ?)`,
      )
      .run(a.runId, a.taskId, a.callId, a.tool, a.kind, a.summary, at, at);
  }

  setActionState(runId: string, callId: string, state: ActionState): void {
    this.db
      .prepare('UPDATE actions SET state = ?, updated_at = ? WHERE run_id = ? AND call_id = ?')
      .run(state, this.now(), runId, callId);
  }

  listActions(filter: { runId?: string; taskId?: string }): ActionRow[] {
    const where = filter.runId ? 'run_id = ?' : 'task_id = ?';
    return this.db
      .prepare(
        `SELECT id, run_id AS runId, task_id AS taskId, call_id AS callId, tool, kind, summary, state
         FROM actions WHERE ${where} ORDER BY id`,
      )
      .all(filter.runId ?? filter.taskId) as ActionRow[];
  }

  /** APPR-017: a step an unattended run refused, listed in the Inbox. */
  addInboxItem(item: {
    runId: string;
    callId: string;
    tool: string;
    kind: string;
    summary: string;
    reason: string;
  }): void {
    this.db
      .prepare(
        'INSERT INTO inbox_items (run_id, call_id, tool, kind, summary, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(item.runId, item.callId, item.tool, item.kind, item.summary, item.reason, this.now());
  }

  listInboxItems(): {
    runId: string;
    callId: string;
    tool: string;
    kind: string;
    summary: string;
    reason: string;
  }[] {
    return this.db
      .prepare(
        'SELECT run_id AS runId, call_id AS callId, tool, kind, summary, reason FROM inbox_items ORDER BY id',
      )
      .all() as {
      runId: string;
      callId: string;
      tool: string;
      kind: string;
      summary: string;
      reason: string;
    }[];
  }
}
