// RAG-13: vectors are L2-normalised Float32Arrays compared by cosine similarity.
import { RetrievalError } from './retrieval.errors';

/** A new unit-length copy of `vector`; a zero, empty or non-finite vector is an `invalid_argument` error. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (vector.length === 0 || !Number.isFinite(norm) || norm === 0) {
    throw new RetrievalError('invalid_argument', 'cannot normalise an empty, zero or non-finite vector');
  }
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i += 1) out[i] = (vector[i] as number) / norm;
  return out;
}

/** Cosine similarity of two normalised vectors of equal length (their dot product, clamped to [-1, 1]). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RetrievalError('invalid_argument', 'vector dimensions differ');
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] as number) * (b[i] as number);
  return Math.min(1, Math.max(-1, dot));
}
