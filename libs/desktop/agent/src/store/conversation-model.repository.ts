// PROV-04: the conversation's chosen model, a configured model's name kept beside the other
// trusted conversation settings (CTX-09). Written only through a settings surface, never by text.
import type { AgentDb } from './agent-db';

export class ConversationModelRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  /** The chosen model's name, or null: the `main` role's model. */
  get(conversationId: string): string | null {
    const row = this.db
      .prepare('SELECT model_name FROM conversation_settings WHERE conversation_id = ?')
      .get(conversationId) as { model_name: string | null } | undefined;
    return row?.model_name ?? null;
  }

  /** Sets (or with null clears) the choice; the other settings keep their values or defaults. */
  set(conversationId: string, modelName: string | null): void {
    this.db
      .prepare(
        `INSERT INTO conversation_settings (conversation_id, model_name, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET model_name = excluded.model_name,
           updated_at = excluded.updated_at`,
      )
      .run(conversationId, modelName, this.now());
  }
}
