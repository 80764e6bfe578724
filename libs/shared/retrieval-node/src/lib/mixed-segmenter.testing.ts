// Test-only: a small composed segmenter (the real one is the core's composeSegmenter).
// Text with kana → Intl.Segmenter('ja'); otherwise Han runs → Jieba, the rest → Intl.Segmenter word-like words.
import { type WordSegmenter } from '@arslan/retrieval';
import { createJiebaSegmenter } from './jieba-segmenter';

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN_RUNS = /(\p{Script=Han}+)/u;

export function createMixedSegmenter(): WordSegmenter {
  const chinese = createJiebaSegmenter();
  const ja = new Intl.Segmenter('ja', { granularity: 'word' });
  const other = new Intl.Segmenter('en', { granularity: 'word' });
  const words = (segmenter: Intl.Segmenter, text: string): string[] =>
    [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
  return {
    segment(text) {
      const out = KANA.test(text)
        ? words(ja, text)
        : text
            .split(HAN_RUNS)
            .flatMap((part, i) => (i % 2 === 1 ? chinese.segment(part) : words(other, part)));
      return out.map((word) => word.toLowerCase());
    },
  };
}
