import { createVectorIndex, normalised } from './vector-index';

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff - 0.5;
  };
}

function randomVector(dims: number, next: () => number): Float32Array {
  const v = new Float32Array(dims);
  for (let d = 0; d < dims; d++) v[d] = next();
  return v;
}

function naiveTopK(
  vectors: Map<string, Float32Array>,
  query: Float32Array,
  k: number,
): { chunkId: string; score: number }[] {
  const norm = (v: Float32Array): number => Math.hypot(...v);
  return [...vectors]
    .map(([chunkId, v]) => ({
      chunkId,
      score: v.reduce((sum, x, i) => sum + x * query[i]!, 0) / (norm(v) * norm(query)),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

describe('createVectorIndex (RAG-13)', () => {
  it('matches a naive cosine scan, with removals and overwrites, across growth', () => {
    const dims = 37; // not a multiple of the 4-way unroll
    const next = rng(7);
    const index = createVectorIndex({ dimensions: dims });
    const reference = new Map<string, Float32Array>();
    for (let i = 0; i < 700; i++) {
      const v = randomVector(dims, next);
      index.add(`c${i}`, v);
      reference.set(`c${i}`, v);
    }
    const removed = Array.from({ length: 100 }, (_, i) => `c${i * 7}`);
    index.removeChunks([...removed, 'unknown']);
    for (const id of removed) reference.delete(id);
    for (let i = 1; i < 50; i += 5) {
      const v = randomVector(dims, next);
      index.add(`c${i}`, v); // overwrite
      reference.set(`c${i}`, v);
    }
    expect(index.size()).toBe(reference.size);
    expect(index.byteLength()).toBe(reference.size * dims * 4);
    for (let trial = 0; trial < 5; trial++) {
      const query = randomVector(dims, next);
      const got = index.search(query, 15);
      const want = naiveTopK(reference, query, 15);
      expect(got.map((h) => h.chunkId)).toEqual(want.map((h) => h.chunkId));
      got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i]!.score, 5));
    }
  });

  it('normalises stored vectors and the query: scale does not change scores', () => {
    const index = createVectorIndex({ dimensions: 3 });
    index.add('x', new Float32Array([10, 0, 0]));
    index.add('xy', new Float32Array([1, 1, 0]));
    index.add('neg', new Float32Array([-0.001, 0, 0]));
    const hits = index.search(new Float32Array([5, 0, 0]), 10);
    expect(hits.map((h) => h.chunkId)).toEqual(['x', 'xy', 'neg']);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 6);
    expect(hits[2]!.score).toBeCloseTo(-1, 6);
    const unit = normalised(new Float32Array([3, 4]), 2);
    expect([...unit]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
  });

  it('does not keep a reference to the caller’s array', () => {
    const index = createVectorIndex({ dimensions: 2 });
    const v = new Float32Array([1, 0]);
    index.add('a', v);
    v[0] = -1;
    expect(index.search(new Float32Array([1, 0]), 1)[0]!.score).toBeCloseTo(1, 6);
  });

  it('rejects wrong dimensions and zero or non-finite vectors', () => {
    const index = createVectorIndex({ dimensions: 3 });
    expect(() => index.add('a', new Float32Array(2))).toThrow(RangeError);
    expect(() => index.add('a', new Float32Array(3))).toThrow(RangeError);
    expect(() => index.add('a', new Float32Array([NaN, 1, 1]))).toThrow(RangeError);
    expect(() => index.search(new Float32Array(4), 1)).toThrow(RangeError);
    expect(() => createVectorIndex({ dimensions: 0 })).toThrow(RangeError);
    expect(index.size()).toBe(0);
  });

  it('returns at most size() hits, none for limit 0, none after clear', () => {
    const index = createVectorIndex({ dimensions: 2 });
    index.add('a', new Float32Array([1, 0]));
    index.add('b', new Float32Array([0, 1]));
    expect(index.search(new Float32Array([1, 1]), 10)).toHaveLength(2);
    expect(index.search(new Float32Array([1, 1]), 0)).toEqual([]);
    // equal scores: insertion order
    expect(index.search(new Float32Array([1, 1]), 1).map((h) => h.chunkId)).toEqual(['a']);
    index.clear();
    expect(index.size()).toBe(0);
    expect(index.search(new Float32Array([1, 1]), 10)).toEqual([]);
  });
});
