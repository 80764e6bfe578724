// BUD-11/12 and PROV-12/13: known prices and context windows for a few well-known models. Unknown
// and local models are unpriced (they add nothing to the dollar total; token limits still apply)
// and report an unknown context window.
import type { ModelPrice, Usage } from '../ports/model.port';

export interface ModelInfo {
  price?: ModelPrice;
  contextWindow?: number;
}

/** Date the list prices below were taken from the providers' public pricing pages. */
export const PRICE_TABLE_DATE = '2025-10';

const p = (inputPerMTok: number, outputPerMTok: number, contextWindow: number): ModelInfo => ({
  price: { inputPerMTok, outputPerMTok },
  contextWindow,
});

/** Keyed by the normalised model name (see `normalizeModelName`). */
export const MODEL_TABLE: Readonly<Record<string, ModelInfo>> = {
  // Anthropic
  'claude-opus-4-1': p(15, 75, 200_000),
  'claude-opus-4': p(15, 75, 200_000),
  'claude-sonnet-4-5': p(3, 15, 200_000),
  'claude-sonnet-4': p(3, 15, 200_000),
  'claude-3-7-sonnet': p(3, 15, 200_000),
  'claude-haiku-4-5': p(1, 5, 200_000),
  'claude-3-5-haiku': p(0.8, 4, 200_000),
  // OpenAI
  'gpt-5': p(1.25, 10, 400_000),
  'gpt-5-mini': p(0.25, 2, 400_000),
  'gpt-5-nano': p(0.05, 0.4, 400_000),
  'gpt-4.1': p(2, 8, 1_047_576),
  'gpt-4.1-mini': p(0.4, 1.6, 1_047_576),
  'gpt-4.1-nano': p(0.1, 0.4, 1_047_576),
  'gpt-4o': p(2.5, 10, 128_000),
  'gpt-4o-mini': p(0.15, 0.6, 128_000),
  o3: p(2, 8, 200_000),
  'o4-mini': p(1.1, 4.4, 200_000),
  // Google (prompts ≤ 200k tokens)
  'gemini-2.5-pro': p(1.25, 10, 1_048_576),
  'gemini-2.5-flash': p(0.3, 2.5, 1_048_576),
  'gemini-2.5-flash-lite': p(0.1, 0.4, 1_048_576),
  'gemini-2.0-flash': p(0.1, 0.4, 1_048_576),
};

/** Lower-cases, drops a router prefix (`openai/`, `models/`) and date / `-latest` suffixes. */
export function normalizeModelName(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/-latest$/, '')
    .replace(/-\d{4}-\d{2}-\d{2}$/, '')
    .replace(/-\d{8}$/, '');
}

export function modelInfo(model: string): ModelInfo {
  return MODEL_TABLE[normalizeModelName(model)] ?? {};
}

/** Dollars per million tokens, or undefined when the model is unpriced (BUD-12). */
export function priceOf(model: string): ModelPrice | undefined {
  return modelInfo(model).price;
}

/** PROV-13: the model's context window in tokens, or undefined when unknown (CTX-02). */
export function contextWindowOf(model: string): number | undefined {
  return modelInfo(model).contextWindow;
}

/** Dollar cost of one response; 0 for unpriced models (BUD-12). */
export function costUsd(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}
