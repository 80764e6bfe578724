// USE-lite is a sentence encoder: on a whole 768-character passage its vector is a blur of several
// sentences, and on the shipped paraphrase set it ranked the right passage first far less often
// than BM25. A passage's vector is therefore the re-normalised mean of its sentences' unit vectors
// (one vector per chunk: the same storage and query-time scan as before). docs/benchmarks.md has
// the measurement (vector MRR@10 0.433 → 0.599 on the same set).
import { l2Normalise } from './vector-math';

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The non-blank sentences of `text` (a line break ends one too), trimmed; `[text]` when there are none. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) {
    const sentence = segment.trim();
    if (sentence !== '') out.push(sentence);
  }
  return out.length > 0 ? out : [text];
}

/**
 * Embeds each text as the mean of its sentences' vectors. `embedUnits` embeds single units and
 * returns unit vectors in order; units go to it sorted by length, so each batch pads little.
 */
export async function embedAsSentenceMeans(
  texts: readonly string[],
  dimensions: number,
  embedUnits: (units: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const perText = texts.map(splitSentences);
  const units = perText.flat();
  const order = units
    .map((_, i) => i)
    .sort((a, b) => (units[a] as string).length - (units[b] as string).length);
  const sortedVectors = await embedUnits(order.map((i) => units[i] as string));
  const vectors: Float32Array[] = new Array<Float32Array>(units.length);
  order.forEach((unitIndex, k) => (vectors[unitIndex] = sortedVectors[k] as Float32Array));
  let next = 0;
  return perText.map((sentences) => {
    const mean = new Float32Array(dimensions);
    const first = vectors[next] as Float32Array;
    for (let s = 0; s < sentences.length; s++) {
      const v = vectors[next++] as Float32Array;
      for (let d = 0; d < dimensions; d++) mean[d] = (mean[d] ?? 0) + (v[d] ?? 0);
    }
    l2Normalise(mean);
    // Sentences that cancel out exactly leave no direction: keep the first sentence's instead.
    return mean.some((x) => x !== 0) ? mean : Float32Array.from(first);
  });
}
