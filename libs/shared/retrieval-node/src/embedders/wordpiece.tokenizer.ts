// A small BERT-style WordPiece tokenizer over a local vocabulary (one token per line, the line
// number is the id): lower-casing + accent stripping (optional), whitespace/punctuation
// pre-split, CJK characters split one by one, greedy longest-match-first sub-words with `##`.
import { readFile } from 'node:fs/promises';
import { EmbedderError } from './embedder.errors';
import { type EncodedText, type Tokenizer } from './tokenizer.port';

export interface WordPieceOptions {
  lowercase?: boolean;
  /** Maximum sequence length including [CLS] and [SEP]; default 512. */
  maxLength?: number;
  /** Words longer than this many characters become [UNK]; default 100. */
  maxCharsPerWord?: number;
  unkToken?: string;
  clsToken?: string;
  sepToken?: string;
  padToken?: string;
}

const PUNCT = /[\p{P}\p{S}]/u;
const CJK = /[\u4e00-\u9fff\u3400-\u4dbf\u{20000}-\u{2a6df}\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/u;

export class WordPieceTokenizer implements Tokenizer {
  readonly id: string;
  readonly padId: number;
  private readonly vocab: Map<string, number>;
  private readonly unkId: number;
  private readonly clsId: number | undefined;
  private readonly sepId: number | undefined;
  private readonly lowercase: boolean;
  private readonly maxLength: number;
  private readonly maxCharsPerWord: number;

  constructor(tokens: readonly string[], options: WordPieceOptions = {}) {
    this.vocab = new Map();
    tokens.forEach((t, i) => {
      if (t !== '' && !this.vocab.has(t)) this.vocab.set(t, i);
    });
    const unk = this.vocab.get(options.unkToken ?? '[UNK]');
    if (unk === undefined)
      throw new EmbedderError('model_invalid', 'WordPiece vocabulary has no unknown token');
    this.unkId = unk;
    this.clsId = this.vocab.get(options.clsToken ?? '[CLS]');
    this.sepId = this.vocab.get(options.sepToken ?? '[SEP]');
    this.padId = this.vocab.get(options.padToken ?? '[PAD]') ?? 0;
    this.lowercase = options.lowercase ?? true;
    this.maxLength = Math.max(options.maxLength ?? 512, 3);
    this.maxCharsPerWord = options.maxCharsPerWord ?? 100;
    this.id = `wordpiece:${this.vocab.size}`;
  }

  /** Reads a `vocab.txt` (one token per line). */
  static async fromVocabFile(path: string, options?: WordPieceOptions): Promise<WordPieceTokenizer> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      throw new EmbedderError('model_missing', 'tokenizer vocabulary file not found');
    }
    return new WordPieceTokenizer(text.split(/\r?\n/), options);
  }

  encode(text: string): EncodedText {
    const ids: number[] = [];
    const budget = this.maxLength - (this.clsId === undefined ? 0 : 1) - (this.sepId === undefined ? 0 : 1);
    for (const word of this.preTokenize(text)) {
      for (const id of this.wordPiece(word)) {
        if (ids.length >= budget) break;
        ids.push(id);
      }
      if (ids.length >= budget) break;
    }
    if (this.clsId !== undefined) ids.unshift(this.clsId);
    if (this.sepId !== undefined) ids.push(this.sepId);
    return { ids };
  }

  /** Basic tokenisation: clean, normalise, split on whitespace, punctuation and CJK characters. */
  preTokenize(text: string): string[] {
    let t = text.replace(/[\p{Cc}\p{Cf}]/gu, (c) => (/\s/.test(c) ? ' ' : ''));
    if (this.lowercase)
      t = t
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{Mn}/gu, '');
    const words: string[] = [];
    let current = '';
    const flush = (): void => {
      if (current) words.push(current);
      current = '';
    };
    for (const ch of t) {
      if (/\s/u.test(ch)) flush();
      else if (PUNCT.test(ch) || CJK.test(ch)) {
        flush();
        words.push(ch);
      } else current += ch;
    }
    flush();
    return words;
  }

  private wordPiece(word: string): number[] {
    const chars = Array.from(word);
    if (chars.length > this.maxCharsPerWord) return [this.unkId];
    const out: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unkId];
      out.push(found);
      start = end;
    }
    return out;
  }
}
