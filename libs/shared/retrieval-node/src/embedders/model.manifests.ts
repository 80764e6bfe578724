// Model manifests for `rag model-install` (RAG-16, RAG-18). Files are public data under their own
// license (RAG-19). A manifest with an unknown (`null`) hash or revision cannot be installed.
import { z } from 'zod';

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const safeRelativePath = z
  .string()
  .min(1)
  .max(200)
  .refine((p) => p.split('/').every((s) => SAFE_SEGMENT.test(s) && s !== '..'), 'unsafe file path');

export const modelFileSchema = z.object({
  /** Relative path inside the repository and inside the installed model directory. */
  path: safeRelativePath,
  /** Lowercase hex SHA-256, or null when not known yet (install refuses it). */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** Exact size in bytes when known; downloads larger than this are cut off. */
  bytes: z.number().int().nonnegative().nullable(),
});

export const modelManifestSchema = z.object({
  /** The embedder id it produces, e.g. `onnx:embeddinggemma-300m-q4`. */
  id: z.string().min(1).max(100),
  /** Directory name under the models dir. */
  name: z.string().regex(SAFE_SEGMENT).max(100),
  /** Pinned source revision (a commit hash), also the versioned directory name; null = unknown. */
  revision: z.string().regex(SAFE_SEGMENT).max(100).nullable(),
  /** Human-readable source, e.g. a Hugging Face repository id. Never contains credentials. */
  repository: z.string().min(1).max(200),
  dimensions: z.number().int().positive(),
  /** The ONNX graph file among `files`. */
  modelFile: safeRelativePath,
  tokenizer: z.object({
    kind: z.enum(['wordpiece-vocab', 'huggingface-tokenizer-json']),
    file: safeRelativePath,
    /** `tokenizer_config.json` (max length, pad token) for `huggingface-tokenizer-json`. */
    config: safeRelativePath.optional(),
  }),
  /** How texts are embedded; absent = no prompts, the tokenizer's own maximum length. */
  embedding: z
    .object({
      /** Task prompts of asymmetric models, prepended before tokenization. */
      prompts: z
        .object({ query: z.string().max(200), document: z.string().max(200) })
        .strict()
        .nullable(),
      /** Truncation length in tokens, special tokens included. */
      maxTokens: z.number().int().positive().max(8192),
    })
    .strict()
    .optional(),
  license: z.string().min(1).max(100),
  files: z.array(modelFileSchema).min(1).max(64),
});

export type ModelFileEntry = z.infer<typeof modelFileSchema>;
export type ModelManifest = z.infer<typeof modelManifestSchema>;

/** EmbeddingGemma's retrieval prompts (model card, `config_sentence_transformers.json`). */
export const EMBEDDINGGEMMA_QUERY_PROMPT = 'task: search result | query: ';
export const EMBEDDINGGEMMA_DOCUMENT_PROMPT = 'title: none | text: ';

export const MODEL_MANIFESTS = {
  /**
   * EmbeddingGemma 300M, 4-bit quantised ONNX export, 768-d (RAG-16), ≈ 209 MiB.
   * UNKNOWN HERE: this machine has no network and no note or seed records them, so the pinned
   * revision, the file sizes and every SHA-256 are `null` on purpose (never invented). Fill them
   * from the repository at a chosen commit (`git lfs ls-files -l` / the LFS pointer
   * `oid sha256:`) before shipping; until then `installModel` refuses this manifest with
   * `manifest_unpinned` (a copy with the hashes filled in installs from `rag.local_model_dir`).
   * The file names follow the onnx-community export layout and must be re-checked at that commit.
   * Tokenizer: Gemma's BPE `tokenizer.json` with byte fallback (HuggingFaceTokenizer). The graph
   * emits `sentence_embedding` (pooled + projected); a graph with only token outputs is mean-pooled.
   * Prompts follow the model card's retrieval task: queries `task: search result | query: `,
   * documents `title: none | text: `. Context length 2048 tokens.
   */
  'embeddinggemma-300m-q4': {
    id: 'onnx:embeddinggemma-300m-q4',
    name: 'embeddinggemma-300m-q4',
    revision: null,
    repository: 'onnx-community/embeddinggemma-300m-ONNX',
    dimensions: 768,
    modelFile: 'onnx/model_q4.onnx',
    tokenizer: {
      kind: 'huggingface-tokenizer-json',
      file: 'tokenizer.json',
      config: 'tokenizer_config.json',
    },
    embedding: {
      prompts: { query: EMBEDDINGGEMMA_QUERY_PROMPT, document: EMBEDDINGGEMMA_DOCUMENT_PROMPT },
      maxTokens: 2048,
    },
    license: 'Gemma',
    files: [
      { path: 'onnx/model_q4.onnx', sha256: null, bytes: null },
      { path: 'onnx/model_q4.onnx_data', sha256: null, bytes: null },
      { path: 'tokenizer.json', sha256: null, bytes: null },
      { path: 'tokenizer_config.json', sha256: null, bytes: null },
      { path: 'config.json', sha256: null, bytes: null },
    ],
  },
} as const satisfies Record<string, ModelManifest>;
