// CTX-06/07/09: rolling summaries and trusted conversation settings. Summaries sit beside the
// messages (never replacing them); stored JSON is validated on the way back in.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ContextStore, StoredSummary } from '../context/context-store';
import { type ConversationSettings, DEFAULT_CONVERSATION_SETTINGS } from '../context/reference-block';
import { rollingSummarySchema } from '../context/rolling-summary';
import type { AgentDb } from './agent-db';

const idsSchema = z.array(z.number().int().positive());

/** What a settings surface may change (CTX-09): never derived from user, web or model text. */
export const conversationSettingsPatchSchema = z
  .strictObject({
    replyLanguage: z
      .string()
      .trim()
      .min(2)
      .max(35)
      .regex(/^[A-Za-z][A-Za-z0-9 -]*$/)
      .nullable(),
    localMemory: z.boolean(),
    cloudMemory: z.boolean(),
  })
  .partial();

export type ConversationSettingsPatch = z.infer<typeof conversationSettingsPatchSchema>;

/** A settings change that failed validation (CTX-09). */
export class ConversationSettingsError extends Error {
  readonly code = 'invalid_settings';
  constructor(message: string) {
    super(message);
    this.name = 'ConversationSettingsError';
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

interface RawSummary {
  summary_id: string | null;
  conversation_id: string;
  summary_json: string;
  folded_message_ids_json: string;
  model: string;
  updated_at: number;
}

interface RawSettings {
  reply_language: string | null;
  local_memory: number;
  cloud_memory: number;
}

export class ContextRepository implements ContextStore {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  getSummary(conversationId: string): StoredSummary | undefined {
    const raw = this.db
      .prepare('SELECT * FROM context_summaries WHERE conversation_id = ?')
      .get(conversationId) as RawSummary | undefined;
    if (!raw) return undefined;
    const summary = rollingSummarySchema.safeParse(parseJson(raw.summary_json));
    const ids = idsSchema.safeParse(parseJson(raw.folded_message_ids_json));
    // A damaged row is ignored: the full messages are still there (CTX-07).
    if (!summary.success || !ids.success) return undefined;
    return {
      // Rows saved before summary ids existed (schema v3) get a stable derived id.
      id: raw.summary_id ?? `v3-${raw.conversation_id}-${raw.updated_at}`,
      conversationId: raw.conversation_id,
      summary: summary.data,
      foldedMessageIds: ids.data,
      model: raw.model,
      updatedAt: raw.updated_at,
    };
  }

  saveSummary(entry: Omit<StoredSummary, 'updatedAt' | 'id'>): string {
    const summary = rollingSummarySchema.parse(entry.summary);
    const ids = idsSchema.parse(entry.foldedMessageIds);
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO context_summaries (conversation_id, summary_json, folded_message_ids_json, model, updated_at, summary_id)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET summary_json = excluded.summary_json,
           folded_message_ids_json = excluded.folded_message_ids_json, model = excluded.model,
           updated_at = excluded.updated_at, summary_id = excluded.summary_id`,
      )
      .run(entry.conversationId, JSON.stringify(summary), JSON.stringify(ids), entry.model, this.now(), id);
    return id;
  }

  /** Drops the summary: the next request is composed from the full stored messages again. */
  clearSummary(conversationId: string): void {
    this.db.prepare('DELETE FROM context_summaries WHERE conversation_id = ?').run(conversationId);
  }

  getSettings(conversationId: string): ConversationSettings {
    const raw = this.db
      .prepare(
        'SELECT reply_language, local_memory, cloud_memory FROM conversation_settings WHERE conversation_id = ?',
      )
      .get(conversationId) as RawSettings | undefined;
    if (!raw) return { ...DEFAULT_CONVERSATION_SETTINGS };
    return {
      replyLanguage: raw.reply_language,
      localMemory: raw.local_memory === 1,
      cloudMemory: raw.cloud_memory === 1,
    };
  }

  /** CTX-09: the only way settings change — a settings surface, validated strictly. */
  updateSettings(conversationId: string, patch: unknown): ConversationSettings {
    const parsed = conversationSettingsPatchSchema.safeParse(patch);
    if (!parsed.success)
      throw new ConversationSettingsError(
        `invalid conversation settings: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      );
    const next = { ...this.getSettings(conversationId), ...parsed.data };
    this.db
      .prepare(
        `INSERT INTO conversation_settings (conversation_id, reply_language, local_memory, cloud_memory, updated_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET reply_language = excluded.reply_language,
           local_memory = excluded.local_memory, cloud_memory = excluded.cloud_memory,
           updated_at = excluded.updated_at`,
      )
      .run(
        conversationId,
        next.replyLanguage,
        next.localMemory ? 1 : 0,
        next.cloudMemory ? 1 : 0,
        this.now(),
      );
    return next;
  }
}
