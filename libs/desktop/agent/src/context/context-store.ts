// The persistence the context module needs (implemented by the agent store). CTX-07: only the
// summary and the ids of the messages it covers are written; the messages themselves never change.
import type { RollingSummary } from './rolling-summary';
import type { ConversationSettings } from './reference-block';

export interface StoredSummary {
  /** ARCH-18: names this version of the summary in request records (new on every save). */
  id: string;
  conversationId: string;
  summary: RollingSummary;
  /** Ids of the stored messages this summary stands for in later requests. */
  foldedMessageIds: number[];
  model: string;
  updatedAt: number;
}

export interface ContextStore {
  getSummary(conversationId: string): StoredSummary | undefined;
  /** Returns the saved version's id. */
  saveSummary(entry: Omit<StoredSummary, 'updatedAt' | 'id'>): string;
  /** CTX-09: trusted settings, read from the database on every turn. */
  getSettings(conversationId: string): ConversationSettings;
}
