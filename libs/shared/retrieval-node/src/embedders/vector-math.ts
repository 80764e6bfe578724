// Pooling and normalisation shared by the local embedders (RAG-13: vectors are L2-normalised).

/** L2-normalises `v` in place and returns it. A zero vector stays zero (no NaN). */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/**
 * Mean pooling over the token axis of a row-major [batch, seq, dim] tensor, counting only the
 * positions where `mask` [batch, seq] is non-zero. Returns one (un-normalised) vector per row.
 */
export function maskedMeanPool(
  data: Float32Array,
  mask: ArrayLike<number | bigint>,
  batch: number,
  seq: number,
  dim: number,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    let count = 0;
    for (let s = 0; s < seq; s++) {
      if (Number(mask[b * seq + s] ?? 0) === 0) continue;
      count++;
      const base = (b * seq + s) * dim;
      for (let d = 0; d < dim; d++) v[d] = (v[d] ?? 0) + (data[base + d] ?? 0);
    }
    if (count > 0) for (let d = 0; d < dim; d++) v[d] = (v[d] ?? 0) / count;
    out.push(v);
  }
  return out;
}

/** Cosine similarity; for normalised vectors this is the dot product. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
