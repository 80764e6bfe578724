// ARCH-18 / MEM-10: the record of every model request of a run — which endpoint received it and
// which items went in. Ids, counts and budgets only: never message, memory or material text, and
// never a key (the endpoint is an origin).
import type { ToolSource } from '../ports';
import type { AgentDb } from './agent-db';

export type ModelRequestPurpose = 'step' | 'summary';
export type ModelRequestOutcome = 'sent' | 'ok' | 'failed' | 'broken' | 'stopped';

/** A tool result the request carried (a material of the turn, CTX-03). */
export interface IncludedMaterial {
  /** Position in the run's stored trajectory. */
  item: number;
  callId: string;
  tool: string;
  treatment: 'verbatim' | 'trimmed';
  /** Stored items the result carries, e.g. the vault asset revisions `recall` returned. */
  sources: ToolSource[];
}

export interface IncludedItems {
  /** Positions in the run's stored trajectory carried by the request (verbatim, masked or trimmed). */
  items: number[];
  /** Stored conversation messages among them. */
  messageIds: number[];
  /** The rolling summary version carried in the reference block, if any. */
  summaryId: string | null;
  /** True when the summary carried was a fallback that was never stored. */
  unsavedSummary: boolean;
  materials: IncludedMaterial[];
  /** Tool results replaced by a placeholder (their content was not sent). */
  masked: number[];
}

export interface ModelRequestInput {
  runId: string;
  step: number;
  purpose: ModelRequestPurpose;
  provider: string;
  /** `scheme://host:port`, or null when the provider does not say. */
  endpointOrigin: string | null;
  model: string;
  included: IncludedItems;
  /** The context manager's report (budgets, counts); null when no context manager ran. */
  context: Record<string, unknown> | null;
  outcome?: ModelRequestOutcome;
}

export interface ModelRequestRow {
  id: number;
  runId: string;
  step: number;
  purpose: ModelRequestPurpose;
  endpoint: { provider: string; origin: string | null };
  model: string;
  included: IncludedItems;
  context: Record<string, unknown> | null;
  attempts: number;
  outcome: ModelRequestOutcome;
  createdAt: number;
}

interface RawRow {
  id: number;
  run_id: string;
  step: number;
  purpose: ModelRequestPurpose;
  provider: string;
  endpoint_origin: string | null;
  model: string;
  included_json: string;
  context_json: string | null;
  attempts: number;
  outcome: ModelRequestOutcome;
  created_at: number;
}

export class ModelRequestRepository {
  constructor(
    private readonly db: AgentDb,
    private readonly now: () => number = Date.now,
  ) {}

  add(input: ModelRequestInput): number {
    const info = this.db
      .prepare(
        `INSERT INTO model_requests (run_id, step, purpose, provider, endpoint_origin, model, included_json,
           context_json, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.runId,
        input.step,
        input.purpose,
        input.provider,
        input.endpointOrigin,
        input.model,
        JSON.stringify(input.included),
        input.context === null ? null : JSON.stringify(input.context),
        input.outcome ?? 'sent',
        this.now(),
      );
    return Number(info.lastInsertRowid);
  }

  /** A retry resends the same request to the same endpoint (LOOP-21). */
  countAttempt(id: number): void {
    this.db.prepare('UPDATE model_requests SET attempts = attempts + 1 WHERE id = ?').run(id);
  }

  setOutcome(id: number, outcome: ModelRequestOutcome): void {
    this.db.prepare('UPDATE model_requests SET outcome = ? WHERE id = ?').run(outcome, id);
  }

  list(runId: string): ModelRequestRow[] {
    const rows = this.db
      .prepare('SELECT * FROM model_requests WHERE run_id = ? ORDER BY id')
      .all(runId) as RawRow[];
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      step: r.step,
      purpose: r.purpose,
      endpoint: { provider: r.provider, origin: r.endpoint_origin },
      model: r.model,
      included: JSON.parse(r.included_json) as IncludedItems,
      context: r.context_json === null ? null : (JSON.parse(r.context_json) as Record<string, unknown>),
      attempts: r.attempts,
      outcome: r.outcome,
      createdAt: r.created_at,
    }));
  }
}
