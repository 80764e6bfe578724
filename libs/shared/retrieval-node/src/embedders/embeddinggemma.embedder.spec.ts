/**
 * @jest-environment <rootDir>/src/embedders/testing/onnx-jest.environment.cjs
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HuggingFaceTokenizer } from './huggingface.tokenizer';
import { createLocalDirEmbedder, createManifestEmbedder, hasManifestLayout } from './manifest.embedder';
import { installModel } from './model-install';
import {
  EMBEDDINGGEMMA_DOCUMENT_PROMPT,
  EMBEDDINGGEMMA_QUERY_PROMPT,
  MODEL_MANIFESTS,
  type ModelManifest,
} from './model.manifests';
import { queryEmbedderOf } from './onnx.embedder';
import { buildTinyGemmaTokenizer, GEMMA_SPECIALS } from './testing/gemma-tokenizer.builder';
import { buildTinyEmbeddingModel } from './testing/onnx-model.builder';

jest.setTimeout(60_000);

const GEMMA = MODEL_MANIFESTS['embeddinggemma-300m-q4'];
const DIM = GEMMA.dimensions; // 768, as the real model
const tiny = buildTinyGemmaTokenizer();
const VOCAB_SIZE = Object.keys(tiny.vocab).length;
// A deterministic [vocab][768] table; the <pad> row is huge so any padding leak shows.
const TABLE = Array.from({ length: VOCAB_SIZE }, (_, t) =>
  Array.from({ length: DIM }, (_, d) =>
    t === GEMMA_SPECIALS.pad ? 1000 : (((t * 31 + d * 17) % 13) - 6) / 6,
  ),
);

function expectedVector(ids: number[]): number[] {
  const sum = new Array<number>(DIM).fill(0);
  for (const id of ids) TABLE[id]!.forEach((x, d) => (sum[d] = sum[d]! + x / ids.length));
  const norm = Math.hypot(...sum);
  return sum.map((x) => x / norm);
}

function expectClose(actual: Float32Array | undefined, expected: number[]): void {
  expect(actual).toBeInstanceOf(Float32Array);
  expect(actual!.length).toBe(DIM);
  expected.forEach((x, i) => expect(actual![i]).toBeCloseTo(x, 4));
}

/** The manifest's files as the tiny stand-ins (same paths as the published export). */
function tinyFiles(): Record<string, Buffer> {
  return {
    'onnx/model_q4.onnx': Buffer.from(buildTinyEmbeddingModel({ table: TABLE, withAttentionMask: true })),
    // The tiny graph keeps its weights inline; the real export stores them here.
    'onnx/model_q4.onnx_data': Buffer.from('external weights of the real export'),
    'tokenizer.json': Buffer.from(JSON.stringify(tiny.json)),
    'tokenizer_config.json': Buffer.from(JSON.stringify(tiny.config)),
    'config.json': Buffer.from(JSON.stringify({ model_type: 'gemma3_text', hidden_size: DIM })),
  };
}

function pinned(files: Record<string, Buffer>): ModelManifest {
  return {
    ...GEMMA,
    revision: 'test-revision',
    files: GEMMA.files.map((f) => {
      const data = files[f.path]!;
      return { path: f.path, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length };
    }),
  };
}

describe('HuggingFaceTokenizer on a Gemma-style tokenizer.json (RAG-16)', () => {
  const tok = new HuggingFaceTokenizer(tiny.json, tiny.config);

  it('RAG-16: applies the ▁ normalizer, BPE merges, <bos>/<eos> and byte fallback', () => {
    expect(tok.tokens(' hello wörld')).toEqual([
      '<bos>',
      '▁hello',
      '▁w',
      '<0xC3>',
      '<0xB6>',
      'r',
      'l',
      'd',
      '<eos>',
    ]);
    const ids = tok.encode(' hello').ids;
    expect(ids).toEqual([GEMMA_SPECIALS.bos, tiny.vocab['▁hello'], GEMMA_SPECIALS.eos]);
    expect(tok.encode('é').ids).toEqual([GEMMA_SPECIALS.bos, GEMMA_SPECIALS.unk, GEMMA_SPECIALS.eos]);
    expect(tok.padId).toBe(GEMMA_SPECIALS.pad);
    expect(tok.id).toBe(`hf-tokenizer:bpe:${VOCAB_SIZE}`);
  });

  it('RAG-16: truncates to model_max_length and keeps the trailing <eos>', () => {
    const short = new HuggingFaceTokenizer(tiny.json, { ...tiny.config, model_max_length: 4 });
    expect(short.encode(' hello world hello').ids).toEqual([
      GEMMA_SPECIALS.bos,
      tiny.vocab['▁hello'],
      tiny.vocab['▁world'],
      GEMMA_SPECIALS.eos,
    ]);
  });

  it('rejects a file that is not a tokenizer.json with model_invalid', () => {
    expect(() => new HuggingFaceTokenizer({ model: { type: 'Magic' } })).toThrow(
      expect.objectContaining({ code: 'model_invalid' }),
    );
    expect(() => new HuggingFaceTokenizer([])).toThrow(expect.objectContaining({ code: 'model_invalid' }));
  });
});

describe('EmbeddingGemma from rag.local_model_dir (RAG-16, RAG-18)', () => {
  let work: string;
  let localModelDir: string;
  const files = tinyFiles();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'embeddinggemma-'));
    localModelDir = join(work, 'local');
    for (const [path, data] of Object.entries(files)) {
      await mkdir(dirname(join(localModelDir, path)), { recursive: true });
      await writeFile(join(localModelDir, path), data);
    }
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('RAG-18: the shipped manifest has no invented hashes, so it cannot be installed yet', async () => {
    expect(GEMMA.files.every((f) => f.sha256 === null)).toBe(true);
    await expect(
      installModel({ manifest: GEMMA, from: { localDir: localModelDir }, targetDir: join(work, 'unpinned') }),
    ).rejects.toMatchObject({ code: 'manifest_unpinned' });
  });

  it('RAG-18: a file whose SHA-256 differs publishes nothing', async () => {
    const bad = pinned({ ...files, 'tokenizer.json': Buffer.from('{}') });
    const target = join(work, 'models-bad');
    await expect(
      installModel({ manifest: bad, from: { localDir: localModelDir }, targetDir: target }),
    ).rejects.toMatchObject({
      code: 'checksum_mismatch',
    });
    expect(await readdir(join(target, GEMMA.name))).toEqual([]);
  });

  it('RAG-16/18: installs with SHA-256 checks, then embeds 768-d with prompts, masked mean pooling and L2 norm', async () => {
    const manifest = pinned(files);
    const targetDir = join(work, 'models');
    const installed = await installModel({ manifest, from: { localDir: localModelDir }, targetDir });
    expect(installed.fetched.sort()).toEqual(Object.keys(files).sort());
    expect(await hasManifestLayout(manifest, installed.dir)).toBe(true);
    // Offline reuse: the verified copy is used without touching the source again.
    await rm(localModelDir, { recursive: true, force: true });
    await expect(
      installModel({ manifest, from: { localDir: localModelDir }, targetDir }),
    ).resolves.toMatchObject({
      reused: true,
      fetched: [],
    });

    const embedder = await createManifestEmbedder({ manifest, modelDir: installed.dir, batchSize: 2 });
    expect(embedder).toMatchObject({ id: 'onnx:embeddinggemma-300m-q4', dimensions: 768, local: true });
    const tok = new HuggingFaceTokenizer(tiny.json, tiny.config);
    const docs = [' hello world', ' hello', 'wörld'];
    const docVectors = await embedder.embed(docs);
    expect(docVectors).toHaveLength(3);
    docVectors.forEach((v, i) => {
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      expectClose(v, expectedVector(tok.encode(EMBEDDINGGEMMA_DOCUMENT_PROMPT + docs[i]).ids));
    });
    const [query] = await embedder.embedQueries([' hello world']);
    expectClose(query, expectedVector(tok.encode(EMBEDDINGGEMMA_QUERY_PROMPT + ' hello world').ids));
    // The task prompt really changes the vector: query and document of the same text differ.
    expect(
      Math.abs(query![0]! - docVectors[0]![0]!) + Math.abs(query![1]! - docVectors[0]![1]!),
    ).toBeGreaterThan(1e-3);
    // The retriever's view embeds queries.
    const [viaView] = await queryEmbedderOf(embedder).embed([' hello world']);
    expectClose(viaView, Array.from(query!));
    await embedder.close();
  });

  it('RAG-16: a model whose output is not 768-d is refused for the EmbeddingGemma manifest', async () => {
    const narrow = {
      ...files,
      'onnx/model_q4.onnx': Buffer.from(buildTinyEmbeddingModel({ table: TABLE.map((r) => r.slice(0, 8)) })),
    };
    const dir = join(work, 'narrow');
    for (const [path, data] of Object.entries(narrow)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), data);
    }
    await expect(createManifestEmbedder({ manifest: pinned(narrow), modelDir: dir })).rejects.toMatchObject({
      code: 'model_invalid',
      message: expect.stringContaining('expects 768'),
    });
  });

  it('RAG-16: embedder = "onnx" over a local_model_dir in the EmbeddingGemma layout runs as EmbeddingGemma', async () => {
    const dir = join(work, 'as-configured');
    for (const [path, data] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), data);
    }
    const embedder = await createLocalDirEmbedder(dir);
    expect(embedder).toMatchObject({ id: 'onnx:embeddinggemma-300m-q4', dimensions: 768 });
    const tok = new HuggingFaceTokenizer(tiny.json, tiny.config);
    const [q] = await embedder.embedQueries([' hello']);
    expectClose(q, expectedVector(tok.encode(EMBEDDINGGEMMA_QUERY_PROMPT + ' hello').ids));
    await embedder.close();
    // Any other layout is a WordPiece model (model.onnx + vocab.txt).
    const bert = join(work, 'bert');
    await mkdir(bert, { recursive: true });
    await writeFile(
      join(bert, 'model.onnx'),
      buildTinyEmbeddingModel({
        table: [
          [1, 0],
          [0, 1],
          [1, 1],
          [2, 1],
        ],
      }),
    );
    await writeFile(join(bert, 'vocab.txt'), '[PAD]\n[UNK]\n[CLS]\n[SEP]');
    const plain = await createLocalDirEmbedder(bert);
    expect(plain).toMatchObject({ id: 'onnx:bert', dimensions: 2 });
    await plain.close();
  });
});
