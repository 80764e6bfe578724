// CTX-02/03: the per-turn budgets, all derived from that turn's model window. The history budget
// covers conversation history only; system instructions, tool schemas and tool results (the
// materials of the turn) have their own budgets, and the rolling summary its own length limit.
import { type ContextWindowInfo, effectiveWindow } from './context-window';

export const HISTORY_SHARE = 0.4;
export const HISTORY_MIN_TOKENS = 3_000;
export const HISTORY_MAX_TOKENS = 24_000;

export interface ContextBudgets {
  /** The window the budgets come from (CTX-02 defaults applied). */
  window: number;
  /** CTX-02: user/assistant history (tool calls included, tool result contents excluded). */
  history: number;
  /** CTX-06: history above this folds older messages into the summary. */
  foldThreshold: number;
  /** CTX-04: the verbatim recent user turns must fit in this. */
  recentTurns: number;
  /** CTX-03: the rolling summary's own length limit. */
  summary: number;
  /** CTX-03: tool results (materials) carried in one request. */
  toolResults: number;
  /** CTX-03: system instructions (measured and reported; the fixed prefix is never cut). */
  system: number;
  /** CTX-03: tool schemas offered in one request (measured and reported). */
  toolSchemas: number;
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** CTX-02: 40% of the window, clamped to [3,000, 24,000]. */
export function historyBudget(window: ContextWindowInfo): number {
  return Math.floor(clamp(effectiveWindow(window) * HISTORY_SHARE, HISTORY_MIN_TOKENS, HISTORY_MAX_TOKENS));
}

export function contextBudgets(window: ContextWindowInfo): ContextBudgets {
  const size = effectiveWindow(window);
  const history = historyBudget(window);
  return {
    window: size,
    history,
    foldThreshold: Math.floor((history * 3) / 4),
    recentTurns: Math.floor(history / 2),
    summary: Math.min(2_000, Math.floor(history / 4)),
    toolResults: Math.floor(clamp(size * 0.25, 2_000, 16_000)),
    system: Math.floor(clamp(size * 0.05, 1_000, 4_000)),
    toolSchemas: Math.floor(clamp(size * 0.1, 1_500, 8_000)),
  };
}
