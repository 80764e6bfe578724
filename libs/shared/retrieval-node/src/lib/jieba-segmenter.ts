// Chinese word segmentation with @node-rs/jieba (RAG-8).
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict';
import { type WordSegmenter } from '@arslan/retrieval';

/**
 * `search` (default): `cutForSearch`, which also emits the sub-words of long words
 * (长江大桥 → 长江 / 大桥 / 长江大桥), so a short query finds a longer indexed word.
 * `exact`: plain `cut` (one best segmentation).
 */
export type JiebaMode = 'search' | 'exact';

export interface JiebaSegmenterOptions {
  mode?: JiebaMode;
}

let shared: Jieba | undefined;

/** The dictionary (~200 ms to load) is loaded once per process, on first use. */
function jieba(): Jieba {
  shared ??= Jieba.withDict(dict);
  return shared;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * A `WordSegmenter` for Chinese runs (for `composeSegmenter({ chinese })` of @arslan/retrieval).
 * Returns the words in text order, without whitespace or punctuation-only tokens; case is kept.
 * Uses the same mode for indexing and for queries, so their tokens agree.
 */
export function createJiebaSegmenter(options: JiebaSegmenterOptions = {}): WordSegmenter {
  const mode = options.mode ?? 'search';
  return {
    segment(text: string): string[] {
      if (!WORD_CHAR.test(text)) return [];
      const words = mode === 'search' ? jieba().cutForSearch(text, true) : jieba().cut(text, true);
      return words.map((word) => word.trim()).filter((word) => WORD_CHAR.test(word));
    },
  };
}
