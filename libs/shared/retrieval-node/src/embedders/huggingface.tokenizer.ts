// A Hugging Face `tokenizer.json` behind the tokenizer port (RAG-16: EmbeddingGemma's Gemma
// tokenizer, a BPE model with byte fallback, a `▁` normalizer and a bos/eos template). The
// normalizer, pre-tokenizer, model and post-processor are run by `@huggingface/tokenizers`
// (pure JS). Everything is read from local files: this class never touches the network.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';
import { EmbedderError, reasonOf } from './embedder.errors';
import { type EncodedText, type Tokenizer } from './tokenizer.port';

/** Upper bound whatever the config says (EmbeddingGemma: 2048). */
export const HF_TOKENIZER_MAX_LENGTH_CAP = 8192;

// Only the parts this class relies on are checked; the rest of the file format is the library's.
const tokenizerJsonSchema = z
  .object({
    model: z.object({ type: z.enum(['BPE', 'Unigram', 'WordPiece', 'WordLevel']) }).loose(),
    added_tokens: z
      .array(
        z.object({ id: z.number().int().nonnegative(), content: z.string(), special: z.boolean() }).loose(),
      )
      .optional(),
    padding: z.object({ pad_id: z.number().int().nonnegative() }).loose().nullable().optional(),
  })
  .loose();

const tokenizerConfigSchema = z
  .object({
    model_max_length: z.number().positive().optional(),
    pad_token: z
      .union([z.string(), z.object({ content: z.string() }).loose()])
      .nullable()
      .optional(),
  })
  .loose();

export interface HuggingFaceTokenizerOptions {
  /** Truncation length including special tokens; default: the config's `model_max_length` or 512. */
  maxLength?: number;
}

async function readJson(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new EmbedderError('model_missing', `${what} not found: ${basename(path)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new EmbedderError('model_invalid', `${basename(path)} is not valid JSON`);
  }
}

export class HuggingFaceTokenizer implements Tokenizer {
  readonly id: string;
  readonly padId: number;
  readonly maxLength: number;
  private readonly inner: HfTokenizer;
  private readonly specialIds: ReadonlySet<number>;

  constructor(
    tokenizerJson: unknown,
    tokenizerConfig: unknown = {},
    options: HuggingFaceTokenizerOptions = {},
  ) {
    const json = tokenizerJsonSchema.safeParse(tokenizerJson);
    if (!json.success) throw new EmbedderError('model_invalid', 'tokenizer.json has an unsupported shape');
    const config = tokenizerConfigSchema.safeParse(tokenizerConfig);
    if (!config.success)
      throw new EmbedderError('model_invalid', 'tokenizer_config.json has an unsupported shape');
    try {
      this.inner = new HfTokenizer(json.data, config.data);
    } catch (e) {
      throw new EmbedderError('model_invalid', `tokenizer.json could not be loaded: ${reasonOf(e)}`);
    }
    const configured = options.maxLength ?? config.data.model_max_length ?? 512;
    this.maxLength = Math.max(2, Math.min(HF_TOKENIZER_MAX_LENGTH_CAP, Math.floor(configured)));
    this.specialIds = new Set((json.data.added_tokens ?? []).filter((t) => t.special).map((t) => t.id));
    const padToken = config.data.pad_token;
    const padName = typeof padToken === 'string' ? padToken : padToken?.content;
    this.padId =
      json.data.padding?.pad_id ??
      (padName === undefined ? undefined : this.inner.token_to_id(padName)) ??
      this.inner.token_to_id('<pad>') ??
      0;
    this.id = `hf-tokenizer:${json.data.model.type.toLowerCase()}:${this.inner.get_vocab(true).size}`;
  }

  /** Loads `tokenizer.json` (and `tokenizer_config.json` when given and present) from disk. */
  static async fromFiles(
    tokenizerJsonPath: string,
    tokenizerConfigPath?: string,
    options: HuggingFaceTokenizerOptions = {},
  ): Promise<HuggingFaceTokenizer> {
    const json = await readJson(tokenizerJsonPath, 'tokenizer file');
    const config =
      tokenizerConfigPath === undefined
        ? {}
        : await readJson(tokenizerConfigPath, 'tokenizer config').catch((e: unknown) => {
            if (e instanceof EmbedderError && e.code === 'model_missing') return {};
            throw e;
          });
    return new HuggingFaceTokenizer(json, config, options);
  }

  encode(text: string): EncodedText {
    let ids: number[];
    try {
      ids = this.inner.encode(text).ids;
    } catch (e) {
      throw new EmbedderError('inference_failed', `tokenization failed: ${reasonOf(e)}`);
    }
    if (ids.length <= this.maxLength) return { ids };
    // Keep a trailing special token (e.g. Gemma's <eos>) that the template appended.
    const last = ids[ids.length - 1];
    if (last !== undefined && this.specialIds.has(last))
      return { ids: [...ids.slice(0, this.maxLength - 1), last] };
    return { ids: ids.slice(0, this.maxLength) };
  }

  /** Token strings, for diagnostics and tests. */
  tokens(text: string): string[] {
    return this.inner.encode(text).tokens;
  }
}
