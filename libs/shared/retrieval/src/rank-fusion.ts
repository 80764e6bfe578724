// RAG-14, KNOW-02: Reciprocal Rank Fusion with k = 60, on ranks only.
import { type ScoredChunk } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';

export const RRF_K = 60;

/**
 * Each ranking is a list ordered best first; a chunk at 1-based position r adds 1 / (k + r). The input
 * `score` fields are ignored: BM25 and cosine have different scales and are never mixed (KNOW-02).
 * A chunk repeated within one ranking counts once, at its best position. Ties: better best rank, then
 * chunk id.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly ScoredChunk[])[],
  k = RRF_K,
): ScoredChunk[] {
  if (!Number.isFinite(k) || k <= 0) throw new RetrievalError('invalid_argument', 'RRF k must be positive');
  const fused = new Map<string, { score: number; bestRank: number }>();
  for (const ranking of rankings) {
    const seen = new Set<string>();
    ranking.forEach((hit, index) => {
      if (seen.has(hit.chunkId)) return;
      seen.add(hit.chunkId);
      const rank = index + 1;
      const entry = fused.get(hit.chunkId) ?? { score: 0, bestRank: Infinity };
      entry.score += 1 / (k + rank);
      entry.bestRank = Math.min(entry.bestRank, rank);
      fused.set(hit.chunkId, entry);
    });
  }
  return [...fused.entries()]
    .sort(
      ([idA, a], [idB, b]) =>
        b.score - a.score || a.bestRank - b.bestRank || (idA < idB ? -1 : idA > idB ? 1 : 0),
    )
    .map(([chunkId, { score }]) => ({ chunkId, score }));
}
