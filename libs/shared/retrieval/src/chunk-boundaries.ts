// Where a chunk may start or end (RAG-7). Every candidate is a grapheme-cluster boundary; stronger kinds
// (word, sentence, paragraph) are only ever raised on positions that are already grapheme boundaries.

export const BOUNDARY_NONE = 0;
export const BOUNDARY_GRAPHEME = 1;
export const BOUNDARY_WORD = 2;
export const BOUNDARY_SENTENCE = 3;
export const BOUNDARY_PARAGRAPH = 4;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
/** A blank line (two line breaks with only spaces between); the boundary is after the following whitespace. */
const PARAGRAPH_BREAK = /\r?\n[ \t]*\r?\n\s*/g;
const WHITESPACE_ONLY = /^\s+$/u;

/**
 * Context past the end of a window. Grapheme rules look ahead one code point; sentence rules may look
 * further (". " then a lowercase word), so a generous margin keeps window results equal to whole-text ones.
 */
export const WINDOW_MARGIN = 256;

/**
 * `ranks[i]` (for UTF-16 index i, 0..length) is the strongest boundary kind at i, or BOUNDARY_NONE.
 * Word boundaries are the starts of non-whitespace word segments (a chunk then starts at a word, not a space).
 *
 * Intl.Segmenter in Node 20 (V8 + ICU) costs O(n) per segment, so segmenting a whole long body is
 * quadratic: callers segment bounded windows (`windowRanks`) instead.
 */
export function boundaryRanks(text: string): Uint8Array {
  const ranks = new Uint8Array(text.length + 1);
  for (const g of graphemes.segment(text)) ranks[g.index] = BOUNDARY_GRAPHEME;
  ranks[text.length] = BOUNDARY_GRAPHEME;
  const raise = (index: number, rank: number): void => {
    const current = ranks[index] ?? BOUNDARY_NONE;
    if (current !== BOUNDARY_NONE && current < rank) ranks[index] = rank;
  };
  for (const w of words.segment(text)) if (!WHITESPACE_ONLY.test(w.segment)) raise(w.index, BOUNDARY_WORD);
  for (const s of sentences.segment(text)) raise(s.index, BOUNDARY_SENTENCE);
  for (const m of text.matchAll(PARAGRAPH_BREAK)) raise(m.index + m[0].length, BOUNDARY_PARAGRAPH);
  return ranks;
}

/**
 * Boundary ranks for positions `from..to` of `body`, as `ranks[i - from]`. `from` must be a grapheme boundary
 * of the body (chunk starts are). The window is segmented with WINDOW_MARGIN code units of context after
 * `to`; grapheme breaks depend only on the text before a position plus one code point after it, so inside the
 * window they equal the whole-text breaks. Word and sentence breaks are preferences and may differ at most
 * near the window edges.
 */
export function windowRanks(body: string, from: number, to: number): Uint8Array {
  const end = Math.min(body.length, to + WINDOW_MARGIN);
  const ranks = boundaryRanks(body.slice(from, end));
  if (end < body.length) ranks[end - from] = BOUNDARY_NONE; // the cut is not a real boundary
  return ranks.subarray(0, to - from + 1);
}

/** Grapheme clusters of `text` (used by tests and callers that check chunk edges). */
export function graphemeStarts(text: string): number[] {
  return Array.from(graphemes.segment(text), (g) => g.index);
}
