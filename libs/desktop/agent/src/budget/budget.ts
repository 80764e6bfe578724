// BUD-01..13: one budget per run/task. Usage is charged after each response and limits are
// checked before the next request (BUD-09); soft → wrap-up, hard → stop. Card waits are excluded
// from execution time (BUD-10).
import type { Usage } from '../ports';
import {
  type BudgetLimits,
  type BudgetTier,
  DEFAULT_DOLLAR_CAP,
  DOLLAR_WRAP_UP_FRACTION,
  type PriceTable,
  SOFT_LIMITS,
  costOf,
  hardLimits,
} from './tiers';

export type BudgetMeasure = 'requests' | 'toolCalls' | 'tokens' | 'timeMs' | 'dollars';
export type BudgetState = 'ok' | 'wrap_up' | 'stop';

export interface BudgetVerdict {
  state: BudgetState;
  /** Measures at or over their soft (wrap_up) or hard (stop) limit. */
  measures: BudgetMeasure[];
}

export interface BudgetUsage {
  requests: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  timeMs: number;
  dollars: number;
}

export interface BudgetOptions {
  tier?: BudgetTier;
  /** Override the tier's soft values (tests, settings). Hard stays 1.5 × soft. */
  soft?: Partial<BudgetLimits>;
  prices?: PriceTable;
  /** null turns the dollar cap off (Settings); default $2 (BUD-11). */
  dollarCap?: number | null;
  now?: () => number;
  /** BUD-13: counts carried over from an earlier attempt of the same task. */
  carried?: Partial<BudgetUsage>;
}

export class Budget {
  readonly soft: BudgetLimits;
  readonly hard: BudgetLimits;
  readonly dollarCap: number | null;
  private readonly prices: PriceTable;
  private readonly now: () => number;
  private used: BudgetUsage;
  /** Start of the current counting interval; null while paused (card wait, stopped). */
  private runningSince: number | null = null;
  private pauses = 0;

  constructor(options: BudgetOptions = {}) {
    this.soft = { ...SOFT_LIMITS[options.tier ?? 'standard'], ...options.soft };
    this.hard = hardLimits(this.soft);
    this.dollarCap = options.dollarCap === undefined ? DEFAULT_DOLLAR_CAP : options.dollarCap;
    this.prices = options.prices ?? {};
    this.now = options.now ?? Date.now;
    this.used = {
      requests: 0,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      timeMs: 0,
      dollars: 0,
      ...options.carried,
    };
  }

  start(): void {
    if (this.runningSince === null && this.pauses === 0) this.runningSince = this.now();
  }

  /** BUD-10: waiting on a card does not count. Nested pauses (several cards) are counted. */
  pause(): void {
    this.pauses += 1;
    if (this.runningSince !== null) {
      this.used.timeMs += this.now() - this.runningSince;
      this.runningSince = null;
    }
  }

  resume(): void {
    this.pauses = Math.max(0, this.pauses - 1);
    if (this.pauses === 0 && this.runningSince === null) this.runningSince = this.now();
  }

  stopClock(): void {
    if (this.runningSince !== null) {
      this.used.timeMs += this.now() - this.runningSince;
      this.runningSince = null;
    }
  }

  elapsedMs(): number {
    return this.used.timeMs + (this.runningSince === null ? 0 : this.now() - this.runningSince);
  }

  /** Milliseconds until the hard time limit (TOOL-21: a command never runs beyond it). */
  remainingMs(): number {
    return Math.max(0, this.hard.timeMs - this.elapsedMs());
  }

  /** BUD-09/12: charge a response's usage after it arrives; returns its dollar cost. */
  chargeResponse(model: string, usage: Usage): number {
    this.used.requests += 1;
    this.used.inputTokens += usage.inputTokens;
    this.used.outputTokens += usage.outputTokens;
    const cost = costOf(usage, this.prices[model]);
    this.used.dollars += cost;
    return cost;
  }

  /** A request that failed without usage (retries count too: BUD-06). */
  chargeFailedRequest(): void {
    this.used.requests += 1;
  }

  chargeToolCall(): void {
    this.used.toolCalls += 1;
  }

  usage(): BudgetUsage {
    return { ...this.used, timeMs: this.elapsedMs() };
  }

  /** Checked before each model request (BUD-09) and before each tool call (LOOP-04). */
  check(): BudgetVerdict {
    const u = this.usage();
    const values: Record<Exclude<BudgetMeasure, 'dollars'>, number> = {
      requests: u.requests,
      toolCalls: u.toolCalls,
      tokens: u.inputTokens + u.outputTokens,
      timeMs: u.timeMs,
    };
    const hard: BudgetMeasure[] = [];
    const soft: BudgetMeasure[] = [];
    for (const key of Object.keys(values) as (keyof typeof values)[]) {
      if (values[key] >= this.hard[key]) hard.push(key);
      else if (values[key] >= this.soft[key]) soft.push(key);
    }
    if (this.dollarCap !== null) {
      if (u.dollars >= this.dollarCap) hard.push('dollars');
      else if (u.dollars >= this.dollarCap * DOLLAR_WRAP_UP_FRACTION) soft.push('dollars');
    }
    if (hard.length > 0) return { state: 'stop', measures: hard };
    if (soft.length > 0) return { state: 'wrap_up', measures: soft };
    return { state: 'ok', measures: [] };
  }

  /** LOOP-04 budget re-check for one more tool call. */
  allowsToolCall(): boolean {
    return this.used.toolCalls < this.hard.toolCalls && this.check().state !== 'stop';
  }
}
