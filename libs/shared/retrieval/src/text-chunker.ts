// RAG-7: split body text into chunks of at most `maxChars` characters that overlap by about `overlap`.
// "Character" means one Unicode code point (never a UTF-16 unit). Chunk edges are always grapheme-cluster
// boundaries; the end prefers a paragraph break, then a sentence boundary, then a word boundary, then any
// grapheme boundary. Offsets are UTF-8 byte offsets into the original body (RAG-12).
import {
  BOUNDARY_GRAPHEME,
  BOUNDARY_PARAGRAPH,
  BOUNDARY_SENTENCE,
  BOUNDARY_WORD,
  windowRanks,
} from './chunk-boundaries';
import { RetrievalError } from './retrieval.errors';

export const DEFAULT_MAX_CHARS = 768;
export const DEFAULT_OVERLAP = 128;

export interface ChunkOptions {
  /** Hard upper bound in code points (default 768). */
  maxChars?: number;
  /** Target overlap in code points (default 128); must be below maxChars / 2. */
  overlap?: number;
}

export interface TextChunk {
  /** Exactly `body` between the offsets, never normalised or segmented. */
  text: string;
  ordinal: number;
  /** UTF-8 byte offsets into the body as encoded by TextEncoder. */
  byteStart: number;
  byteEnd: number;
}

/** Code point and UTF-8 byte counts before each UTF-16 index (the inside of a surrogate pair is never used). */
function prefixCounts(text: string): { cps: Uint32Array; bytes: Uint32Array } {
  const cps = new Uint32Array(text.length + 1);
  const bytes = new Uint32Array(text.length + 1);
  let cp = 0;
  let byte = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i) as number;
    const width = code > 0xffff ? 2 : 1;
    // A lone surrogate is encoded by TextEncoder as U+FFFD (3 bytes).
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code > 0xffff ? 4 : 3;
    cps[i] = cp;
    bytes[i] = byte;
    if (width === 2) {
      cps[i + 1] = cp;
      bytes[i + 1] = byte;
    }
    cp += 1;
    byte += size;
    i += width;
  }
  cps[text.length] = cp;
  bytes[text.length] = byte;
  return { cps, bytes };
}

function checkOptions(options: ChunkOptions): { maxChars: number; overlap: number } {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const overlap = options.overlap ?? DEFAULT_OVERLAP;
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new RetrievalError('invalid_argument', 'maxChars must be a positive integer');
  }
  if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap * 2 >= maxChars) {
    throw new RetrievalError('invalid_argument', 'overlap must be an integer in [0, maxChars / 2)');
  }
  return { maxChars, overlap };
}

export function chunkText(body: string, options: ChunkOptions = {}): TextChunk[] {
  const { maxChars, overlap } = checkOptions(options);
  if (body.trim() === '') return [];
  const { cps, bytes } = prefixCounts(body);
  const cpAt = (i: number): number => cps[i] as number;
  // Boundary ranks of the current window [start, limit]; rebuilt per chunk (see windowRanks).
  let ranks: Uint8Array = new Uint8Array(0);
  let rankBase = 0;
  const rankAt = (i: number): number => ranks[i - rankBase] ?? 0;
  const length = body.length;
  const minBreak = Math.floor(maxChars / 2);
  const chunks: TextChunk[] = [];
  let start = 0;

  for (;;) {
    if (cpAt(length) - cpAt(start) <= maxChars) {
      chunks.push(make(start, length));
      return chunks;
    }
    // The furthest code-point start that keeps the chunk within maxChars.
    let limit = start;
    while (limit < length) {
      const next = limit + ((body.codePointAt(limit) as number) > 0xffff ? 2 : 1);
      if (cpAt(next) - cpAt(start) > maxChars) break;
      limit = next;
    }
    ranks = windowRanks(body, start, limit);
    rankBase = start;
    const end = pickEnd(start, limit);
    chunks.push(make(start, end));
    start = pickNextStart(start, end);
  }

  function pickEnd(from: number, limit: number): number {
    for (const rank of [BOUNDARY_PARAGRAPH, BOUNDARY_SENTENCE, BOUNDARY_WORD]) {
      for (let i = limit; i > from && cpAt(i) - cpAt(from) >= minBreak; i -= 1) {
        if (rankAt(i) >= rank) return i;
      }
    }
    for (let i = limit; i > from; i -= 1) if (rankAt(i) >= BOUNDARY_GRAPHEME) return i;
    // One grapheme cluster longer than maxChars (e.g. hundreds of stacked combining marks): the hard
    // limit wins and the cluster is cut between code points.
    return limit;
  }

  function pickNextStart(from: number, end: number): number {
    if (overlap === 0) return end;
    let first = end;
    while (first - 1 > from && cpAt(end) - cpAt(first - 1) <= overlap) first -= 1;
    const nearEnough = (i: number): boolean => cpAt(end) - cpAt(i) >= Math.ceil(overlap / 2);
    for (const rank of [BOUNDARY_PARAGRAPH, BOUNDARY_SENTENCE, BOUNDARY_WORD]) {
      for (let i = first; i < end && nearEnough(i); i += 1) if (rankAt(i) >= rank) return i;
    }
    for (let i = first; i < end; i += 1) if (rankAt(i) >= BOUNDARY_GRAPHEME) return i;
    return end;
  }

  function make(from: number, to: number): TextChunk {
    return {
      text: body.slice(from, to),
      ordinal: chunks.length,
      byteStart: bytes[from] as number,
      byteEnd: bytes[to] as number,
    };
  }
}
