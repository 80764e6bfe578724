// Persistence of cards (the one queue, APPR-010) and remembered grants (APPR-005).
import type { ActionKind, Card, CardOption } from '../ports';
import type { AgentDb } from '../store/agent-db';

export type GrantScope = 'task' | 'conversation' | 'always';
export type CardStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

export interface GrantQuery {
  kind: ActionKind;
  subject: string;
  conversationId: string | null;
  taskId: string | null;
}

export class ApprovalRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  insertCard(card: Card, conversationId: string | null): void {
    this.db
      .prepare(
        `INSERT INTO cards (call_id, run_id, conversation_id, kind, summary, options_json, status, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      )
      .run(
        card.callId,
        card.runId,
        conversationId,
        card.kind,
        card.summary,
        JSON.stringify(card.options),
        card.createdAt,
        card.expiresAt,
      );
  }

  closeCard(
    callId: string,
    status: Exclude<CardStatus, 'pending'>,
    answer: { option?: CardOption; note?: string; surface?: string } = {},
  ): void {
    this.db
      .prepare(
        "UPDATE cards SET status = ?, option = ?, note = ?, surface = ?, closed_at = ? WHERE call_id = ? AND status = 'pending'",
      )
      .run(status, answer.option ?? null, answer.note ?? null, answer.surface ?? null, this.now(), callId);
  }

  cardStatus(callId: string): CardStatus | undefined {
    const row = this.db.prepare('SELECT status FROM cards WHERE call_id = ?').get(callId) as
      { status: CardStatus } | undefined;
    return row?.status;
  }

  addGrant(scope: GrantScope, query: GrantQuery): void {
    this.db
      .prepare(
        'INSERT INTO grants (scope, kind, subject, conversation_id, task_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        scope,
        query.kind,
        query.subject,
        scope === 'always' ? null : query.conversationId,
        scope === 'task' ? query.taskId : null,
        this.now(),
      );
  }

  findGrant(query: GrantQuery): GrantScope | undefined {
    const row = this.db
      .prepare(
        `SELECT scope FROM grants WHERE revoked_at IS NULL AND kind = ? AND (subject = ? OR subject = '*') AND (
           scope = 'always'
           OR (scope = 'conversation' AND conversation_id IS NOT NULL AND conversation_id = ?)
           OR (scope = 'task' AND task_id IS NOT NULL AND task_id = ?)
         ) ORDER BY id LIMIT 1`,
      )
      .get(query.kind, query.subject, query.conversationId, query.taskId) as
      { scope: GrantScope } | undefined;
    return row?.scope;
  }

  /** CKPT-10 / SIDE-004: a backup restore revokes earlier operation permissions. */
  revokeAll(): void {
    this.db.prepare('UPDATE grants SET revoked_at = ? WHERE revoked_at IS NULL').run(this.now());
  }
}
