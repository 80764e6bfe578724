// KNOW-01..03, RAG-10, RAG-12..15: the retriever over in-memory fakes of the storage ports.
import { buildChunkRecords } from './chunk-records';
import { createRetriever, type RetrieverDeps } from './hybrid-retriever';
import { reciprocalRankFusion } from './rank-fusion';
import { type ChunkRecord, type ChunkWords, type WordSegmenter } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';
import { InMemoryLexicalIndex, InMemoryVectorIndex, TableEmbedder } from './testing/in-memory-indexes';
import { foldForMatch } from './unicode-text';
import { composeSegmenter } from './word-segmenter';

const segmenter = composeSegmenter();

function doc(assetId: string, title: string, body: string, metadata = ''): ChunkRecord[] {
  return buildChunkRecords({ vaultId: 'v1', assetId, revisionId: `${assetId}-r1`, title, body, metadata });
}

const roadmap = doc('a1', 'Roadmap', 'The product roadmap for next year was approved by the board.');
const budget = doc('a2', 'Budget', 'The quarterly budget covers hiring and travel.');
const plans = doc('a3', 'Plans', 'Our strategy and plans for the coming year.'); // semantically close, no keyword
const notes = doc('a4', 'Notes', 'Budget for the roadmap items and the product launch.');
const all = [...roadmap, ...budget, ...plans, ...notes];
const id = (records: ChunkRecord[]): string => records[0]!.chunkId;

function setup(overrides: Partial<RetrieverDeps> = {}) {
  const lexical = new InMemoryLexicalIndex(segmenter);
  lexical.add(all);
  const vector = new InMemoryVectorIndex();
  vector.add(id(plans), Float32Array.from([1, 0, 0]));
  vector.add(id(notes), Float32Array.from([0.9, 0.3, 0]));
  vector.add(id(roadmap), Float32Array.from([0.6, 0.8, 0]));
  vector.add(id(budget), Float32Array.from([0, 1, 0]));
  const embedder = new TableEmbedder(3, new Map([['roadmap', [1, 0, 0]]]));
  const deps: RetrieverDeps = { lexical, vector, embedder, segmenter, ...overrides };
  return { lexical, vector, embedder, retriever: createRetriever(deps) };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (e) {
    return e instanceof RetrievalError ? e.code : 'other';
  }
  return undefined;
}

describe('createRetriever', () => {
  it('lexical: FTS results with records, offsets, hash, score and citation labels (RAG-12)', async () => {
    const { retriever, embedder, lexical } = setup();
    const result = await retriever.search({ query: 'roadmap', kind: 'lexical' });
    expect(result.used).toBe('lexical');
    expect(result.chunks.map((c) => c.assetId)).toEqual(['a1', 'a4']);
    expect(result.chunks[0]).toMatchObject({
      chunkId: id(roadmap),
      revisionId: 'a1-r1',
      byteStart: 0,
      byteEnd: roadmap[0]!.byteEnd,
      rank: 1,
      sourceId: 'S1',
      citation: '[S1]',
    });
    expect(result.chunks[1]!.citation).toBe('[S2]');
    expect(typeof result.chunks[0]!.score).toBe('number');
    expect(embedder.calls).toEqual([]);
    expect(lexical.queries[0]).toEqual({ text: 'roadmap', mode: 'any', terms: ['roadmap'] });
  });

  it('vector: cosine candidates are filtered by the match mode (RAG-10)', async () => {
    const { retriever, embedder } = setup({ rerank: false });
    const result = await retriever.search({ query: 'roadmap', kind: 'vector' });
    expect(result.used).toBe('vector');
    // a3 is the nearest vector but lacks "roadmap"; a2 lacks it too.
    expect(result.chunks.map((c) => c.assetId)).toEqual(['a4', 'a1']);
    expect(embedder.calls).toEqual([['roadmap']]);
  });

  it('vector: all / phrase filters', async () => {
    const { retriever } = setup({ rerank: false });
    const allHits = await retriever.search({ query: 'roadmap launch', mode: 'all', kind: 'vector' });
    expect(allHits.chunks.map((c) => c.assetId)).toEqual(['a4']);
    const phrase = await retriever.search({ query: 'product roadmap', mode: 'phrase', kind: 'vector' });
    expect(phrase.chunks.map((c) => c.assetId)).toEqual(['a1']);
  });

  it('hybrid: RRF (k = 60) of the lexical list and the filtered vector list (RAG-14)', async () => {
    const { retriever, lexical } = setup({ rerank: false });
    const result = await retriever.search({ query: 'roadmap', kind: 'hybrid' });
    expect(result.used).toBe('hybrid');
    // lexical: a1 (title 5 + body 1), a4 (body 1); vector filtered: a4, a1.
    // a1 = 1/61 + 1/62, a4 = 1/62 + 1/61: equal scores, equal best rank -> chunk id order.
    const expected = reciprocalRankFusion([
      lexical.search(result.query, 50),
      [
        { chunkId: id(notes), score: 0 },
        { chunkId: id(roadmap), score: 0 },
      ],
    ]);
    expect(result.chunks.map((c) => c.chunkId)).toEqual(expected.map((h) => h.chunkId));
    expect(result.chunks[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(result.chunks.map((c) => c.assetId)).not.toContain('a3');
  });

  it('hybrid: a vector-only candidate that satisfies the mode is fused in', async () => {
    const { retriever } = setup({ rerank: false });
    const result = await retriever.search({ query: 'roadmap strategy', kind: 'hybrid' });
    expect(result.chunks.map((c) => c.assetId).sort()).toEqual(['a1', 'a3', 'a4']);
  });

  it('reranks by coverage by default (RAG-15)', async () => {
    const { retriever } = setup();
    const result = await retriever.search({ query: 'product launch roadmap', kind: 'lexical' });
    expect(result.chunks[0]!.assetId).toBe('a4'); // all three terms, although a1 wins on BM25-like title weight
  });

  it.each([
    ['no embedder', { embedder: undefined }],
    ['no vector index', { vector: undefined }],
    ['an empty vector index', { vector: new InMemoryVectorIndex() }],
  ])('falls back to lexical with %s (KNOW-03)', async (_name, overrides) => {
    const { retriever, embedder } = setup(overrides as Partial<RetrieverDeps>);
    for (const kind of ['hybrid', 'vector'] as const) {
      const result = await retriever.search({ query: 'roadmap', kind });
      expect(result.requested).toBe(kind);
      expect(result.used).toBe('lexical');
      expect(result.chunks.map((c) => c.assetId)).toEqual(['a1', 'a4']);
    }
    expect(embedder.calls).toEqual([]);
  });

  it('searchDocuments merges chunks per asset: best chunk + count (RAG-12)', async () => {
    const long = doc('big', 'Handbook', 'The roadmap section explains priorities in detail. '.repeat(40));
    const { retriever, lexical } = setup();
    lexical.add(long);
    expect(long.length).toBeGreaterThan(2);
    const result = await retriever.searchDocuments({ query: 'roadmap', kind: 'lexical' });
    const assets = result.documents.map((d) => d.assetId);
    expect(new Set(assets).size).toBe(assets.length);
    const big = result.documents.find((d) => d.assetId === 'big')!;
    expect(big.matchingChunks).toBe(long.length);
    expect(big.best.assetId).toBe('big');
    expect(result.documents.map((d) => d.rank)).toEqual(assets.map((_, i) => i + 1));
    expect(result.documents[0]!.best.citation).toBe('[S1]');
    const one = await retriever.searchDocuments({ query: 'roadmap', kind: 'lexical', limit: 1 });
    expect(one.documents).toHaveLength(1);
  });

  it('typed errors: empty query, bad limit, bad kind; abort stops the search', async () => {
    const { retriever } = setup();
    expect(await codeOf(retriever.search({ query: '  ' }))).toBe('empty_query');
    expect(await codeOf(retriever.search({ query: 'x', limit: 0 }))).toBe('invalid_argument');
    expect(await codeOf(retriever.search({ query: 'x', limit: 51 }))).toBe('invalid_argument');
    expect(await codeOf(retriever.search({ query: 'x', kind: 'fuzzy' as never }))).toBe('invalid_argument');
    const controller = new AbortController();
    controller.abort();
    await expect(retriever.search({ query: 'roadmap', signal: controller.signal })).rejects.toBeDefined();
  });

  it('rejects a malformed embedding', async () => {
    const { retriever } = setup({ embedder: new TableEmbedder(3, new Map([['roadmap', [1, 0]]])) }); // 2 values, 3 declared;
    expect(await codeOf(retriever.search({ query: 'roadmap', kind: 'vector' }))).toBe('invalid_argument');
  });

  it('uses the words kept by the index instead of segmenting candidates again, with the same results', async () => {
    const kept = new Map<string, ChunkWords>();
    const fold = (text: string) => segmenter.segment(text).map(foldForMatch);
    for (const c of all)
      kept.set(c.chunkId, { title: fold(c.title), text: fold(c.text), metadata: fold(c.metadata) });
    let segmented = 0;
    const counting: WordSegmenter = { segment: (text) => (segmented++, segmenter.segment(text)) };
    const plain = setup({ segmenter: counting }).retriever;
    const withWords = setup({ segmenter: counting });
    const lexical = Object.assign(withWords.lexical, { words: (chunkId: string) => kept.get(chunkId) });
    const cached = createRetriever({ ...withWords, lexical, segmenter: counting });
    for (const mode of ['any', 'all', 'phrase'] as const) {
      for (const kind of ['lexical', 'hybrid'] as const) {
        const request = { query: 'product roadmap', mode, kind, limit: 10 };
        segmented = 0;
        const before = await plain.search(request);
        const plainCalls = segmented;
        segmented = 0;
        const after = await cached.search(request);
        expect(after).toEqual(before);
        expect(segmented).toBeLessThan(plainCalls);
      }
    }
  });

  it('RAG-14: hybrid requests the query embedding before the FTS5 query, so the two overlap', async () => {
    const events: string[] = [];
    const { lexical, embedder } = setup();
    const search = lexical.search.bind(lexical);
    lexical.search = (query, limit) => {
      events.push('lexical');
      return search(query, limit);
    };
    const embed = embedder.embed.bind(embedder);
    embedder.embed = async (texts) => {
      events.push('embed:start');
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push('embed:done');
      return embed(texts);
    };
    const overlapped = createRetriever({
      lexical,
      vector: setup().vector,
      embedder,
      segmenter,
      rerank: false,
    });
    const result = await overlapped.search({ query: 'roadmap', kind: 'hybrid' });
    expect(events).toEqual(['embed:start', 'lexical', 'embed:done']);
    const { retriever: plain } = setup({ rerank: false });
    const expected = await plain.search({ query: 'roadmap', kind: 'hybrid' });
    expect(result.chunks.map((c) => [c.chunkId, c.score])).toEqual(
      expected.chunks.map((c) => [c.chunkId, c.score]),
    );
  });

  it('RAG-14: a failing FTS5 query fails the search without an unhandled embedding rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { lexical, embedder } = setup();
      lexical.search = () => {
        throw new RetrievalError('invalid_argument', 'fts failed');
      };
      embedder.embed = async () => {
        throw new Error('embedder down');
      };
      const { retriever } = setup({ lexical, embedder });
      expect(await codeOf(retriever.search({ query: 'roadmap', kind: 'hybrid' }))).toBe('invalid_argument');
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
