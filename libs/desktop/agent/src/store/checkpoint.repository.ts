// Undo-this-turn checkpoints (CKPT-11..17): one row per turn that changed the working folder, and
// the conversation edit an undo makes (CKPT-14). Synchronous better-sqlite3; the clock is injected.
import type { AgentDb } from './agent-db';

export type CheckpointStatus = 'saving' | 'saved' | 'not_saved' | 'undone' | 'expired';

export interface CheckpointRow {
  id: string;
  runId: string;
  conversationId: string;
  workspace: string;
  status: CheckpointStatus;
  /** Why it was not saved (CKPT-12), or why it is no longer usable. */
  reason: string | null;
  fileCount: number;
  bytes: number;
  /** CKPT-13: relative paths that were not saved (rebuildable folders end with `/`). */
  notSaved: string[];
  /** The post-turn listing is written (CKPT-15 compares against it). */
  afterRecorded: boolean;
  createdAt: number;
}

/** A turn of a conversation (one run) with its checkpoint, oldest first. */
export interface TurnRow {
  runId: string;
  status: string;
  createdAt: number;
  checkpoint: CheckpointRow | null;
}

interface RawCheckpoint {
  id: string;
  run_id: string;
  conversation_id: string;
  workspace: string;
  status: CheckpointStatus;
  reason: string | null;
  file_count: number;
  bytes: number;
  not_saved_json: string;
  after_recorded: number;
  created_at: number;
}

function toRow(raw: RawCheckpoint): CheckpointRow {
  return {
    id: raw.id,
    runId: raw.run_id,
    conversationId: raw.conversation_id,
    workspace: raw.workspace,
    status: raw.status,
    reason: raw.reason,
    fileCount: raw.file_count,
    bytes: raw.bytes,
    notSaved: JSON.parse(raw.not_saved_json) as string[],
    afterRecorded: raw.after_recorded === 1,
    createdAt: raw.created_at,
  };
}

export class CheckpointRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  create(row: { id: string; runId: string; conversationId: string; workspace: string }): void {
    const at = this.now();
    this.db
      .prepare(
        `INSERT INTO turn_checkpoints (id, run_id, conversation_id, workspace, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'saving', ?, ?)`,
      )
      .run(row.id, row.runId, row.conversationId, row.workspace, at, at);
  }

  markSaved(id: string, info: { fileCount: number; bytes: number; notSaved: string[] }): void {
    this.db
      .prepare(
        `UPDATE turn_checkpoints SET status = 'saved', file_count = ?, bytes = ?, not_saved_json = ?, updated_at = ?
         WHERE id = ? AND status = 'saving'`,
      )
      .run(info.fileCount, info.bytes, JSON.stringify(info.notSaved), this.now(), id);
  }

  markNotSaved(id: string, reason: string): void {
    this.setStatus(id, 'not_saved', reason);
  }

  markAfterRecorded(id: string): void {
    this.db
      .prepare('UPDATE turn_checkpoints SET after_recorded = 1, updated_at = ? WHERE id = ?')
      .run(this.now(), id);
  }

  setStatus(id: string, status: CheckpointStatus, reason: string | null): void {
    this.db
      .prepare('UPDATE turn_checkpoints SET status = ?, reason = ?, updated_at = ? WHERE id = ?')
      .run(status, reason, this.now(), id);
  }

  get(id: string): CheckpointRow | undefined {
    const raw = this.db.prepare('SELECT * FROM turn_checkpoints WHERE id = ?').get(id) as
      RawCheckpoint | undefined;
    return raw ? toRow(raw) : undefined;
  }

  byStatus(status: CheckpointStatus): CheckpointRow[] {
    return (
      this.db.prepare('SELECT * FROM turn_checkpoints WHERE status = ?').all(status) as RawCheckpoint[]
    ).map(toRow);
  }

  /** CKPT-17: saved or unfinished checkpoints created before `cutoff`. */
  olderThan(cutoff: number): CheckpointRow[] {
    return (
      this.db
        .prepare("SELECT * FROM turn_checkpoints WHERE created_at < ? AND status IN ('saving', 'saved')")
        .all(cutoff) as RawCheckpoint[]
    ).map(toRow);
  }

  /** The conversation's turns still in it (not undone), oldest first, each with its checkpoint. */
  turns(conversationId: string): TurnRow[] {
    const runs = this.db
      .prepare(
        `SELECT id, status, created_at FROM runs WHERE conversation_id = ? AND undone_at IS NULL ORDER BY rowid`,
      )
      .all(conversationId) as { id: string; status: string; created_at: number }[];
    const checkpoints = new Map(
      (
        this.db
          .prepare('SELECT * FROM turn_checkpoints WHERE conversation_id = ?')
          .all(conversationId) as RawCheckpoint[]
      ).map((raw) => [raw.run_id, toRow(raw)]),
    );
    return runs.map((r) => ({
      runId: r.id,
      status: r.status,
      createdAt: r.created_at,
      checkpoint: checkpoints.get(r.id) ?? null,
    }));
  }

  /**
   * CKPT-14: the turns leave the conversation. Their messages (from the turn's first message on)
   * and their content (trajectory, events, steps, tool calls) are deleted; the run rows and their
   * actions stay, marked undone, as the record of what was done. Message ids are AUTOINCREMENT and
   * never reused (DATA-09). Nothing else — e.g. a rolling summary — is touched.
   */
  removeTurns(conversationId: string, runIds: readonly string[], checkpointIds: readonly string[]): number {
    return this.db.transaction(() => {
      const at = this.now();
      let removedMessages = 0;
      const inRange = `run_id IN (${runIds.map(() => '?').join(',')})`;
      const first = this.db
        .prepare(`SELECT MIN(id) AS id FROM messages WHERE conversation_id = ? AND ${inRange}`)
        .get(conversationId, ...runIds) as { id: number | null };
      // A message of a run started while the undo ran (not in the range) stays.
      if (first.id !== null)
        removedMessages = this.db
          .prepare(
            `DELETE FROM messages WHERE conversation_id = ? AND id >= ? AND (${inRange} OR run_id IS NULL)`,
          )
          .run(conversationId, first.id, ...runIds).changes;
      for (const runId of runIds) {
        for (const table of ['trajectory', 'events', 'steps', 'tool_calls'])
          this.db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
        this.db.prepare('UPDATE runs SET undone_at = ?, updated_at = ? WHERE id = ?').run(at, at, runId);
      }
      for (const id of checkpointIds)
        this.db
          .prepare("UPDATE turn_checkpoints SET status = 'undone', updated_at = ? WHERE id = ?")
          .run(at, id);
      return removedMessages;
    })();
  }
}
