// The in-memory vector index: normalised Float32 vectors, cosine similarity, exact top-k (RAG-13).
import { type VectorIndex } from '@arslan/retrieval';

export interface VectorIndexOptions {
  dimensions: number;
  /** Storage never grows beyond this many vectors (the cache passes its byte limit / (4 × dims)). */
  maxVectors?: number;
}

export interface InMemoryVectorIndex extends VectorIndex {
  readonly dimensions: number;
  has(chunkId: string): boolean;
  /** Bytes of vector data held: 4 × dimensions × size() (RAG-2). */
  byteLength(): number;
}

const INITIAL_CAPACITY = 64;

/**
 * Vectors live in one contiguous `Float32Array` (row i = slot i), grown by doubling. Vectors are
 * copied and L2-normalised on `add`, the query is normalised on `search`, so cosine = dot product.
 * Search is an exact scan with a bounded min-heap for the top k. Removal moves the last row into
 * the freed slot.
 */
export function createVectorIndex(options: VectorIndexOptions): InMemoryVectorIndex {
  const dims = options.dimensions;
  if (!Number.isInteger(dims) || dims < 1)
    throw new RangeError(`vector dimensions must be a positive integer, got ${dims}`);
  const maxVectors = options.maxVectors ?? Number.POSITIVE_INFINITY;
  let data = new Float32Array(0);
  let capacity = 0;
  let ids: string[] = [];
  let slots = new Map<string, number>();

  function ensureCapacity(needed: number): void {
    if (needed <= capacity) return;
    let next = Math.max(INITIAL_CAPACITY, capacity * 2);
    while (next < needed) next *= 2;
    next = Math.max(needed, Math.min(next, maxVectors));
    const grown = new Float32Array(next * dims);
    grown.set(data.subarray(0, ids.length * dims));
    data = grown;
    capacity = next;
  }

  return {
    dimensions: dims,
    add(chunkId, vector) {
      const unit = normalised(vector, dims);
      let slot = slots.get(chunkId);
      if (slot === undefined) {
        slot = ids.length;
        ensureCapacity(slot + 1);
        ids.push(chunkId);
        slots.set(chunkId, slot);
      }
      data.set(unit, slot * dims);
    },
    removeChunks(chunkIds) {
      for (const chunkId of chunkIds) {
        const slot = slots.get(chunkId);
        if (slot === undefined) continue;
        const last = ids.length - 1;
        if (slot !== last) {
          const moved = ids[last] as string;
          data.copyWithin(slot * dims, last * dims, (last + 1) * dims);
          ids[slot] = moved;
          slots.set(moved, slot);
        }
        ids.pop();
        slots.delete(chunkId);
      }
    },
    search(query, limit) {
      const q = normalised(query, dims);
      const k = Math.min(Math.floor(limit), ids.length);
      if (!(k >= 1)) return [];
      const heap = new TopK(k);
      scan(data, q, ids.length, dims, heap);
      return heap.sorted().map(({ row, score }) => ({ chunkId: ids[row] as string, score }));
    },
    has(chunkId) {
      return slots.has(chunkId);
    },
    size() {
      return ids.length;
    },
    byteLength() {
      return ids.length * dims * Float32Array.BYTES_PER_ELEMENT;
    },
    clear() {
      data.fill(0);
      data = new Float32Array(0);
      capacity = 0;
      ids = [];
      slots = new Map();
    },
  };
}

/** Dot product of q with every row; a free function over locals so V8 keeps the loop tight. */
function scan(data: Float32Array, q: Float32Array, n: number, dims: number, heap: TopK): void {
  const tail = dims - (dims % 4);
  for (let row = 0, base = 0; row < n; row++, base += dims) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d < tail; d += 4) {
      const b = base + d;
      s0 += (data[b] as number) * (q[d] as number);
      s1 += (data[b + 1] as number) * (q[d + 1] as number);
      s2 += (data[b + 2] as number) * (q[d + 2] as number);
      s3 += (data[b + 3] as number) * (q[d + 3] as number);
    }
    for (; d < dims; d++) s0 += (data[base + d] as number) * (q[d] as number);
    heap.offer(row, s0 + s1 + s2 + s3);
  }
}

/** A copy of `vector` scaled to unit length; rejects a wrong length, a zero vector and non-finite values. */
export function normalised(vector: Float32Array, dims: number): Float32Array {
  if (vector.length !== dims)
    throw new RangeError(`expected a vector of ${dims} dimensions, got ${vector.length}`);
  let sum = 0;
  for (let i = 0; i < dims; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm))
    throw new RangeError('cannot normalise a zero or non-finite vector');
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = (vector[i] as number) / norm;
  return out;
}

/** (rowA, scoreA) ranks below (rowB, scoreB): a lower score, or an equal score and a later row. */
function worse(rowA: number, scoreA: number, rowB: number, scoreB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && rowA > rowB);
}

/** A fixed-size min-heap keeping the k best (score desc, then lower row first); the root is the worst kept. */
class TopK {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;
  constructor(private readonly k: number) {
    this.rows = new Int32Array(k);
    this.scores = new Float64Array(k);
  }
  offer(row: number, score: number): void {
    const rows = this.rows;
    const scores = this.scores;
    if (this.count < this.k) {
      let i = this.count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(row, score, rows[parent] as number, scores[parent] as number)) break;
        rows[i] = rows[parent] as number;
        scores[i] = scores[parent] as number;
        i = parent;
      }
      rows[i] = row;
      scores[i] = score;
      return;
    }
    if (!worse(rows[0] as number, scores[0] as number, row, score)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.k) break;
      const right = left + 1;
      const child =
        right < this.k &&
        worse(rows[right] as number, scores[right] as number, rows[left] as number, scores[left] as number)
          ? right
          : left;
      if (!worse(rows[child] as number, scores[child] as number, row, score)) break;
      rows[i] = rows[child] as number;
      scores[i] = scores[child] as number;
      i = child;
    }
    rows[i] = row;
    scores[i] = score;
  }
  sorted(): { row: number; score: number }[] {
    const out: { row: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++)
      out.push({ row: this.rows[i] as number, score: this.scores[i] as number });
    return out.sort((a, b) => b.score - a.score || a.row - b.row);
  }
}
