// RAG-16/17: in-process ONNX embedder. One persistent InferenceSession per embedder (created
// once, reused by every `embed` call), batched inference, masked mean pooling when the model
// emits token embeddings (or a pooled output when the graph names one), then L2 normalisation.
// Asymmetric models (EmbeddingGemma) get their task prompts: `embed` prefixes documents with the
// document prompt, `embedQueries` prefixes queries with the query prompt.
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type Embedder } from '@arslan/retrieval';
import type * as OrtModule from 'onnxruntime-node';
import { EmbedderError, reasonOf } from './embedder.errors';
import { loadOnnxRuntime } from './onnx-telemetry';
import { type Tokenizer } from './tokenizer.port';
import { l2Normalise, maskedMeanPool } from './vector-math';
import { WordPieceTokenizer } from './wordpiece.tokenizer';

/** Output names holding one vector per input, already pooled by the graph. */
export const POOLED_OUTPUT_NAMES = ['sentence_embedding', 'pooled_output', 'text_embeds'] as const;
/** Output names holding [batch, seq, dim] token vectors, pooled here with the attention mask. */
export const TOKEN_OUTPUT_NAMES = ['token_embeddings', 'last_hidden_state'] as const;
const SUPPORTED_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids', 'position_ids']);

export interface OnnxEmbedderOptions {
  /** Directory holding the verified model files (see `installModel`). */
  modelDir: string;
  /** ONNX graph file inside `modelDir`; default `model.onnx`. */
  modelFile?: string;
  /** Embedder id; default `onnx:<basename(modelDir)>`. */
  id?: string;
  /** Expected vector size; checked against the graph's output (mismatch → `model_invalid`). */
  dimensions?: number;
  /** Defaults to a WordPiece tokenizer over `<modelDir>/vocab.txt`. */
  tokenizer?: Tokenizer;
  /** Texts per session run; default 32. */
  batchSize?: number;
  /** Force one output; default: a pooled output if present, else token embeddings. */
  outputName?: string;
  intraOpNumThreads?: number;
  /** Task prompts prepended before tokenization (e.g. EmbeddingGemma's); default none. */
  prompts?: EmbeddingPrompts;
}

export interface EmbeddingPrompts {
  /** Prepended to search queries, e.g. `task: search result | query: `. */
  query: string;
  /** Prepended to indexed documents, e.g. `title: none | text: `. */
  document: string;
}

/** An embedder that distinguishes queries from documents (`embed` = documents). */
export interface QueryAwareEmbedder extends Embedder {
  embedQueries(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export function isQueryAwareEmbedder(e: Embedder): e is QueryAwareEmbedder {
  return typeof (e as Partial<QueryAwareEmbedder>).embedQueries === 'function';
}

/** A view whose `embed` embeds queries: hand it to the retriever for search (same id and dims). */
export function queryEmbedderOf(e: Embedder): Embedder {
  if (!isQueryAwareEmbedder(e)) return e;
  return {
    id: e.id,
    dimensions: e.dimensions,
    local: e.local,
    embed: (texts, signal) => e.embedQueries(texts, signal),
    close: () => e.close(),
  };
}

interface OutputChoice {
  name: string;
  pooled: boolean;
}

function chooseOutput(session: OrtModule.InferenceSession, forced?: string): OutputChoice {
  const names = session.outputNames;
  const pick = (name: string): OutputChoice => {
    const meta = session.outputMetadata.find((m) => m.name === name);
    const rank = meta && meta.isTensor ? meta.shape.length : undefined;
    return { name, pooled: rank === 2 };
  };
  if (forced !== undefined) {
    if (!names.includes(forced)) throw new EmbedderError('model_invalid', `model has no output "${forced}"`);
    return pick(forced);
  }
  const pooled = POOLED_OUTPUT_NAMES.find((n) => names.includes(n));
  if (pooled) return pick(pooled);
  const tokens = TOKEN_OUTPUT_NAMES.find((n) => names.includes(n));
  if (tokens) return pick(tokens);
  throw new EmbedderError('model_invalid', `model has no known embedding output (found ${names.join(', ')})`);
}

function declaredDimension(session: OrtModule.InferenceSession, output: string): number | undefined {
  const meta = session.outputMetadata.find((m) => m.name === output);
  if (!meta || !meta.isTensor) return undefined;
  const last = meta.shape[meta.shape.length - 1];
  return typeof last === 'number' && last > 0 ? last : undefined;
}

/** Creates the embedder and its single persistent session (telemetry already disabled). */
export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<QueryAwareEmbedder> {
  const modelPath = join(options.modelDir, options.modelFile ?? 'model.onnx');
  try {
    const s = await stat(modelPath);
    if (!s.isFile()) throw new Error('not a file');
  } catch {
    throw new EmbedderError('model_missing', `ONNX model file not found: ${basename(modelPath)}`);
  }
  const tokenizer =
    options.tokenizer ?? (await WordPieceTokenizer.fromVocabFile(join(options.modelDir, 'vocab.txt')));
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 32));

  const ort = await loadOnnxRuntime();
  let session: OrtModule.InferenceSession;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      ...(options.intraOpNumThreads ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
    });
  } catch (e) {
    const reason = reasonOf(e);
    throw new EmbedderError('model_invalid', `ONNX Runtime could not load the model: ${reason}`);
  }

  try {
    const unsupported = session.inputNames.filter((n) => !SUPPORTED_INPUTS.has(n));
    if (!session.inputNames.includes('input_ids') || unsupported.length > 0) {
      throw new EmbedderError('model_invalid', `unsupported model inputs: ${session.inputNames.join(', ')}`);
    }
    const output = chooseOutput(session, options.outputName);
    const inputTypes = new Map(
      session.inputMetadata.map(
        (m) => [m.name, m.isTensor && m.type === 'int32' ? 'int32' : 'int64'] as const,
      ),
    );

    const runBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
      const encoded = texts.map((t) => tokenizer.encode(t).ids);
      const seq = Math.max(1, ...encoded.map((ids) => ids.length));
      const n = texts.length;
      const ids = new Array<number>(n * seq).fill(tokenizer.padId);
      const mask = new Array<number>(n * seq).fill(0);
      encoded.forEach((row, b) =>
        row.forEach((id, s) => {
          ids[b * seq + s] = id;
          mask[b * seq + s] = 1;
        }),
      );
      const tensor = (name: string, values: number[]): OrtModule.Tensor =>
        inputTypes.get(name) === 'int32'
          ? new ort.Tensor('int32', Int32Array.from(values), [n, seq])
          : new ort.Tensor(
              'int64',
              BigInt64Array.from(values, (v) => BigInt(v)),
              [n, seq],
            );
      const feeds: Record<string, OrtModule.Tensor> = {};
      for (const name of session.inputNames) {
        if (name === 'input_ids') feeds[name] = tensor(name, ids);
        else if (name === 'attention_mask') feeds[name] = tensor(name, mask);
        else if (name === 'token_type_ids') feeds[name] = tensor(name, new Array<number>(n * seq).fill(0));
        else
          feeds[name] = tensor(
            name,
            Array.from({ length: n * seq }, (_, i) => i % seq),
          );
      }
      let result: OrtModule.InferenceSession.OnnxValueMapType;
      try {
        result = await session.run(feeds, [output.name]);
      } catch (e) {
        const reason = reasonOf(e);
        throw new EmbedderError('inference_failed', reason);
      }
      const value = result[output.name] as OrtModule.Tensor | undefined;
      if (!value || value.type !== 'float32') {
        throw new EmbedderError('model_invalid', `output "${output.name}" is not a float32 tensor`);
      }
      const data = value.data as Float32Array;
      const dims = value.dims;
      const dim = dims[dims.length - 1] ?? 0;
      let vectors: Float32Array[];
      if (dims.length === 2) {
        vectors = Array.from({ length: n }, (_, b) => data.slice(b * dim, (b + 1) * dim));
      } else if (dims.length === 3 && dims[0] === n && dims[1] === seq) {
        vectors = maskedMeanPool(data, mask, n, seq, dim);
      } else {
        throw new EmbedderError('model_invalid', `unexpected output shape [${dims.join(', ')}]`);
      }
      return vectors.map(l2Normalise);
    };

    let dimensions = declaredDimension(session, output.name);
    if (dimensions === undefined) dimensions = (await runBatch(['']))[0]?.length ?? 0;
    if (options.dimensions !== undefined && options.dimensions !== dimensions) {
      throw new EmbedderError(
        'model_invalid',
        `model produces ${dimensions}-d vectors, configuration expects ${options.dimensions}`,
      );
    }

    let closed = false;
    const embedAll = async (
      texts: readonly string[],
      prompt: string,
      signal?: AbortSignal,
    ): Promise<Float32Array[]> => {
      if (closed) throw new EmbedderError('closed', 'embedder is closed');
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        if (signal?.aborted) throw new EmbedderError('aborted', 'embedding was aborted');
        out.push(...(await runBatch(texts.slice(i, i + batchSize).map((t) => prompt + t))));
      }
      return out;
    };
    const embedder: QueryAwareEmbedder = {
      id: options.id ?? `onnx:${basename(options.modelDir)}`,
      dimensions,
      local: true,
      embed: (texts, signal) => embedAll(texts, options.prompts?.document ?? '', signal),
      embedQueries: (texts, signal) => embedAll(texts, options.prompts?.query ?? '', signal),
      async close() {
        if (closed) return;
        closed = true;
        await session.release();
      },
    };
    return embedder;
  } catch (e) {
    await session.release().catch(() => undefined);
    throw e;
  }
}
