// RAG-16: opens an installed model directory (see `installModel`) as an ONNX embedder, with the
// tokenizer, dimensions and task prompts its manifest declares. EmbeddingGemma is
// `MODEL_MANIFESTS['embeddinggemma-300m-q4']`.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbedderError } from './embedder.errors';
import { HuggingFaceTokenizer } from './huggingface.tokenizer';
import { MODEL_MANIFESTS, type ModelManifest, modelManifestSchema } from './model.manifests';
import { createOnnxEmbedder, type QueryAwareEmbedder } from './onnx.embedder';
import { type Tokenizer } from './tokenizer.port';
import { WordPieceTokenizer } from './wordpiece.tokenizer';

export interface ManifestEmbedderOptions {
  manifest: ModelManifest;
  /** Directory holding the manifest's files at their relative paths. */
  modelDir: string;
  batchSize?: number;
  intraOpNumThreads?: number;
}

export async function loadManifestTokenizer(manifest: ModelManifest, modelDir: string): Promise<Tokenizer> {
  const maxLength = manifest.embedding?.maxTokens;
  const file = join(modelDir, manifest.tokenizer.file);
  if (manifest.tokenizer.kind === 'wordpiece-vocab') {
    return WordPieceTokenizer.fromVocabFile(file, maxLength === undefined ? {} : { maxLength });
  }
  const config =
    manifest.tokenizer.config === undefined ? undefined : join(modelDir, manifest.tokenizer.config);
  return HuggingFaceTokenizer.fromFiles(file, config, maxLength === undefined ? {} : { maxLength });
}

/** True when `dir` holds the manifest's ONNX graph and tokenizer (a candidate for it). */
export async function hasManifestLayout(manifest: ModelManifest, dir: string): Promise<boolean> {
  const isFile = (p: string) =>
    stat(join(dir, p)).then(
      (s) => s.isFile(),
      () => false,
    );
  return (await isFile(manifest.modelFile)) && (await isFile(manifest.tokenizer.file));
}

export async function createManifestEmbedder(options: ManifestEmbedderOptions): Promise<QueryAwareEmbedder> {
  const checked = modelManifestSchema.safeParse(options.manifest);
  if (!checked.success) throw new EmbedderError('invalid_config', 'model manifest is malformed');
  const manifest = checked.data;
  const tokenizer = await loadManifestTokenizer(manifest, options.modelDir);
  const prompts = manifest.embedding?.prompts;
  return createOnnxEmbedder({
    modelDir: options.modelDir,
    modelFile: manifest.modelFile,
    id: manifest.id,
    dimensions: manifest.dimensions,
    tokenizer,
    ...(prompts ? { prompts } : {}),
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.intraOpNumThreads !== undefined ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
  });
}

/**
 * `embedder = "onnx"` over `rag.local_model_dir`: a directory with the EmbeddingGemma export layout
 * runs as EmbeddingGemma (Gemma tokenizer, prompts, 768-d check); any other directory is a
 * `model.onnx` + WordPiece `vocab.txt` model.
 */
export async function createLocalDirEmbedder(modelDir: string): Promise<QueryAwareEmbedder> {
  const gemma = MODEL_MANIFESTS['embeddinggemma-300m-q4'];
  if (await hasManifestLayout(gemma, modelDir)) return createManifestEmbedder({ manifest: gemma, modelDir });
  return createOnnxEmbedder({ modelDir });
}
