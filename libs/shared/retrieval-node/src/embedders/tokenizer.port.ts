// The tokenizer port of the ONNX embedder. The WordPiece implementation in this folder covers
// BERT-style vocabularies (`vocab.txt`). EmbeddingGemma ships a SentencePiece/BPE `tokenizer.json`
// that needs a different implementation (e.g. @huggingface/transformers' `AutoTokenizer` over
// local files, which is NOT installed here): plug it in behind this port.

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
