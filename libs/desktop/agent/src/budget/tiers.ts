// BUD-03 and the spec's decision table: soft values per tier; hard = 1.5 × soft.
import type { ModelPrice, Usage } from '../ports';

export type BudgetTier = 'light' | 'standard' | 'deep';
export const BUDGET_TIERS: readonly BudgetTier[] = ['light', 'standard', 'deep'];

export interface BudgetLimits {
  requests: number;
  toolCalls: number;
  tokens: number;
  timeMs: number;
}

const MINUTE = 60_000;

export const SOFT_LIMITS: Readonly<Record<BudgetTier, BudgetLimits>> = {
  light: { requests: 20, toolCalls: 40, tokens: 200_000, timeMs: 10 * MINUTE },
  standard: { requests: 40, toolCalls: 80, tokens: 600_000, timeMs: 30 * MINUTE },
  deep: { requests: 100, toolCalls: 200, tokens: 2_000_000, timeMs: 90 * MINUTE },
};

export const HARD_FACTOR = 1.5;

export function hardLimits(soft: BudgetLimits): BudgetLimits {
  return {
    requests: Math.floor(soft.requests * HARD_FACTOR),
    toolCalls: Math.floor(soft.toolCalls * HARD_FACTOR),
    tokens: Math.floor(soft.tokens * HARD_FACTOR),
    timeMs: Math.floor(soft.timeMs * HARD_FACTOR),
  };
}

/** BUD-11: per-task dollar cap, ON by default at $2; wrap-up from 2/3 of it. */
export const DEFAULT_DOLLAR_CAP = 2;
export const DOLLAR_WRAP_UP_FRACTION = 2 / 3;

/** Model id → price. Unknown (local, unpriced) models add nothing (BUD-12). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export function costOf(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}
