// CTX-03/04/05/06: decides what the next request carries, without any model call. Pure: the
// caller owns the stored records (CTX-07) and performs the folding this plan asks for.
//
// Accounting: history = earlier turns (tool results included) + the current turn's messages and
// tool calls; the current turn's tool result contents are the turn's materials, on their own
// budget. Order of the rules: mask (free) → fold into the summary (costs a model call).
import type { TrajectoryItem } from '../ports';
import type { ContextBudgets } from './budgets';
import { estimateTokens, historyTokens } from './token-estimate';

/** CTX-04: the number of recent user turns kept verbatim while they fit. */
export const RECENT_USER_TURNS = 4;

export interface IndexedItem {
  /** Position in the run's full trajectory (the stored record). */
  index: number;
  item: TrajectoryItem;
}

export interface ContextPlan {
  /** What the request carries, in order (masked or trimmed copies where noted). */
  kept: IndexedItem[];
  /** Originals to fold into the rolling summary before sending (empty: no summarization). */
  toFold: IndexedItem[];
  /** CTX-05: tool results replaced by a placeholder in this request. */
  maskedResults: number;
  /** Tool results cut to head and tail in this request (materials budget). */
  trimmedResults: number;
  /** ARCH-18: trajectory positions masked / trimmed in this request (folded ones included). */
  maskedIndexes: number[];
  trimmedIndexes: number[];
  /** CTX-04: user turns carried verbatim (whole turns, or the current message pinned alone). */
  verbatimUserTurns: number;
  /** Tokens of the kept history (summary excluded) and of the kept tool results. */
  historyTokens: number;
  toolResultTokens: number;
}

type ToolItem = Extract<TrajectoryItem, { role: 'tool' }>;

/** CTX-05: the placeholder that replaces an older tool result in the request (never in the store). */
export function maskToolResult(item: ToolItem): ToolItem {
  return {
    ...item,
    content: `[Earlier result of ${item.name} omitted from this request to save context (${item.content.length} characters). It is kept in the run record; call the tool again if you need it.]`,
  };
}

/** Keeps the head and tail of an over-long result so it fits `maxTokens`. */
export function trimToolResult(item: ToolItem, maxTokens: number): ToolItem {
  const tokens = estimateTokens(item.content);
  if (tokens <= maxTokens) return item;
  const chars = Math.max(200, Math.floor((item.content.length * maxTokens) / tokens) - 400);
  const half = Math.floor(chars / 2);
  const omitted = item.content.length - 2 * half;
  return {
    ...item,
    content: `${item.content.slice(0, half)}\n[… ${omitted} characters omitted from this request; the full result is kept in the run record …]\n${item.content.slice(-half)}`,
  };
}

function lastIndexWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (test(items[i] as T)) return i;
  return -1;
}

/** Token counts per stored item object: each step re-plans the same items, so count each once. */
const counted = new WeakMap<TrajectoryItem, { history: number; content: number }>();

function countsOf(item: TrajectoryItem): { history: number; content: number } {
  let counts = counted.get(item);
  if (!counts) {
    counts = {
      history: historyTokens(item),
      content: item.role === 'tool' ? estimateTokens(item.content) : 0,
    };
    counted.set(item, counts);
  }
  return counts;
}

export function planContext(
  visible: readonly IndexedItem[],
  budgets: ContextBudgets,
  summaryTokens: number,
): ContextPlan {
  const working = visible.map((v) => ({ ...v }));
  const currentTurn = Math.max(
    0,
    lastIndexWhere(working, (v) => v.item.role === 'user'),
  );
  // Per position: history tokens, and materials tokens (the current turn's result contents).
  const hist: number[] = [];
  const mat: number[] = [];
  const measure = (pos: number): void => {
    const { history, content } = countsOf((working[pos] as IndexedItem).item);
    const current = pos >= currentTurn;
    hist[pos] = history + (current ? 0 : content);
    mat[pos] = current ? content : 0;
  };
  working.forEach((_, pos) => measure(pos));
  const total = (values: readonly number[], from = 0): number => {
    let sum = 0;
    for (let pos = from; pos < values.length; pos += 1) sum += values[pos] as number;
    return sum;
  };
  let maskedResults = 0;
  let trimmedResults = 0;
  const maskedIndexes: number[] = [];
  const trimmedIndexes: number[] = [];
  const replace = (pos: number, item: TrajectoryItem): void => {
    (working[pos] as IndexedItem).item = item;
    measure(pos);
  };
  const mask = (pos: number): void => {
    const { item } = working[pos] as IndexedItem;
    if (item.role !== 'tool') return;
    replace(pos, maskToolResult(item));
    maskedResults += 1;
    maskedIndexes.push((working[pos] as IndexedItem).index);
  };

  // CTX-05 (a): over the history threshold, older turns' tool results are masked first.
  if (summaryTokens + total(hist) > budgets.foldThreshold)
    for (let pos = 0; pos < currentTurn; pos += 1) mask(pos);

  // CTX-03: the current turn's results stay within the materials budget — mask the oldest,
  // never those answering the latest tool calls; then trim what is still too long.
  const lastBlock = Math.max(
    currentTurn,
    lastIndexWhere(working, (v) => v.item.role === 'assistant'),
  );
  let materials = total(mat);
  for (let pos = currentTurn; pos < lastBlock && materials > budgets.toolResults; pos += 1) {
    mask(pos);
    materials = total(mat);
  }
  const latest: number[] = [];
  for (let pos = lastBlock; pos < working.length; pos += 1)
    if ((working[pos] as IndexedItem).item.role === 'tool') latest.push(pos);
  if (materials > budgets.toolResults && latest.length > 0) {
    const share = Math.floor(budgets.toolResults / latest.length);
    for (const pos of latest) {
      const item = (working[pos] as IndexedItem).item as ToolItem;
      const trimmed = trimToolResult(item, share);
      if (trimmed === item) continue;
      trimmedResults += 1;
      trimmedIndexes.push((working[pos] as IndexedItem).index);
      replace(pos, trimmed);
    }
  }

  // CTX-06: still over 3/4 of the budget → fold the oldest messages; keep the newest whole turns
  // that fit in half the budget (CTX-04), at least the current user message verbatim.
  let cut = 0;
  if (summaryTokens + total(hist) > budgets.foldThreshold) {
    // Earlier turns are cut whole (at a user message); inside the current turn, at an assistant
    // step, so every kept tool result still follows its call.
    const boundaries: number[] = [];
    for (let pos = 1; pos <= lastBlock; pos += 1) {
      const role = (working[pos] as IndexedItem).item.role;
      if (role === 'user' || (role === 'assistant' && pos > currentTurn)) boundaries.push(pos);
    }
    const suffix: number[] = new Array<number>(working.length + 1).fill(0);
    for (let pos = working.length - 1; pos >= 0; pos -= 1)
      suffix[pos] = (suffix[pos + 1] as number) + (hist[pos] as number);
    const keptTokens = (p: number): number =>
      (suffix[p] as number) + (p > currentTurn ? (hist[currentTurn] as number) : 0);
    cut = boundaries.find((p) => keptTokens(p) <= budgets.recentTurns) ?? boundaries.at(-1) ?? 0;
  }
  const pinned = cut > currentTurn;
  const keptPositions = pinned ? [currentTurn] : [];
  for (let pos = cut; pos < working.length; pos += 1) keptPositions.push(pos);
  const kept = keptPositions.map((pos) => working[pos] as IndexedItem);
  return {
    kept,
    toFold: visible.slice(0, cut).filter((_, pos) => !(pinned && pos === currentTurn)),
    maskedResults,
    trimmedResults,
    maskedIndexes,
    trimmedIndexes,
    verbatimUserTurns: kept.filter((v) => v.item.role === 'user').length,
    historyTokens: keptPositions.reduce((t, pos) => t + (hist[pos] as number), 0),
    toolResultTokens: keptPositions.reduce((t, pos) => t + (mat[pos] as number), 0),
  };
}
