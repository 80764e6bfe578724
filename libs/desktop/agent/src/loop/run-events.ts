// Typed events of a run, fanned out by the run registry (CKPT-03) and persisted in order (CKPT-02).
import type { BudgetUsage } from '../budget/budget';
import type { Card, Surface, Usage } from '../ports';
import type { CardResolution } from '../approvals/approval-queue';
import type { RunMode, RunStatus } from '../store/run.repository';
import type { TaskStatus } from '../tasks/task.types';

export type ToolCallState =
  | 'requested'
  | 'awaiting_approval'
  | 'running'
  | 'done'
  | 'error'
  /** Failed a LOOP-04 gate (bad JSON, schema, unavailable, budget, no progress): never executed. */
  | 'rejected'
  /** Needs a card but nobody can answer (APPR-017), or the user said No / nobody answered. */
  | 'refused'
  /** Not started because a steering message arrived (LOOP-18) or the run stopped. */
  | 'skipped'
  /** The batch was cut off by the output limit (LOOP-06). */
  | 'not_executed';

export type NoticeCode =
  | 'wrap_up'
  | 'budget_stop'
  | 'retrying'
  | 'stream_interrupted'
  | 'truncated'
  | 'tool_excluded'
  | 'no_progress'
  | 'still_working'
  | 'provider_error'
  /** CKPT-11/12: the turn's first change saved the folder, or the turn shows "Not saved". */
  | 'checkpoint_saved'
  | 'checkpoint_not_saved'
  /** LOOP-11: the answer claims an action no successful tool result of this run supports. */
  | 'unverified_claim'
  /** CKPT-09: earlier side-effect operations of unknown effect need the user's check. */
  | 'needs_check';

export type RunEventBody =
  | {
      type: 'run_started';
      conversationId: string;
      taskId: string | null;
      mode: RunMode;
      model: string;
      tier: string;
    }
  /** The turn's message, or a message steered into the running reply (TURN-02). */
  | { type: 'user_message'; text: string; steered: boolean }
  | { type: 'step_started'; step: number; wrapUp: boolean }
  /** LOOP-14: text streams as it is generated. */
  | { type: 'text_delta'; step: number; delta: string }
  /** LOOP-07: the text of this step accompanied tool calls; it is narration, not the answer. */
  | { type: 'narration'; step: number; text: string }
  | { type: 'tool_state'; callId: string; tool: string; state: ToolCallState; detail?: string }
  | { type: 'card_opened'; card: Card }
  | { type: 'card_closed'; callId: string; resolution: CardResolution; surface?: Surface }
  /** TURN-01: at least every 15 s while the run is live. */
  | { type: 'working'; elapsedMs: number }
  | { type: 'notice'; code: NoticeCode; message: string }
  | {
      type: 'usage';
      step: number;
      usage: Usage;
      costUsd: number;
      total: BudgetUsage;
      /** Set for a request made for the context (CTX-06 summary), not for a step's answer. */
      purpose?: 'summary';
    }
  | { type: 'task_progress'; taskId: string; attemptId: string; status: TaskStatus; detail?: string }
  | { type: 'run_finished'; status: Exclude<RunStatus, 'running'>; answer: string };

export type RunEventType = RunEventBody['type'];

export type RunEvent = RunEventBody & { runId: string; seq: number; at: number };
