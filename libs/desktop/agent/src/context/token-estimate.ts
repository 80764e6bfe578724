// CTX-02/03: a local, dependency-free token estimate (no tokenizer download, no network call).
// Approximation: ASCII text averages about 4 characters per token in the BPE tokenizers of the
// supported providers; other scripts (Japanese, Chinese, emoji…) are counted as 1 token per code
// point, which over-counts slightly. Erring high keeps the request under the real window.
import type { TrajectoryItem } from '../ports';

/** Structural tokens a provider adds around each message (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii += 1;
    // A surrogate pair is one code point: count only its high half.
    else if (code < 0xdc00 || code > 0xdfff) other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * History tokens of one item (CTX-03): a tool result's content is NOT counted here — results are
 * budgeted separately (see `toolResultTokens`); only its framing counts towards history.
 */
export function historyTokens(item: TrajectoryItem): number {
  switch (item.role) {
    case 'user':
      return MESSAGE_OVERHEAD_TOKENS + estimateTokens(item.text);
    case 'assistant':
      return (
        MESSAGE_OVERHEAD_TOKENS +
        estimateTokens(item.text) +
        item.toolCalls.reduce((sum, c) => sum + estimateTokens(c.name) + estimateTokens(c.argumentsJson), 0)
      );
    case 'tool':
      return MESSAGE_OVERHEAD_TOKENS + estimateTokens(item.name) + estimateTokens(item.callId);
  }
}

/** Tokens of a tool result's content (the materials budget, CTX-03). */
export function toolResultTokens(item: TrajectoryItem): number {
  return item.role === 'tool' ? estimateTokens(item.content) : 0;
}

export function sumTokens(
  items: readonly TrajectoryItem[],
  measure: (item: TrajectoryItem) => number,
): number {
  return items.reduce((sum, item) => sum + measure(item), 0);
}
