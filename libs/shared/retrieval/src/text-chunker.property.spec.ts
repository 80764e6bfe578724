// Property tests for the RAG-7 / RAG-12 chunker invariants: exact UTF-8 offsets, coverage of the whole
// body, the code-point limit, and grapheme safety.
import fc from 'fast-check';
import { graphemeStarts } from './chunk-boundaries';
import { chunkText } from './text-chunker';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Pieces chosen to stress boundaries; no piece is longer than 7 code points. */
const piece = fc.constantFrom(
  'a',
  'word',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '. ',
  '! ',
  '? ',
  '。',
  '！',
  '？',
  '、',
  '東京都',
  'で',
  '会議',
  '预算',
  '北京',
  '한국어',
  'é',
  'e\u0301',
  '\u0301',
  '👨‍👩‍👧‍👦',
  '🇯🇵',
  '👋🏽',
  '𝒜',
  '\u1100\u1161\u11a8',
  'Ω',
  '-',
  '"',
  '\r\n',
  '\t',
);
const body = fc.array(piece, { maxLength: 400 }).map((parts) => parts.join(''));
const options = fc.integer({ min: 16, max: 200 }).chain((maxChars) =>
  fc.record({
    maxChars: fc.constant(maxChars),
    overlap: fc.integer({ min: 0, max: Math.ceil(maxChars / 2) - 1 }),
  }),
);

const cpLength = (s: string): number => [...s].length;

describe('chunkText properties (RAG-7, RAG-12)', () => {
  it('offsets slice the UTF-8 body exactly, chunks are ordered and cover all of it', () => {
    fc.assert(
      fc.property(body, options, (text, opts) => {
        const chunks = chunkText(text, opts);
        const bytes = encoder.encode(text);
        if (text.trim() === '') return chunks.length === 0;
        expect(chunks[0]!.byteStart).toBe(0);
        expect(chunks.at(-1)!.byteEnd).toBe(bytes.length);
        chunks.forEach((c, i) => {
          expect(c.ordinal).toBe(i);
          expect(decoder.decode(bytes.slice(c.byteStart, c.byteEnd))).toBe(c.text);
          expect(c.byteEnd).toBeGreaterThan(c.byteStart);
          if (i > 0) {
            const prev = chunks[i - 1]!;
            expect(c.byteStart).toBeGreaterThan(prev.byteStart); // progress
            expect(c.byteStart).toBeLessThanOrEqual(prev.byteEnd); // no gap: full coverage
            expect(c.byteEnd).toBeGreaterThan(prev.byteEnd);
          }
        });
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('every chunk has at most maxChars code points and its edges are grapheme boundaries', () => {
    fc.assert(
      fc.property(body, options, (text, opts) => {
        const chunks = chunkText(text, opts);
        const starts = new Set([...graphemeStarts(text), text.length]);
        const longest = Math.max(
          0,
          ...graphemeStarts(text).map((s, i, all) => cpLength(text.slice(s, all[i + 1]))),
        );
        const bytes = encoder.encode(text);
        for (const c of chunks) {
          expect(cpLength(c.text)).toBeLessThanOrEqual(opts.maxChars);
          if (longest <= opts.maxChars) {
            const from = decoder.decode(bytes.slice(0, c.byteStart)).length;
            expect(starts.has(from)).toBe(true);
            expect(starts.has(from + c.text.length)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('overlap never exceeds the requested overlap', () => {
    fc.assert(
      fc.property(body, options, (text, opts) => {
        const chunks = chunkText(text, opts);
        const bytes = encoder.encode(text);
        for (let i = 1; i < chunks.length; i += 1) {
          const shared = decoder.decode(bytes.slice(chunks[i]!.byteStart, chunks[i - 1]!.byteEnd));
          expect(cpLength(shared)).toBeLessThanOrEqual(opts.overlap);
        }
      }),
      { numRuns: 200 },
    );
  });
});
