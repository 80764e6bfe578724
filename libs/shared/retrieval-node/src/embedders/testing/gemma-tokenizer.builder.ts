// Test support: a tiny `tokenizer.json` with the same structure as Gemma's (EmbeddingGemma):
// a BPE model with byte fallback and `<unk>`, a normalizer replacing spaces with `▁`, no
// pre-tokenizer, a TemplateProcessing post-processor adding `<bos>` … `<eos>`, and the
// Replace/ByteFallback/Fuse decoder. Special ids follow Gemma: <pad> 0, <eos> 1, <bos> 2, <unk> 3.

export const GEMMA_SPECIALS = { pad: 0, eos: 1, bos: 2, unk: 3 } as const;

const CHARS = [...'▁abcdefghijklmnopqrstuvwxyz:|'];
/** Byte tokens for `ö` (C3 B6) only: other non-ASCII characters become <unk>. */
const BYTES = [0xc3, 0xb6];
const WORDS = ['▁hello', '▁world', 'task', 'query'];

function mergesFor(word: string): Array<[string, string]> {
  const chars = [...word];
  const merges: Array<[string, string]> = [];
  let left = chars[0] ?? '';
  for (const c of chars.slice(1)) {
    merges.push([left, c]);
    left += c;
  }
  return merges;
}

export interface TinyGemmaTokenizer {
  json: Record<string, unknown>;
  config: Record<string, unknown>;
  vocab: Record<string, number>;
}

export function buildTinyGemmaTokenizer(modelMaxLength = 2048): TinyGemmaTokenizer {
  const vocab: Record<string, number> = { '<pad>': 0, '<eos>': 1, '<bos>': 2, '<unk>': 3 };
  let next = 4;
  const add = (token: string): void => {
    if (!(token in vocab)) vocab[token] = next++;
  };
  BYTES.forEach((b) => add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`));
  CHARS.forEach(add);
  const merges = WORDS.flatMap(mergesFor);
  merges.forEach(([a, b]) => add(a + b));
  const special = (content: string, id: number) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special('<pad>', 0), special('<eos>', 1), special('<bos>', 2), special('<unk>', 3)],
    normalizer: { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '<bos>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<eos>', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '<bos>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } },
        { SpecialToken: { id: '<eos>', type_id: 0 } },
      ],
      special_tokens: {
        '<bos>': { id: '<bos>', ids: [2], tokens: ['<bos>'] },
        '<eos>': { id: '<eos>', ids: [1], tokens: ['<eos>'] },
      },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  const config = {
    add_bos_token: true,
    add_eos_token: true,
    bos_token: '<bos>',
    eos_token: '<eos>',
    pad_token: '<pad>',
    unk_token: '<unk>',
    model_max_length: modelMaxLength,
    tokenizer_class: 'GemmaTokenizer',
  };
  return { json, config, vocab };
}
