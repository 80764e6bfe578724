// The evaluation behind `npm run bench:retrieval`: builds a lexical (FTS5/BM25) and a
// vector (USE-lite, 512-d) index over a corpus, runs labelled queries in the lexical,
// vector and hybrid (RRF) modes, and measures MiniSearch on the same corpus in the same run.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import {
  buildChunkRecords,
  composeSegmenter,
  createRetriever,
  type ChunkRecord,
  type SearchKind,
} from '@arslan/retrieval';
import {
  createFtsLexicalIndex,
  createJiebaSegmenter,
  createUseLiteEmbedder,
  createVectorIndex,
  queryEmbedderOf,
} from '@arslan/retrieval-node';
import type { EvalDocument, EvalQuery } from './retrieval-corpus';

const ROUNDS = 5;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function round(value: number, digits = 3): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

/** recall@10 and MRR@10 over document ids, first occurrence of each document only. */
function quality(rankedDocs: string[][], queries: EvalQuery[]): { recall10: number; mrr10: number } {
  let recall = 0;
  let mrr = 0;
  queries.forEach((q, i) => {
    const seen: string[] = [];
    for (const doc of rankedDocs[i] ?? []) if (!seen.includes(doc)) seen.push(doc);
    const top = seen.slice(0, 10);
    const relevant = new Set(q.relevant);
    recall += top.filter((d) => relevant.has(d)).length / Math.min(relevant.size, 10);
    const first = top.findIndex((d) => relevant.has(d));
    mrr += first >= 0 ? 1 / (first + 1) : 0;
  });
  return { recall10: recall / queries.length, mrr10: mrr / queries.length };
}

async function timed<T>(run: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ms: performance.now() - start };
}

/**
 * USE-lite costs ~75–160 ms per 768-character passage on this 2-core machine (~8–15 min for
 * 10,000 on two workers), so vectors are cached on disk by embedder and chunk ids; a cold run embeds
 * everything and reports the time, later runs load the cache (`vectors_cached`).
 */
function vectorCachePath(cacheDir: string, embedderId: string, chunks: ChunkRecord[]): string {
  // `sentence-mean`: passages are embedded as the mean of their sentences (sentence-mean.ts), so
  // vectors cached by the whole-passage method are not reused.
  const hash = createHash('sha256').update(`${embedderId}\0sentence-mean`);
  for (const c of chunks) hash.update(c.chunkId);
  return join(cacheDir, `vectors-${hash.digest('hex').slice(0, 24)}.f32`);
}

export interface RetrievalEvalOptions {
  /**
   * Lexical (and MiniSearch) only: no embedder is loaded and no vectors are built, so a machine without
   * the vector cache does not spend ~13 minutes embedding the corpus. Vector/hybrid fields are `null`.
   */
  lexicalOnly?: boolean;
}

export async function runRetrievalEval(
  documents: EvalDocument[],
  queries: EvalQuery[],
  corpusName: string,
  cacheDir: string,
  options: RetrievalEvalOptions = {},
) {
  const lexicalOnly = options.lexicalOnly ?? false;
  const segmenter = composeSegmenter({ chinese: createJiebaSegmenter() });
  const chunks: ChunkRecord[] = documents.flatMap((d) =>
    buildChunkRecords({
      vaultId: 'bench',
      assetId: d.id,
      revisionId: `rev:${d.id}`,
      title: d.title,
      body: d.body,
      metadata: '',
    }),
  );
  const docOf = new Map(chunks.map((c) => [c.chunkId, c.assetId]));

  const lexical = createFtsLexicalIndex({ segmenter });
  const lexicalBuild = await timed(() => lexical.add(chunks));
  const embedder = lexicalOnly ? undefined : await createUseLiteEmbedder();
  const dims = embedder?.dimensions ?? 1;
  const vector = createVectorIndex({ dimensions: dims, maxVectors: chunks.length });
  const cacheFile = embedder ? vectorCachePath(cacheDir, embedder.id, chunks) : '';
  const vectorsCached = embedder !== undefined && existsSync(cacheFile);
  const vectorBuild = await timed(async () => {
    if (embedder === undefined) return;
    if (vectorsCached) {
      const all = new Float32Array(new Uint8Array(readFileSync(cacheFile)).buffer);
      chunks.forEach((c, i) => vector.add(c.chunkId, all.slice(i * dims, (i + 1) * dims)));
      return;
    }
    const all = new Float32Array(chunks.length * dims);
    // Similar lengths together: the model pads a batch to its longest text.
    const order = chunks
      .map((c, i) => i)
      .sort((a, b) => (chunks[a] as ChunkRecord).text.length - (chunks[b] as ChunkRecord).text.length);
    // A cold build uses a second worker as well (one per core); the vectors are the same.
    const second = await createUseLiteEmbedder();
    try {
      const embedBatch = async (by: typeof embedder, ids: number[]) => {
        const vectors = await by.embed(
          ids.map((k) => `${(chunks[k] as ChunkRecord).title}\n${(chunks[k] as ChunkRecord).text}`),
        );
        ids.forEach((k, j) => all.set(vectors[j] as Float32Array, k * dims));
      };
      for (let i = 0; i < order.length; i += 64)
        await Promise.all([
          embedBatch(embedder, order.slice(i, i + 32)),
          embedBatch(second, order.slice(i + 32, i + 64)),
        ]);
    } finally {
      await second.close();
    }
    chunks.forEach((c, i) => vector.add(c.chunkId, all.slice(i * dims, (i + 1) * dims)));
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(cacheFile, new Uint8Array(all.buffer));
  });
  // The query embedding alone (nothing else running): a lower bound for every vector or
  // hybrid search, since both wait for it.
  const queryEmbedder = embedder ? queryEmbedderOf(embedder) : undefined;
  const embedLatencies: number[] = [];
  if (queryEmbedder)
    for (let round_ = 0; round_ < ROUNDS; round_++)
      for (const q of queries) embedLatencies.push((await timed(() => queryEmbedder.embed([q.query]))).ms);
  embedLatencies.sort((a, b) => a - b);
  const retriever = createRetriever({
    lexical,
    segmenter,
    ...(queryEmbedder ? { vector, embedder: queryEmbedder } : {}),
  });

  type ModeFigures = { p50: number; p95: number; recall10: number; mrr10: number };
  const modes: Record<string, ModeFigures> = {};
  const kinds: SearchKind[] = lexicalOnly ? ['lexical'] : ['lexical', 'vector', 'hybrid'];
  for (const kind of kinds) {
    const latencies: number[] = [];
    let ranked: string[][] = [];
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      ranked = [];
      for (const q of queries) {
        const { value, ms } = await timed(() =>
          retriever.search({ query: q.query, mode: 'any', kind, limit: 10 }),
        );
        latencies.push(ms);
        ranked.push(value.chunks.map((c) => docOf.get(c.chunkId) as string));
      }
    }
    latencies.sort((a, b) => a - b);
    modes[kind] = {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      ...quality(ranked, queries),
    };
  }

  const mini = new MiniSearch<EvalDocument>({
    fields: ['title', 'body'],
    storeFields: ['id'],
    searchOptions: { boost: { title: 5 } },
  });
  const miniBuild = await timed(() => mini.addAll(documents));
  const miniLatencies: number[] = [];
  let miniRanked: string[][] = [];
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    miniRanked = [];
    for (const q of queries) {
      const { value, ms } = await timed(() => mini.search(q.query).slice(0, 10));
      miniLatencies.push(ms);
      miniRanked.push(value.map((r) => String(r.id)));
    }
  }
  miniLatencies.sort((a, b) => a - b);
  const miniQuality = quality(miniRanked, queries);
  await embedder?.close();

  const lex = modes['lexical']!;
  const hyb = modes['hybrid'];
  const vec = modes['vector'];
  const maybe = (value: number | undefined): number | null => (value === undefined ? null : round(value));
  return {
    bench: 'retrieval',
    corpus: corpusName,
    documents: documents.length,
    chunks: chunks.length,
    queries: queries.length,
    embedder: embedder?.id ?? null,
    build_lexical_ms: round(lexicalBuild.ms, 1),
    build_vectors_ms: embedder ? round(vectorBuild.ms, 1) : null,
    vectors_cached: vectorsCached,
    lexical_p50_ms: round(lex.p50),
    lexical_p95_ms: round(lex.p95),
    vector_p50_ms: maybe(vec?.p50),
    vector_p95_ms: maybe(vec?.p95),
    hybrid_p50_ms: maybe(hyb?.p50),
    hybrid_p95_ms: maybe(hyb?.p95),
    query_embed_p50_ms: embedder ? round(percentile(embedLatencies, 50)) : null,
    query_embed_p95_ms: embedder ? round(percentile(embedLatencies, 95)) : null,
    lexical_recall10: round(lex.recall10),
    lexical_mrr10: round(lex.mrr10),
    vector_recall10: maybe(vec?.recall10),
    vector_mrr10: maybe(vec?.mrr10),
    hybrid_recall10: maybe(hyb?.recall10),
    hybrid_mrr10: maybe(hyb?.mrr10),
    minisearch_build_ms: round(miniBuild.ms, 1),
    minisearch_p50_ms: round(percentile(miniLatencies, 50)),
    minisearch_p95_ms: round(percentile(miniLatencies, 95)),
    minisearch_recall10: round(miniQuality.recall10),
    minisearch_mrr10: round(miniQuality.mrr10),
    ratio_lexical_p95_vs_minisearch: round(lex.p95 / percentile(miniLatencies, 95)),
    ratio_lexical_mrr_vs_minisearch: round(lex.mrr10 / (miniQuality.mrr10 || 1e-9)),
    ratio_hybrid_mrr_vs_lexical: hyb ? round(hyb.mrr10 / (lex.mrr10 || 1e-9)) : null,
  };
}
