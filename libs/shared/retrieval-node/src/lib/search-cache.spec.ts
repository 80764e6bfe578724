import { type ChunkRecord, type MatchMode, type ParsedQuery } from '@arslan/retrieval';
import { RetrievalCacheClosedError, RetrievalLimitError } from './retrieval-errors';
import { createSearchCache, DEFAULT_SEARCH_CACHE_LIMITS, type SearchCacheLimits } from './search-cache';
import { createMixedSegmenter } from './mixed-segmenter.testing';

const segmenter = createMixedSegmenter();

function chunk(vaultId: string, chunkId: string, text: string, assetId = `asset-${chunkId}`): ChunkRecord {
  return {
    chunkId,
    vaultId,
    assetId,
    revisionId: 'r1',
    title: '',
    text,
    metadata: '',
    byteStart: 0,
    byteEnd: Buffer.byteLength(text),
    ordinal: 0,
  };
}

const q = (text: string, mode: MatchMode = 'any'): ParsedQuery => ({
  text,
  mode,
  terms: segmenter.segment(text),
});

function cacheWith(limits: Partial<SearchCacheLimits> = {}) {
  return createSearchCache({ segmenter, limits });
}

function limitError(fn: () => unknown): RetrievalLimitError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RetrievalLimitError) return e;
    throw e;
  }
  throw new Error('expected a RetrievalLimitError');
}

describe('createSearchCache', () => {
  it('defaults to the RAG-1 / RAG-2 limits', () => {
    expect(DEFAULT_SEARCH_CACHE_LIMITS).toEqual({
      maxVaults: 2,
      maxChunks: 10_000,
      maxTextBytes: 16 * 1024 * 1024,
      maxVectorBytes: 32 * 1024 * 1024,
    });
    expect(cacheWith().limits).toEqual(DEFAULT_SEARCH_CACHE_LIMITS);
    expect(() => cacheWith({ maxVaults: 0 })).toThrow(RangeError);
  });

  it('pins SQLite temporary storage to memory (RAG-4)', () => {
    const cache = cacheWith();
    expect(cache.vault('v1').database()).toEqual({ open: true, memory: true, tempStore: 2 });
    cache.clearAll();
  });

  it('holds at most 2 vaults; a 3rd evicts the least recently used one whole (RAG-1)', () => {
    const cache = cacheWith();
    const a = cache.vault('A');
    const b = cache.vault('B');
    a.lexical.add([chunk('A', 'a1', 'alpha')]);
    b.lexical.add([chunk('B', 'b1', 'alpha')]);
    b.vectors(2).add('b1', new Float32Array([1, 0]));
    expect(cache.vault('A')).toBe(a); // touch A: B is now least recently used
    const c = cache.vault('C');
    expect(cache.openVaults()).toEqual(['A', 'C']);
    expect(cache.has('B')).toBe(false);
    expect(b.closed).toBe(true);
    expect(b.database().open).toBe(false);
    expect(b.lexical.search(q('alpha'), 10)).toEqual([]);
    expect(b.vector).toBeUndefined();
    expect(b.stats()).toMatchObject({ closed: true, chunks: 0, vectors: 0 });
    expect(a.lexical.search(q('alpha'), 10).map((h) => h.chunkId)).toEqual(['a1']);
    expect(c.lexical.size()).toBe(0);
    // reopening B gives a fresh, empty cache and evicts A (now the LRU)
    const b2 = cache.vault('B');
    expect(b2).not.toBe(b);
    expect(b2.lexical.size()).toBe(0);
    expect(cache.openVaults()).toEqual(['C', 'B']);
    expect(a.closed).toBe(true);
    cache.clearAll();
  });

  it('refuses chunks of another vault', () => {
    const cache = cacheWith();
    expect(() => cache.vault('A').lexical.add([chunk('B', 'x', 'alpha')])).toThrow(RangeError);
    cache.clearAll();
  });

  it('chunk limit: a batch past it throws index_limit and adds nothing (RAG-2)', () => {
    const cache = cacheWith({ maxChunks: 3 });
    const v = cache.vault('A');
    v.lexical.add([chunk('A', 'c1', 'alpha'), chunk('A', 'c2', 'alpha')]);
    v.lexical.add([chunk('A', 'c1', 'alpha')]); // already present: does not count
    const err = limitError(() => v.lexical.add([chunk('A', 'c3', 'beta'), chunk('A', 'c4', 'beta')]));
    expect(err.code).toBe('index_limit');
    expect(err.limit).toBe('chunks');
    expect(err.max).toBe(3);
    expect(err.attempted).toBe(4);
    expect(err.message).toMatch(/number of chunks.*limit is 3/);
    expect(v.lexical.size()).toBe(2);
    expect(v.lexical.search(q('beta'), 10)).toEqual([]);
    expect(v.lexical.get('c3')).toBeUndefined();
    v.lexical.add([chunk('A', 'c3', 'beta')]); // exactly at the limit is fine
    expect(v.stats().chunks).toBe(3);
    cache.clearAll();
  });

  it('text limit counts UTF-8 bytes of title + text + metadata, all-or-nothing (RAG-2)', () => {
    const cache = cacheWith({ maxTextBytes: 30 });
    const v = cache.vault('A');
    v.lexical.add([{ ...chunk('A', 't1', '季度预算'), title: 'ab', metadata: 'c' }]); // 12 + 2 + 1 = 15
    expect(v.stats().textBytes).toBe(15);
    const err = limitError(() => v.lexical.add([chunk('A', 't2', 'abcdefgh'), chunk('A', 't3', '长江大桥')])); // 15 + 8 + 12
    expect(err).toMatchObject({ code: 'index_limit', limit: 'text_bytes', max: 30, attempted: 35 });
    expect(err.message).toMatch(/UTF-8 bytes of source text plus metadata/);
    expect(v.stats()).toMatchObject({ chunks: 1, textBytes: 15 });
    expect(v.lexical.search(q('abcdefgh'), 10)).toEqual([]);
    v.lexical.add([chunk('A', 't2', 'abcdefgh')]);
    expect(v.stats().textBytes).toBe(23);
    v.lexical.removeAsset('asset-t1');
    expect(v.stats().textBytes).toBe(8);
    cache.clearAll();
  });

  it('kept matching words share the text limit: text + words never exceed maxTextBytes (RAG-2)', () => {
    const cache = cacheWith({ maxTextBytes: 30 });
    const v = cache.vault('A');
    v.lexical.add([chunk('A', 'w1', 'alpha beta')]); // 10 bytes of text, 10 of words
    expect(v.stats()).toMatchObject({ textBytes: 10, wordBytes: 10 });
    expect(v.lexical.words?.('w1')?.text).toEqual(['alpha', 'beta']);
    v.lexical.add([chunk('A', 'w2', 'gamma delta eps')]); // 25 bytes of text: w1's words make room
    expect(v.stats()).toMatchObject({ textBytes: 25, wordBytes: 0 });
    expect(v.lexical.words?.('w1')).toBeUndefined();
    cache.clearAll();
    expect(v.lexical.words?.('w2')).toBeUndefined();
  });

  it('vector limit: 4 bytes × dims × count, all-or-nothing; only vectors of indexed chunks are kept (RAG-2, RAG-13)', () => {
    const cache = cacheWith({ maxVectorBytes: 4 * 4 * 3 }); // three 4-d vectors
    const v = cache.vault('A');
    v.lexical.add(
      ['k1', 'k2', 'k3', 'k4'].map((id) => chunk('A', id, `text ${id}`, id === 'k4' ? 'other' : 'asset')),
    );
    const vec = v.vectors(4);
    expect(v.vector).toBe(vec);
    expect(
      vec.addBatch([
        { chunkId: 'k1', vector: new Float32Array([1, 0, 0, 0]) },
        { chunkId: 'ghost', vector: new Float32Array([1, 1, 1, 1]) },
      ]),
    ).toBe(1);
    const err = limitError(() =>
      vec.addBatch([
        { chunkId: 'k2', vector: new Float32Array([0, 1, 0, 0]) },
        { chunkId: 'k3', vector: new Float32Array([0, 0, 1, 0]) },
        { chunkId: 'k4', vector: new Float32Array([0, 0, 0, 1]) },
      ]),
    );
    expect(err).toMatchObject({ code: 'index_limit', limit: 'vector_bytes', max: 48, attempted: 64 });
    expect(vec.size()).toBe(1);
    expect(vec.search(new Float32Array([0, 1, 0, 0]), 10).map((h) => h.chunkId)).toEqual(['k1']);
    // a bad vector in a batch leaves the index unchanged
    expect(() =>
      vec.addBatch([
        { chunkId: 'k2', vector: new Float32Array([0, 1, 0, 0]) },
        { chunkId: 'k3', vector: new Float32Array(4) },
      ]),
    ).toThrow(RangeError);
    expect(vec.size()).toBe(1);
    vec.addBatch([
      { chunkId: 'k2', vector: new Float32Array([0, 2, 0, 0]) },
      { chunkId: 'k1', vector: new Float32Array([1, 1, 0, 0]) },
    ]);
    expect(v.stats()).toMatchObject({ vectors: 2, vectorBytes: 32, dimensions: 4 });
    // removeAsset drops the asset's vectors too
    v.lexical.removeAsset('asset');
    expect(vec.size()).toBe(0);
    // a new embedder's dimensions replace the vector index
    const vec8 = v.vectors(8);
    expect(vec8).not.toBe(vec);
    expect(vec.search(new Float32Array(4).fill(1), 10)).toEqual([]);
    expect(() => vec.add('k4', new Float32Array([1, 0, 0, 0]))).toThrow(RetrievalCacheClosedError);
    expect(() => v.vectors(100)).toThrow(RetrievalLimitError); // one 100-d vector is 400 bytes > 48
    cache.clearAll();
  });

  it('invalidate drops one vault; its old handle reads nothing and refuses late writes (RAG-6, RAG-28)', () => {
    const cache = cacheWith();
    const a = cache.vault('A');
    const b = cache.vault('B');
    a.lexical.add([chunk('A', 'a1', 'alpha 季度预算')]);
    b.lexical.add([chunk('B', 'b1', 'alpha')]);
    const vec = a.vectors(2);
    vec.add('a1', new Float32Array([1, 0]));
    cache.invalidate('A');
    expect(cache.openVaults()).toEqual(['B']);
    expect(a.closed).toBe(true);
    expect(a.database().open).toBe(false);
    expect(a.lexical.search(q('alpha'), 10)).toEqual([]);
    expect(a.lexical.search(q('季度'), 10)).toEqual([]);
    expect(a.lexical.get('a1')).toBeUndefined();
    expect(vec.search(new Float32Array([1, 0]), 10)).toEqual([]);
    expect(() => a.lexical.add([chunk('A', 'late', 'late')])).toThrow(RetrievalCacheClosedError);
    expect(() => vec.add('a1', new Float32Array([1, 0]))).toThrow(RetrievalCacheClosedError);
    expect(() => a.vectors(2)).toThrow(RetrievalCacheClosedError);
    expect(b.lexical.search(q('alpha'), 10).map((h) => h.chunkId)).toEqual(['b1']);
    expect(cache.vault('A').lexical.size()).toBe(0);
    cache.clearAll();
  });

  it('clearAll (lock) drops every index and vector and closes every in-memory database (RAG-6)', () => {
    const cache = cacheWith();
    const a = cache.vault('A');
    const b = cache.vault('B');
    a.lexical.add([chunk('A', 'a1', 'alpha')]);
    b.lexical.add([chunk('B', 'b1', 'alpha')]);
    const vb = b.vectors(3);
    vb.add('b1', new Float32Array([1, 2, 3]));
    cache.clearAll();
    expect(cache.openVaults()).toEqual([]);
    for (const v of [a, b]) {
      expect(v.closed).toBe(true);
      expect(v.database().open).toBe(false);
      expect(v.lexical.search(q('alpha'), 10)).toEqual([]);
      expect(v.stats()).toMatchObject({ chunks: 0, textBytes: 0, vectors: 0, vectorBytes: 0 });
    }
    expect(vb.search(new Float32Array([1, 2, 3]), 10)).toEqual([]);
    expect(vb.size()).toBe(0);
    cache.clearAll(); // idempotent
  });

  it('lexical.clear on a live vault empties text and vectors but keeps it open', () => {
    const cache = cacheWith();
    const v = cache.vault('A');
    v.lexical.add([chunk('A', 'a1', 'alpha')]);
    v.vectors(2).add('a1', new Float32Array([0, 1]));
    v.lexical.clear();
    expect(v.stats()).toMatchObject({ closed: false, chunks: 0, textBytes: 0, vectors: 0 });
    cache.clearAll();
  });
});
