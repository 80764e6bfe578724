/**
 * @jest-environment <rootDir>/src/embedders/testing/onnx-jest.environment.cjs
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEmbedderError } from './embedder.errors';
import { createOnnxEmbedder } from './onnx.embedder';
import { loadOnnxRuntime, ORT_TELEMETRY_ENV } from './onnx-telemetry';
import { buildTinyEmbeddingModel } from './testing/onnx-model.builder';
import { WordPieceTokenizer } from './wordpiece.tokenizer';

// id: 0 [PAD], 1 [UNK], 2 [CLS], 3 [SEP], 4 cat, 5 sat, 6 ##s, 7 mat, 8 ., 9 dog
const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'cat', 'sat', '##s', 'mat', '.', 'dog'];
const TABLE = [
  [100, 100, 100], // [PAD]: must never reach a pooled vector
  [0, 0, 1],
  [1, 0, 0],
  [0, 1, 0],
  [2, 0, 0],
  [0, 2, 0],
  [0, 0, 2],
  [1, 1, 1],
  [0, 0, 0],
  [3, 4, 0],
];

function normalised(v: number[]): number[] {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function expectVector(actual: Float32Array | undefined, expected: number[]): void {
  expect(actual).toBeDefined();
  expect(actual!.length).toBe(expected.length);
  expected.forEach((x, i) => expect(actual![i]).toBeCloseTo(x, 5));
}

describe('WordPieceTokenizer', () => {
  const tok = new WordPieceTokenizer(VOCAB);

  it('adds [CLS]/[SEP], lower-cases, splits punctuation and uses ## sub-words', () => {
    expect(tok.encode('Cats SAT.').ids).toEqual([2, 4, 6, 5, 8, 3]);
  });

  it('maps unknown words to [UNK] and truncates to maxLength', () => {
    expect(tok.encode('zebra cat').ids).toEqual([2, 1, 4, 3]);
    const short = new WordPieceTokenizer(VOCAB, { maxLength: 4 });
    expect(short.encode('cat sat mat dog').ids).toEqual([2, 4, 5, 3]);
  });

  it('strips accents and splits CJK characters', () => {
    expect(tok.preTokenize('Café 北京')).toEqual(['cafe', '北', '京']);
  });
});

describe('createOnnxEmbedder (tiny hand-encoded ONNX model)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'onnx-embedder-'));
    await writeFile(join(dir, 'model.onnx'), buildTinyEmbeddingModel({ table: TABLE }));
    await writeFile(join(dir, 'vocab.txt'), VOCAB.join('\n'));
    await writeFile(join(dir, 'pooled.onnx'), buildTinyEmbeddingModel({ table: TABLE, pooledOutput: true }));
    await writeFile(
      join(dir, 'masked.onnx'),
      buildTinyEmbeddingModel({ table: TABLE, withAttentionMask: true }),
    );
    await writeFile(join(dir, 'garbage.onnx'), 'not a protobuf model');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('disables ORT telemetry before loading the runtime (RAG-17)', async () => {
    process.env[ORT_TELEMETRY_ENV] = '0';
    await loadOnnxRuntime();
    expect(process.env[ORT_TELEMETRY_ENV]).toBe('1');
  });

  it('leaves no ORT telemetry traces once a session exists (RAG-17 canary)', async () => {
    const ort = await loadOnnxRuntime();
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    // With telemetry on, ORT 1.30 on Linux writes /tmp/mat-debug-<pid>.log when its env starts.
    expect(existsSync(join('/tmp', `mat-debug-${process.pid}.log`))).toBe(false);
    await session.release();
  });

  it('onnxruntime-node loads and runs the hand-encoded model', async () => {
    const ort = await loadOnnxRuntime();
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    expect(session.inputNames).toEqual(['input_ids']);
    expect(session.outputNames).toEqual(['token_embeddings']);
    const ids = new ort.Tensor('int64', BigInt64Array.from([4n, 9n]), [1, 2]);
    const out = await session.run({ input_ids: ids });
    expect(out['token_embeddings']!.dims).toEqual([1, 2, 3]);
    expect(Array.from(out['token_embeddings']!.data as Float32Array)).toEqual([2, 0, 0, 3, 4, 0]);
    await session.release();
  });

  it('mean-pools token embeddings with the attention mask and L2-normalises', async () => {
    const embedder = await createOnnxEmbedder({ modelDir: dir, id: 'onnx:tiny' });
    expect(embedder).toMatchObject({ id: 'onnx:tiny', dimensions: 3, local: true });
    // "cat" → [CLS] cat [SEP] = (1,0,0)+(2,0,0)+(0,1,0) → /3 → (1, 1/3, 0)
    // "dog cats" → [CLS] dog cat ##s [SEP] = (1+3+2, 4+1, 2)/5 = (6/5, 1, 2/5); padding excluded
    const [a, b] = await embedder.embed(['cat', 'dog cats']);
    expectVector(a, normalised([1, 1 / 3, 0]));
    expectVector(b, normalised([6 / 5, 1, 2 / 5]));
    expect(Math.hypot(...b!)).toBeCloseTo(1, 6);
    await embedder.close();
  });

  it('batches inputs and keeps their order; the one session is reused', async () => {
    const embedder = await createOnnxEmbedder({ modelDir: dir, batchSize: 2 });
    const texts = ['cat', 'dog', 'sat mat', 'cat', 'zebra'];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(5);
    const single = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]));
    vectors.forEach((v, i) => expectVector(v, Array.from(single[i]!)));
    expect(await embedder.embed([])).toEqual([]);
    await embedder.close();
    await expect(embedder.embed(['cat'])).rejects.toMatchObject({ code: 'closed' });
  });

  it('prefers a pooled output named sentence_embedding', async () => {
    const embedder = await createOnnxEmbedder({ modelDir: dir, modelFile: 'pooled.onnx' });
    const [v] = await embedder.embed(['cat']);
    expectVector(v, normalised([1, 1 / 3, 0])); // single row: no padding, same mean
    await embedder.close();
  });

  it('feeds attention_mask when the graph declares it', async () => {
    const embedder = await createOnnxEmbedder({ modelDir: dir, modelFile: 'masked.onnx', dimensions: 3 });
    const [, b] = await embedder.embed(['cat', 'dog cats']);
    expectVector(b, normalised([6 / 5, 1, 2 / 5]));
    await embedder.close();
  });

  it('refuses missing, invalid or mismatched models with typed errors', async () => {
    await expect(createOnnxEmbedder({ modelDir: join(dir, 'nope') })).rejects.toMatchObject({
      code: 'model_missing',
    });
    await expect(createOnnxEmbedder({ modelDir: dir, modelFile: 'garbage.onnx' })).rejects.toMatchObject({
      code: 'model_invalid',
    });
    const err = await createOnnxEmbedder({ modelDir: dir, dimensions: 768 }).catch((e: unknown) => e);
    expect(isEmbedderError(err, 'model_invalid')).toBe(true);
  });

  it('stops between batches when the signal is aborted', async () => {
    const embedder = await createOnnxEmbedder({ modelDir: dir, batchSize: 1 });
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['cat', 'dog'], controller.signal)).rejects.toMatchObject({
      code: 'aborted',
    });
    await embedder.close();
  });
});
