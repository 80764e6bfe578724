// PROV-04/05: which configured model a conversation uses. The choice is a trusted setting (set
// only through the local API's settings surface, never from text); each new run of the
// conversation resolves its provider from it, and the summary role model writes summaries.
import { z } from 'zod';
import {
  type ModelCatalog,
  type ModelListing,
  type ModelRole,
  type ResolvedModel,
  UnknownModelError,
} from '../providers/model-catalog';
import type { AgentDb } from '../store/agent-db';
import { ConversationModelRepository } from '../store/conversation-model.repository';

/** The body a settings surface sends: a configured name, or null for the main role's model. */
export const conversationModelBodySchema = z.strictObject({
  model: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)
    .nullable(),
});

export interface ConversationModelView {
  conversationId: string;
  /** The chosen name, or null: the main role's model. */
  chosen: string | null;
  /** The name the next run will use. */
  effective: string;
}

export class ConversationModels {
  private readonly repo: ConversationModelRepository;

  constructor(
    private readonly catalog: ModelCatalog,
    private readonly db: AgentDb,
    private readonly runs: { ensureConversation(id: string): void },
    now: () => number = Date.now,
  ) {
    this.repo = new ConversationModelRepository(db, now);
  }

  list(): { models: ModelListing[]; roles: Partial<Record<ModelRole, string>> } {
    const roles: Partial<Record<ModelRole, string>> = {};
    for (const role of ['main', 'summary', 'judgment'] as const) {
      const name = this.catalog.roleName(role);
      if (name !== undefined) roles[role] = name;
    }
    return { models: this.catalog.list(), roles };
  }

  get(conversationId: string): ConversationModelView {
    const chosen = this.repo.get(conversationId);
    return { conversationId, chosen, effective: chosen ?? this.catalog.roleName('main') ?? '' };
  }

  /** Throws UnknownModelError for a name that is not configured (nothing is stored then). */
  set(conversationId: string, modelName: string | null): ConversationModelView {
    if (modelName !== null && !this.catalog.has(modelName)) throw new UnknownModelError(modelName);
    this.db.transaction(() => {
      this.runs.ensureConversation(conversationId);
      this.repo.set(conversationId, modelName);
    })();
    return this.get(conversationId);
  }

  /** The conversation's chosen model, or undefined when it chose none (the run's own model). */
  forConversation(conversationId: string): ResolvedModel | undefined {
    const chosen = this.repo.get(conversationId);
    return chosen === null ? undefined : this.catalog.resolve(chosen);
  }

  /** PROV-05: the model that writes rolling summaries, when a summary role is configured. */
  summaryModel(): ResolvedModel | undefined {
    return this.catalog.forRole('summary');
  }
}
