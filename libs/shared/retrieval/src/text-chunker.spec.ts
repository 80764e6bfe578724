// RAG-7 (limits, overlap, Unicode-safe boundaries) and RAG-12 (original UTF-8 offsets).
import { graphemeStarts } from './chunk-boundaries';
import { buildChunkRecords, chunkIdOf } from './chunk-records';
import { isRetrievalError } from './retrieval.errors';
import { chunkText, type TextChunk } from './text-chunker';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const cpLength = (s: string): number => [...s].length;

function expectExactOffsets(body: string, chunks: readonly TextChunk[]): void {
  const bytes = encoder.encode(body);
  for (const chunk of chunks) {
    expect(decoder.decode(bytes.slice(chunk.byteStart, chunk.byteEnd))).toBe(chunk.text);
  }
}

/** Every chunk edge is a grapheme-cluster boundary of the whole body. */
function expectGraphemeSafe(body: string, chunks: readonly TextChunk[]): void {
  const starts = new Set([...graphemeStarts(body), body.length]);
  const bytes = encoder.encode(body);
  for (const chunk of chunks) {
    const from = decoder.decode(bytes.slice(0, chunk.byteStart)).length;
    expect(starts.has(from)).toBe(true);
    expect(starts.has(from + chunk.text.length)).toBe(true);
  }
}

describe('chunkText (RAG-7)', () => {
  const sentence = 'The quarterly budget was discussed at length by the whole team. ';
  const body = sentence.repeat(60);

  it('keeps every chunk within 768 code points and covers the body start to end', () => {
    const chunks = chunkText(body);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(cpLength(c.text)).toBeLessThanOrEqual(768);
    expect(chunks[0]!.byteStart).toBe(0);
    expect(chunks.at(-1)!.byteEnd).toBe(encoder.encode(body).length);
    chunks.forEach((c, i) => expect(c.ordinal).toBe(i));
  });

  it('overlaps consecutive chunks by about 128 code points, starting at a sentence', () => {
    const chunks = chunkText(body);
    for (let i = 1; i < chunks.length; i += 1) {
      const overlap = chunks[i - 1]!.byteEnd - chunks[i]!.byteStart; // ASCII: bytes = code points
      expect(overlap).toBeGreaterThanOrEqual(64);
      expect(overlap).toBeLessThanOrEqual(128);
      expect(chunks[i]!.text.startsWith('The quarterly')).toBe(true);
    }
  });

  it('ends chunks at sentence boundaries when a sentence ends in the window', () => {
    for (const c of chunkText(body).slice(0, -1)) expect(c.text.endsWith('team. ')).toBe(true);
  });

  it('prefers a paragraph break over a later sentence boundary', () => {
    const para = 'Alpha beta gamma. '.repeat(25) + '\n\n' + 'Delta epsilon zeta. '.repeat(40);
    const first = chunkText(para)[0]!;
    expect(first.text.endsWith('\n\n')).toBe(true);
    expect(cpLength(first.text)).toBe(25 * 18 + 2);
  });

  it('falls back to word boundaries when there is no sentence end', () => {
    const words = 'lorem ipsum dolor sit amet '.repeat(60);
    for (const c of chunkText(words).slice(0, -1)) expect(c.text).toMatch(/ $/);
    for (const c of chunkText(words).slice(1)) expect(c.text).toMatch(/^[a-z]/);
  });

  it('honours a smaller maxChars / overlap and rejects bad options', () => {
    const chunks = chunkText(body, { maxChars: 100, overlap: 20 });
    for (const c of chunks) expect(cpLength(c.text)).toBeLessThanOrEqual(100);
    expect(() => chunkText(body, { maxChars: 100, overlap: 50 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => chunkText(body, { maxChars: 0 })).toThrow();
  });

  it('returns no chunks for an empty or blank body and one chunk for a short body', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\t ')).toEqual([]);
    expect(chunkText('Hello.')).toEqual([{ text: 'Hello.', ordinal: 0, byteStart: 0, byteEnd: 6 }]);
  });

  it('counts characters as code points, not UTF-16 units', () => {
    const astral = '𝒜'.repeat(768); // 768 code points, 1536 UTF-16 units
    const chunks = chunkText(astral);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.byteEnd).toBe(768 * 4);
  });

  describe('never splits a grapheme cluster', () => {
    const cases: [string, string][] = [
      ['ZWJ family emoji', '👨‍👩‍👧‍👦'],
      ['flags', '🇯🇵🇫🇷'],
      ['combining accents', 'e\u0301\u0323'],
      ['Hangul jamo', '\u1100\u1161\u11a8'],
      ['skin-tone emoji', '👋🏽'],
    ];
    it.each(cases)('%s', (_name, unit) => {
      const text = unit.repeat(Math.ceil(200 / cpLength(unit)));
      for (const maxChars of [7, 10, 13, 50]) {
        const chunks = chunkText(text, { maxChars, overlap: 2 });
        expectGraphemeSafe(text, chunks);
        expectExactOffsets(text, chunks);
        for (const c of chunks) expect(cpLength(c.text)).toBeLessThanOrEqual(maxChars);
      }
    });

    it('cuts inside a cluster only when one cluster alone exceeds maxChars', () => {
      const zalgo = 'a' + '\u0301'.repeat(30);
      const chunks = chunkText(zalgo, { maxChars: 10, overlap: 0 });
      for (const c of chunks) expect(cpLength(c.text)).toBeLessThanOrEqual(10);
      expect(chunks.map((c) => c.text).join('')).toBe(zalgo);
    });
  });

  it('byte offsets slice the original UTF-8 body exactly (mixed scripts, emoji, astral)', () => {
    const mixed = 'Café déjà vu 🇯🇵 東京都で会議。 预算 👨‍👩‍👧 𝒜 Ελληνικά. '.repeat(40);
    const chunks = chunkText(mixed, { maxChars: 90, overlap: 20 });
    expectExactOffsets(mixed, chunks);
    expectGraphemeSafe(mixed, chunks);
  });

  it('stays linear on long bodies (Intl.Segmenter is only run on bounded windows)', () => {
    const long = 'The quarterly budget was discussed at length. 東京都で開かれた会議。 '.repeat(8000); // 232k units
    const started = performance.now();
    const chunks = chunkText(long);
    // Whole-body segmentation took minutes here (quadratic); windows take well under a second.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(chunks.length).toBeGreaterThan(300);
    expect(chunks.at(-1)!.byteEnd).toBe(encoder.encode(long).length);
  });

  it('chunks Japanese at 。 sentence boundaries', () => {
    const ja = '東京都で開かれた会議では来年度の予算について話し合いました。'.repeat(40);
    const chunks = chunkText(ja, { maxChars: 100, overlap: 40 }); // sentences are 30 code points
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks.slice(0, -1)) expect(c.text.endsWith('。')).toBe(true);
    for (const c of chunks.slice(1)) expect(c.text.startsWith('東京都')).toBe(true);
    expectExactOffsets(ja, chunks);
  });

  it('chunks Chinese at ！ and ？ and mixed text at sentence boundaries', () => {
    const zh = '我们今天在北京讨论了季度预算！南京市长江大桥很有名吗？'.repeat(30);
    for (const c of chunkText(zh, { maxChars: 60, overlap: 10 }).slice(0, -1))
      expect(c.text).toMatch(/[！？]$/);
    const mixedText = 'The roadmap was approved. 路线图已经批准了。 ロードマップは承認されました。 '.repeat(
      20,
    );
    const chunks = chunkText(mixedText, { maxChars: 120, overlap: 20 });
    for (const c of chunks.slice(0, -1)) expect(c.text).toMatch(/[.。] $/);
    expectExactOffsets(mixedText, chunks);
  });
});

describe('chunk ids and records (RAG-12)', () => {
  it('is lowercase hex SHA-256 over the domain-separated revision, range and text', () => {
    const id = chunkIdOf('rev-1', 0, 5, 'hello');
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(chunkIdOf('rev-1', 0, 5, 'hello')).toBe(id);
    expect(chunkIdOf('rev-2', 0, 5, 'hello')).not.toBe(id);
    expect(chunkIdOf('rev-1', 1, 5, 'hello')).not.toBe(id);
    expect(chunkIdOf('rev-1', 0, 6, 'hello')).not.toBe(id);
    expect(chunkIdOf('rev-1', 0, 5, 'hellO')).not.toBe(id);
    // Length prefixes keep field boundaries unambiguous.
    expect(chunkIdOf('rev-1a', 0, 5, 'b')).not.toBe(chunkIdOf('rev-1', 0, 5, 'ab'));
  });

  it('pins one id (format arslan-chunk/v1)', () => {
    expect(chunkIdOf('r', 0, 1, 'a')).toBe(PINNED_ID);
  });

  it('rejects an inverted range', () => {
    let error: unknown;
    try {
      chunkIdOf('r', 5, 4, '');
    } catch (e) {
      error = e;
    }
    expect(isRetrievalError(error, 'invalid_argument')).toBe(true);
  });

  it('builds records with the source fields, offsets and ids', () => {
    const body = 'First sentence here. '.repeat(80);
    const records = buildChunkRecords({
      vaultId: 'v',
      assetId: 'a',
      revisionId: 'r',
      title: 'T',
      body,
      metadata: 'tag:x',
    });
    expect(records.length).toBeGreaterThan(1);
    for (const r of records) {
      expect(r).toMatchObject({ vaultId: 'v', assetId: 'a', revisionId: 'r', title: 'T', metadata: 'tag:x' });
      expect(r.chunkId).toBe(chunkIdOf('r', r.byteStart, r.byteEnd, r.text));
    }
    expect(new Set(records.map((r) => r.chunkId)).size).toBe(records.length);
  });
});

// sha256(lp("arslan-chunk/v1") || lp("r") || u32be(0) || u32be(1) || lp("a")), computed independently with node:crypto.
const PINNED_ID = '19a1b87c8940a0835adcd468d147a07aa4f6b2f2db269c28648ece3f926bd42f';
