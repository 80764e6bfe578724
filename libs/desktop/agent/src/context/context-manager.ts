// CTX-01..09: composes each model request's history for one run — a bounded rolling summary plus
// recent messages — and places the per-turn reference block first. The run's trajectory (and
// the database) stay complete; only the request changes (CTX-07).
import type { ModelProvider, TrajectoryItem, Usage } from '../ports';
import { type ContextBudgets, contextBudgets } from './budgets';
import type { ContextWindowInfo } from './context-window';
import type { ContextStore } from './context-store';
import { type IndexedItem, planContext } from './plan-context';
import {
  type ConversationSettings,
  buildReferenceBlock,
  latestUserText,
  latestPlan,
  withReferenceBlock,
} from './reference-block';
import { type RollingSummary, renderSummary } from './rolling-summary';
import { summarize } from './summarizer';
import { estimateTokens } from './token-estimate';

export interface ContextManagerOptions {
  conversationId: string;
  /** The turn's model: its window sets the budgets (CTX-02) and it writes the summary (CTX-06). */
  model: string;
  window: ContextWindowInfo;
  provider: ModelProvider;
  /** PROV-05: the summary role's model; without it the turn's model writes the summary. */
  summarizer?: { provider: ModelProvider; model: string };
  store: ContextStore;
  /** Stored message id of each leading trajectory item (history, then the turn's message). */
  messageIds: readonly number[];
  /** Charges the summarization request to the run's budget. */
  onUsage?: (usage: Usage) => void;
  onFailedRequest?: () => void;
  /** LES-02: lessons recalled for this turn. */
  lessons?: () => readonly string[];
  /** TURN-07: the UI language (BCP 47), used when the user's message has no words. Default "en". */
  uiLanguage?: string;
}

export interface ComposedContext {
  trajectory: TrajectoryItem[];
  report: ContextReport;
}

/** ARCH-18: what went into one request, and why. */
export interface ContextReport {
  budgets: ContextBudgets;
  historyTokens: number;
  toolResultTokens: number;
  summaryTokens: number;
  systemTokens: number;
  toolSchemaTokens: number;
  /** CTX-03: budgets exceeded by parts that are never cut here (the fixed prefix, schemas). */
  overBudget: ('system' | 'toolSchemas')[];
  maskedResults: number;
  trimmedResults: number;
  verbatimUserTurns: number;
  /** Items folded for this request; `summarySource` says how. */
  folded: number;
  summarySource: 'none' | 'stored' | 'model' | 'fallback';
  fallbackReason?: string;
  settings: ConversationSettings;
  referenceBlock: boolean;
  /** ARCH-18: positions in the run's trajectory this request carries, in order. */
  items: number[];
  /** Of those, tool results masked (content not sent) and trimmed (head and tail sent). */
  masked: number[];
  trimmed: number[];
  /** Stored conversation messages among the carried items. */
  messageIds: number[];
  /** The stored summary version in the reference block; null when none or an unsaved fallback. */
  summaryId: string | null;
  /** CTX-06: the summarization request made while composing this one, if any. */
  summarized?: SummaryRequestReport;
}

/** ARCH-18: what one summarization request sent (the items folded and the summary it extended). */
export interface SummaryRequestReport {
  items: number[];
  messageIds: number[];
  previousSummaryId: string | null;
  source: 'model' | 'fallback';
  /** False when the request failed (no usage came back). */
  answered: boolean;
  usage: Usage | null;
  /** PROV-05 / ARCH-18: where the summarization request went (the summary role's model or the turn's). */
  writer: { provider: string; origin: string | null; model: string };
}

export interface ComposeInput {
  trajectory: readonly TrajectoryItem[];
  system: string;
  toolSchemasJson: string;
  signal: AbortSignal;
}

export class ContextManager {
  private readonly folded = new Set<number>();
  private summary: RollingSummary | null;
  private summarySource: ContextReport['summarySource'];
  private foldedMessageIds: number[];
  private summaryId: string | null;
  /** Message ids folded in this run and not yet covered by a persisted summary. */
  private readonly unsavedIds = new Set<number>();

  constructor(private readonly options: ContextManagerOptions) {
    const stored = options.store.getSummary(options.conversationId);
    this.summary = stored?.summary ?? null;
    this.summarySource = stored ? 'stored' : 'none';
    this.foldedMessageIds = stored?.foldedMessageIds ?? [];
    this.summaryId = stored?.id ?? null;
  }

  async compose(input: ComposeInput): Promise<ComposedContext> {
    const { options } = this;
    const budgets = contextBudgets(options.window);
    // CTX-09: trusted settings come from the database on every request, never from any text.
    const settings = options.store.getSettings(options.conversationId);
    const visible: IndexedItem[] = input.trajectory
      .map((item, index) => ({ index, item }))
      .filter((v) => !this.folded.has(v.index));
    const plan = planContext(visible, budgets, this.summaryTokens());
    const summarized =
      plan.toFold.length > 0 ? await this.fold(plan.toFold, budgets, input.signal) : undefined;
    const fallbackReason = summarized?.reason;
    const block = buildReferenceBlock({
      summary: this.summary,
      plan: latestPlan(input.trajectory),
      lessons: options.lessons?.() ?? [],
      settings,
      latestUserMessage: latestUserText(input.trajectory),
      uiLanguage: options.uiLanguage,
    });
    const systemTokens = estimateTokens(input.system);
    const toolSchemaTokens = estimateTokens(input.toolSchemasJson);
    const overBudget: ContextReport['overBudget'] = [];
    if (systemTokens > budgets.system) overBudget.push('system');
    if (toolSchemaTokens > budgets.toolSchemas) overBudget.push('toolSchemas');
    return {
      // CTX-08: the reference block opens the request; it is never pushed to the stored record.
      trajectory: withReferenceBlock(
        block,
        plan.kept.map((v) => v.item),
      ),
      report: {
        budgets,
        historyTokens: plan.historyTokens,
        toolResultTokens: plan.toolResultTokens,
        summaryTokens: this.summaryTokens(),
        systemTokens,
        toolSchemaTokens,
        overBudget,
        maskedResults: plan.maskedResults,
        trimmedResults: plan.trimmedResults,
        verbatimUserTurns: plan.verbatimUserTurns,
        folded: this.folded.size,
        summarySource: this.summarySource,
        ...(fallbackReason !== undefined ? { fallbackReason } : {}),
        settings,
        referenceBlock: block !== null,
        ...this.carried(plan),
        summaryId: this.summary ? this.summaryId : null,
        ...(summarized ? { summarized: summarized.report } : {}),
      },
    };
  }

  /** ARCH-18: the trajectory positions and stored message ids a request carries. */
  private carried(
    plan: ReturnType<typeof planContext>,
  ): Pick<ContextReport, 'items' | 'masked' | 'trimmed' | 'messageIds'> {
    const items = plan.kept.map((v) => v.index);
    const kept = new Set(items);
    return {
      items,
      masked: plan.maskedIndexes.filter((i) => kept.has(i)),
      trimmed: plan.trimmedIndexes.filter((i) => kept.has(i)),
      messageIds: this.messageIdsOf(items),
    };
  }

  private messageIdsOf(indexes: readonly number[]): number[] {
    const ids: number[] = [];
    for (const index of indexes) {
      const id = this.options.messageIds[index];
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  private summaryTokens(): number {
    return this.summary ? estimateTokens(renderSummary(this.summary)) : 0;
  }

  /** CTX-06/07: folds `items`; `reason` is set when the model could not write the summary. */
  private async fold(
    items: readonly IndexedItem[],
    budgets: ContextBudgets,
    signal: AbortSignal,
  ): Promise<{ reason?: string; report: SummaryRequestReport }> {
    const { options } = this;
    const previousSummaryId = this.summary ? this.summaryId : null;
    const writer = options.summarizer ?? { provider: options.provider, model: options.model };
    const outcome = await summarize({
      provider: writer.provider,
      model: writer.model,
      previous: this.summary,
      items: items.map((v) => v.item),
      maxTokens: budgets.summary,
      signal,
    });
    if (outcome.usage) options.onUsage?.(outcome.usage);
    else options.onFailedRequest?.();
    const report: SummaryRequestReport = {
      items: items.map((v) => v.index),
      messageIds: this.messageIdsOf(items.map((v) => v.index)),
      previousSummaryId,
      source: outcome.source,
      answered: outcome.usage !== null,
      usage: outcome.usage,
      writer: { provider: writer.provider.kind, origin: writer.provider.origin ?? null, model: writer.model },
    };
    this.summary = outcome.summary;
    this.summarySource = outcome.source;
    for (const v of items) {
      this.folded.add(v.index);
      const id = options.messageIds[v.index];
      if (id !== undefined) this.unsavedIds.add(id);
    }
    if (outcome.source === 'fallback') {
      this.summaryId = null; // the summary carried now exists only in this request
      return { reason: outcome.reason, report };
    }
    // Only a model-written summary is persisted; after a fallback alone, the next turn starts
    // again from the complete stored messages (CTX-07).
    this.foldedMessageIds = [...new Set([...this.foldedMessageIds, ...this.unsavedIds])].sort(
      (a, b) => a - b,
    );
    this.unsavedIds.clear();
    this.summaryId = options.store.saveSummary({
      conversationId: options.conversationId,
      summary: outcome.summary,
      foldedMessageIds: this.foldedMessageIds,
      model: writer.model,
    });
    return { report };
  }
}
