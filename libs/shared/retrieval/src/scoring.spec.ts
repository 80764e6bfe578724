// RAG-13 (normalised vectors, cosine), RAG-14 / KNOW-02 (RRF k = 60 on ranks only), RAG-15 (light rerank).
import { lightRerank, RERANK_CANDIDATES } from './light-reranker';
import { parseQuery } from './query-parser';
import { reciprocalRankFusion } from './rank-fusion';
import { isRetrievalError } from './retrieval.errors';
import { cosine, normalize } from './vector-math';
import { composeSegmenter } from './word-segmenter';

const segmenter = composeSegmenter();

describe('normalize / cosine (RAG-13)', () => {
  it('normalises to unit length without changing the input', () => {
    const input = Float32Array.from([3, 4]);
    const unit = normalize(input);
    expect(Array.from(unit)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(input)).toEqual([3, 4]);
  });

  it('rejects zero, empty and non-finite vectors', () => {
    for (const v of [[0, 0], [], [NaN, 1], [Infinity, 1]]) {
      let error: unknown;
      try {
        normalize(Float32Array.from(v));
      } catch (e) {
        error = e;
      }
      expect(isRetrievalError(error, 'invalid_argument')).toBe(true);
    }
  });

  it('cosine of normalised vectors', () => {
    const a = normalize(Float32Array.from([1, 0]));
    const b = normalize(Float32Array.from([1, 1]));
    expect(cosine(a, a)).toBeCloseTo(1, 6);
    expect(cosine(a, b)).toBeCloseTo(Math.SQRT1_2, 6);
    expect(cosine(a, normalize(Float32Array.from([-1, 0])))).toBeCloseTo(-1, 6);
    expect(() => cosine(a, Float32Array.from([1, 0, 0]))).toThrow();
  });
});

describe('reciprocalRankFusion (RAG-14, KNOW-02)', () => {
  it('sums 1/(60 + rank) per list (hand-computed)', () => {
    const fused = reciprocalRankFusion([
      [
        { chunkId: 'a', score: 12.5 },
        { chunkId: 'b', score: 9 },
        { chunkId: 'c', score: 1 },
      ],
      [
        { chunkId: 'c', score: 0.99 },
        { chunkId: 'a', score: 0.5 },
      ],
    ]);
    // a: 1/61 + 1/62 = 0.0325224...; c: 1/63 + 1/61 = 0.0322664...; b: 1/62 = 0.0161290...
    expect(fused.map((h) => h.chunkId)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
  });

  it('ignores raw scores: rescaling one list changes nothing', () => {
    const lexical = [
      { chunkId: 'x', score: 100 },
      { chunkId: 'y', score: 99 },
    ];
    const vector = [
      { chunkId: 'y', score: 0.2 },
      { chunkId: 'z', score: 0.1 },
    ];
    const scaled = vector.map((h) => ({ ...h, score: h.score * 1e6 }));
    expect(reciprocalRankFusion([lexical, scaled])).toEqual(reciprocalRankFusion([lexical, vector]));
    expect(reciprocalRankFusion([lexical, vector])[0]!.chunkId).toBe('y');
  });

  it('uses k, counts a duplicate once per list, breaks ties by best rank then id', () => {
    expect(reciprocalRankFusion([[{ chunkId: 'a', score: 0 }]], 1)[0]!.score).toBe(0.5);
    const dup = reciprocalRankFusion([
      [
        { chunkId: 'a', score: 0 },
        { chunkId: 'a', score: 0 },
      ],
    ]);
    expect(dup).toEqual([{ chunkId: 'a', score: 1 / 61 }]);
    const tie = reciprocalRankFusion([[{ chunkId: 'q', score: 0 }], [{ chunkId: 'p', score: 0 }]]);
    expect(tie.map((h) => h.chunkId)).toEqual(['p', 'q']);
    expect(() => reciprocalRankFusion([], 0)).toThrow();
  });
});

describe('lightRerank (RAG-15)', () => {
  const query = parseQuery('product roadmap budget', 'any', segmenter);

  it('prefers higher query-term coverage over the incoming order', () => {
    const ranked = lightRerank(
      query,
      [
        { chunkId: 'one-term', text: 'the budget is tight' },
        { chunkId: 'two-terms', text: 'the roadmap and budget' },
        { chunkId: 'all-terms', text: 'budget for the roadmap of the product' },
      ],
      { limit: 3, segmenter },
    );
    expect(ranked.map((h) => h.chunkId)).toEqual(['all-terms', 'two-terms', 'one-term']);
  });

  it('prefers an exact phrase among equal coverage', () => {
    const ranked = lightRerank(
      query,
      [
        { chunkId: 'scattered', text: 'budget: the roadmap covers every product' },
        { chunkId: 'exact', text: 'see the product roadmap budget here' },
      ],
      { limit: 2, segmenter },
    );
    expect(ranked.map((h) => h.chunkId)).toEqual(['exact', 'scattered']);
    expect(ranked[0]!.score - ranked[1]!.score).toBeGreaterThan(0.4);
  });

  it('counts title terms and keeps the incoming order on ties', () => {
    const ranked = lightRerank(
      parseQuery('roadmap', 'any', segmenter),
      [
        { chunkId: 'b', text: 'roadmap' },
        { chunkId: 'a', text: 'roadmap' },
        { chunkId: 'c', text: 'nothing', title: 'Roadmap' },
      ],
      { limit: 3, segmenter },
    );
    expect(ranked.map((h) => h.chunkId)).toEqual(['b', 'a', 'c']);
  });

  it('only looks at the bounded candidate set and returns at most limit', () => {
    const many = Array.from({ length: 80 }, (_, i) => ({
      chunkId: `c${String(i).padStart(2, '0')}`,
      text: i >= RERANK_CANDIDATES ? 'product roadmap budget' : 'filler',
    }));
    const ranked = lightRerank(query, many, { limit: 100, segmenter });
    expect(ranked).toHaveLength(RERANK_CANDIDATES);
    expect(ranked.every((h) => Number(h.chunkId.slice(1)) < RERANK_CANDIDATES)).toBe(true);
    expect(lightRerank(query, many, { limit: 5, segmenter })).toHaveLength(5);
  });
});
