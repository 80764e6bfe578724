// RAG-8: words for indexing and for queries. The same segmenter MUST be applied to both.
import { type WordSegmenter } from './retrieval.ports';
import { hasWordChar, isHan, isKana } from './unicode-text';

function lower(text: string, locale: string | undefined): string {
  // Without an explicit locale, lowercase locale-independently so every device agrees (no Turkish dotless i).
  return locale === undefined ? text.toLowerCase() : text.toLocaleLowerCase(locale);
}

/** Pieces segmented at once: Intl.Segmenter costs O(n) per segment in Node 20, so long texts are cut. */
export const SEGMENT_PIECE = 1024;
const PIECE_BREAK = /[\s。！？、，；：.!?,;:]/u;

/** Cuts text into pieces of at most SEGMENT_PIECE units, after a space or punctuation when there is one. */
export function segmentPieces(text: string, size = SEGMENT_PIECE): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > size) {
    let cut = start + size;
    for (let i = cut - 1; i > start + size / 2; i -= 1) {
      if (PIECE_BREAK.test(text[i] as string)) {
        cut = i + 1;
        break;
      }
    }
    const code = text.charCodeAt(cut - 1);
    if (cut === start + size && code >= 0xd800 && code <= 0xdbff) cut -= 1; // keep surrogate pairs whole
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * Intl.Segmenter word granularity: keeps only `isWordLike` segments, NFKC-normalised and lowercased.
 * Good for Japanese, Korean, Thai and space-separated scripts; Chinese needs Jieba (composeSegmenter).
 */
export function intlWordSegmenter(locale?: string): WordSegmenter {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
  return {
    segment(text: string): string[] {
      const words: string[] = [];
      for (const piece of segmentPieces(text.normalize('NFKC'))) {
        for (const s of segmenter.segment(piece)) if (s.isWordLike) words.push(lower(s.segment, locale));
      }
      return words;
    },
  };
}

export type ScriptRunKind = 'chinese' | 'japanese' | 'other';

export interface ScriptRun {
  kind: ScriptRunKind;
  text: string;
}

/**
 * Splits text into maximal runs of Han/kana characters and runs of everything else. A run holding kana is
 * Japanese; a Han-only run is Chinese unless the whole text contains kana (then it is Japanese kanji).
 */
export function scriptRuns(text: string): ScriptRun[] {
  const runs: ScriptRun[] = [];
  let hasKana = false;
  let current: { cjk: boolean; kana: boolean; text: string } | undefined;
  const flush = (): void => {
    if (current === undefined) return;
    runs.push({ kind: current.cjk ? (current.kana ? 'japanese' : 'chinese') : 'other', text: current.text });
    current = undefined;
  };
  for (const ch of text) {
    const kana = isKana(ch);
    const cjk = kana || isHan(ch);
    hasKana ||= kana;
    if (current !== undefined && current.cjk !== cjk) flush();
    current ??= { cjk, kana: false, text: '' };
    current.kana ||= kana;
    current.text += ch;
  }
  flush();
  if (!hasKana) return runs;
  return runs.map((run) => (run.kind === 'chinese' ? { kind: 'japanese', text: run.text } : run));
}

export interface ComposeSegmenterOptions {
  /** Chinese runs (Jieba from @arslan/retrieval-node); defaults to Intl.Segmenter('zh'). */
  chinese?: WordSegmenter;
  /** Japanese runs; defaults to Intl.Segmenter('ja'). */
  japanese?: WordSegmenter;
  /** Everything else; defaults to Intl.Segmenter with no locale. */
  other?: WordSegmenter;
}

/**
 * Routes each script run of NFKC-normalised text to its segmenter and cleans every token the same way
 * (NFKC, lowercase, at least one letter or digit), so an injected Jieba's punctuation and spaces drop out.
 */
export function composeSegmenter(options: ComposeSegmenterOptions = {}): WordSegmenter {
  const byScript: Record<ScriptRunKind, WordSegmenter> = {
    chinese: options.chinese ?? intlWordSegmenter('zh'),
    japanese: options.japanese ?? intlWordSegmenter('ja'),
    other: options.other ?? intlWordSegmenter(),
  };
  return {
    segment(text: string): string[] {
      const words: string[] = [];
      for (const run of scriptRuns(text.normalize('NFKC'))) {
        for (const token of byScript[run.kind].segment(run.text)) {
          const word = token.normalize('NFKC').toLowerCase().trim();
          if (word !== '' && hasWordChar(word)) words.push(word);
        }
      }
      return words;
    },
  };
}
