// CKPT-06/09, SIDE-003: operations that were sent but never answered are of unknown effect. They are
// listed for the user's check (only side-effect operations are ever recorded as actions; pure reads
// never are), and an identical operation is not sent again until the earlier one is reconciled.
import type { AgentDb } from '../store/agent-db';

export interface UnknownEffectAction {
  runId: string;
  callId: string;
  tool: string;
  kind: string | null;
  /** The card line of the operation (its command, path, recipient…). */
  summary: string;
}

export class ReconcileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReconcileError';
  }
}

const SELECT = `SELECT a.run_id AS runId, a.call_id AS callId, a.tool, a.kind, a.summary
  FROM actions a JOIN runs r ON r.id = a.run_id
  WHERE r.conversation_id = ? AND a.state = 'unknown'`;

export class UnknownEffects {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  /** CKPT-09: the operations of this conversation that need the user's check. */
  needsCheck(conversationId: string): UnknownEffectAction[] {
    return this.db.prepare(`${SELECT} ORDER BY a.id`).all(conversationId) as UnknownEffectAction[];
  }

  /** CKPT-06: the unreconciled earlier operation a new call would resend, if any. */
  blocking(conversationId: string, tool: string, summary: string): UnknownEffectAction | undefined {
    return this.db
      .prepare(`${SELECT} AND a.tool = ? AND a.summary = ? ORDER BY a.id LIMIT 1`)
      .get(conversationId, tool, summary) as UnknownEffectAction | undefined;
  }

  /** CKPT-06: the user (or a check) settles what happened; only unknown-effect actions change. */
  reconcile(runId: string, callId: string, outcome: 'confirmed' | 'failed'): void {
    const info = this.db
      .prepare(
        "UPDATE actions SET state = ?, updated_at = ? WHERE run_id = ? AND call_id = ? AND state = 'unknown'",
      )
      .run(outcome, this.now(), runId, callId);
    if (info.changes !== 1)
      throw new ReconcileError(`no operation of unknown effect for call ${callId} in run ${runId}`);
  }
}
