// The tokenizer port of the ONNX embedder. Implementations here: WordPiece (BERT-style
// `vocab.txt`) and HuggingFaceTokenizer (a Hugging Face `tokenizer.json`, e.g. EmbeddingGemma's
// Gemma BPE with byte fallback), both loaded from local files only.

export interface EncodedText {
  /** Token ids including special tokens, already truncated to the tokenizer's maximum length. */
  ids: number[];
}

export interface Tokenizer {
  /** e.g. `wordpiece:<vocab size>`. */
  readonly id: string;
  /** Id used to pad shorter sequences of a batch (masked out by the attention mask). */
  readonly padId: number;
  encode(text: string): EncodedText;
}
