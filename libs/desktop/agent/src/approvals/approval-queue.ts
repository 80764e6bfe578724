// APPR-001..003, APPR-010, APPR-016: the one card queue. A card is bound to one call id and one
// kind; the first valid answer wins, later ones are rejected as already answered, and every
// subscriber (window, Inbox, Island, phone) is told the card closed. Unanswered cards expire after
// 30 minutes with status `expired`, which is not a refusal.
import type { ActionKind, Card, CardAnswer, CardOutcome, Surface } from '../ports';
import type { ApprovalRepository } from './approval.repository';
import { type SurfaceRefusal, cardOptions, isActionKind, surfaceRefusal } from './card-options';

export const CARD_EXPIRY_MS = 30 * 60_000;

export type CardResolution = CardOutcome | { status: 'cancelled' };

export type QueueEvent =
  | { type: 'card_opened'; card: Card; conversationId: string | null }
  | { type: 'card_closed'; callId: string; runId: string; resolution: CardResolution; surface?: Surface };

export type AnswerRefusal =
  | 'unknown_card'
  | 'already_answered'
  /** APPR-001: the answer names another kind than the card's own. */
  | 'kind_mismatch'
  | 'option_not_offered'
  | SurfaceRefusal;

export type AnswerResult = { ok: true; resolution: CardOutcome } | { ok: false; reason: AnswerRefusal };

export interface QueueTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: QueueTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface OpenCardInput {
  callId: string;
  runId: string;
  conversationId: string | null;
  kind: ActionKind;
  summary: string;
  taskScoped?: boolean;
}

interface Pending {
  card: Card;
  conversationId: string | null;
  timer: unknown;
  resolve: (resolution: CardResolution) => void;
}

export interface ApprovalQueueOptions {
  repository?: ApprovalRepository;
  now?: () => number;
  timers?: QueueTimers;
  expiryMs?: number;
}

export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly closed = new Set<string>();
  private readonly listeners = new Set<(event: QueueEvent) => void>();
  private readonly now: () => number;
  private readonly timers: QueueTimers;
  private readonly expiryMs: number;

  constructor(private readonly options: ApprovalQueueOptions = {}) {
    this.now = options.now ?? Date.now;
    this.timers = options.timers ?? realTimers;
    this.expiryMs = options.expiryMs ?? CARD_EXPIRY_MS;
  }

  subscribe(listener: (event: QueueEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens a card for one call and resolves when it is answered, expires or is cancelled. */
  open(input: OpenCardInput): { card: Card; resolution: Promise<CardResolution> } {
    if (this.pending.has(input.callId) || this.closed.has(input.callId)) {
      throw new Error(`a card for call ${input.callId} already exists`);
    }
    const createdAt = this.now();
    const card: Card = {
      callId: input.callId,
      runId: input.runId,
      kind: input.kind,
      summary: input.summary,
      options: cardOptions(input.kind, input.taskScoped),
      createdAt,
      expiresAt: createdAt + this.expiryMs,
    };
    let resolve!: (resolution: CardResolution) => void;
    const resolution = new Promise<CardResolution>((r) => (resolve = r));
    const timer = this.timers.setTimeout(() => this.close(card.callId, { status: 'expired' }), this.expiryMs);
    this.pending.set(card.callId, { card, conversationId: input.conversationId, timer, resolve });
    this.options.repository?.insertCard(card, input.conversationId);
    this.emit({ type: 'card_opened', card, conversationId: input.conversationId });
    return { card, resolution };
  }

  answer(answer: CardAnswer): AnswerResult {
    const entry = this.pending.get(answer.callId);
    if (!entry)
      return { ok: false, reason: this.closed.has(answer.callId) ? 'already_answered' : 'unknown_card' };
    const { card } = entry;
    if (!isActionKind(answer.kind) || answer.kind !== card.kind)
      return { ok: false, reason: 'kind_mismatch' };
    if (!card.options.includes(answer.option)) return { ok: false, reason: 'option_not_offered' };
    const refusal = surfaceRefusal(answer.surface, card.kind, answer.option, card.options);
    if (refusal) return { ok: false, reason: refusal };
    const resolution: CardOutcome =
      answer.option === 'no'
        ? { status: 'denied', ...(answer.note !== undefined ? { note: answer.note } : {}) }
        : { status: 'approved', option: answer.option };
    this.close(card.callId, resolution, answer.surface, answer.note);
    return { ok: true, resolution };
  }

  /** Stop (CKPT-08): the card closes as cancelled; nobody's answer is recorded. */
  cancel(callId: string): void {
    this.close(callId, { status: 'cancelled' });
  }

  cancelRun(runId: string): void {
    for (const entry of [...this.pending.values()])
      if (entry.card.runId === runId) this.cancel(entry.card.callId);
  }

  list(): Card[] {
    return [...this.pending.values()].map((p) => p.card);
  }

  pendingForConversation(conversationId: string): Card[] {
    return [...this.pending.values()].filter((p) => p.conversationId === conversationId).map((p) => p.card);
  }

  private close(callId: string, resolution: CardResolution, surface?: Surface, note?: string): void {
    const entry = this.pending.get(callId);
    if (!entry) return;
    this.pending.delete(callId);
    this.closed.add(callId);
    this.timers.clearTimeout(entry.timer);
    const status = resolution.status;
    this.options.repository?.closeCard(callId, status, {
      ...(resolution.status === 'approved' ? { option: resolution.option } : {}),
      ...(resolution.status === 'denied' ? { option: 'no' as const } : {}),
      ...(note !== undefined ? { note } : {}),
      ...(surface ? { surface } : {}),
    });
    entry.resolve(resolution);
    this.emit({
      type: 'card_closed',
      callId,
      runId: entry.card.runId,
      resolution,
      ...(surface ? { surface } : {}),
    });
  }

  private emit(event: QueueEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
