export {
  Budget,
  type BudgetMeasure,
  type BudgetOptions,
  type BudgetState,
  type BudgetUsage,
  type BudgetVerdict,
} from './budget';
export { NoProgressDetector, type NoProgressOptions } from './no-progress';
export {
  BUDGET_TIERS,
  DEFAULT_DOLLAR_CAP,
  DOLLAR_WRAP_UP_FRACTION,
  HARD_FACTOR,
  SOFT_LIMITS,
  costOf,
  hardLimits,
  type BudgetLimits,
  type BudgetTier,
  type PriceTable,
} from './tiers';
