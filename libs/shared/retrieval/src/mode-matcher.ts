// RAG-10: does a candidate's text satisfy the match mode? Used to filter vector and hybrid candidates, so
// a semantically close chunk that lacks the required words never passes an `all` or `phrase` search.
import { type ChunkRecord, type ChunkWords, type ParsedQuery, type WordSegmenter } from './retrieval.ports';
import { foldForMatch, hasNoSpaceScript } from './unicode-text';

const WHITESPACE = /\s+/gu;

function containsSequence(words: readonly string[], sequence: readonly string[]): boolean {
  if (sequence.length === 0) return false;
  outer: for (let i = 0; i + sequence.length <= words.length; i += 1) {
    for (let j = 0; j < sequence.length; j += 1) if (words[i + j] !== sequence[j]) continue outer;
    return true;
  }
  return false;
}

/** One field of a candidate, segmented and folded once. */
export interface FieldMatcher {
  hasTerm(term: string): boolean;
  hasPhrase(query: ParsedQuery): boolean;
}

/** The matching words of a text: its segmenter words, each folded (NFKC, lowercase, Latin diacritics removed). */
function matchWords(text: string, segmenter: WordSegmenter): string[] {
  return segmenter.segment(text).map(foldForMatch);
}

/**
 * A term is present when it equals a word of the text (both folded: NFKC, lowercase, Latin diacritics
 * removed). Terms in scripts written without spaces (Han, kana, Thai...) also match as a substring, since
 * the segmentation of a query and of a document can cut the same CJK text differently.
 * `words`, when given, MUST be `segmenter.segment(text).map(foldForMatch)` (e.g. kept by the index): the text is then not
 * segmented again.
 */
export function fieldMatcher(
  text: string,
  segmenter: WordSegmenter,
  words: readonly string[] = matchWords(text, segmenter),
): FieldMatcher {
  let wordSet: Set<string> | undefined;
  let folded: string | undefined;
  let unspaced: string | undefined;
  const foldedText = (): string => (folded ??= foldForMatch(text));
  const noSpaces = (): string => (unspaced ??= foldedText().replace(WHITESPACE, ''));
  return {
    hasTerm(term: string): boolean {
      const t = foldForMatch(term);
      if (t === '') return false;
      wordSet ??= new Set(words);
      return wordSet.has(t) || (hasNoSpaceScript(t) && foldedText().includes(t));
    },
    hasPhrase(query: ParsedQuery): boolean {
      if (containsSequence(words, query.terms.map(foldForMatch))) return true;
      if (!hasNoSpaceScript(query.text)) return false;
      const phrase = foldForMatch(query.text).replace(WHITESPACE, '');
      return phrase !== '' && noSpaces().includes(phrase);
    },
  };
}

function satisfies(query: ParsedQuery, fields: readonly FieldMatcher[]): boolean {
  const present = (term: string): boolean => fields.some((f) => f.hasTerm(term));
  switch (query.mode) {
    case 'any':
      return query.terms.some(present);
    case 'all':
      return query.terms.length > 0 && query.terms.every(present);
    case 'phrase':
      return fields.some((f) => f.hasPhrase(query));
    default:
      return false;
  }
}

/** RAG-10 on one text: `any` = some term, `all` = every term, `phrase` = the terms contiguous and in order. */
export function matchesMode(query: ParsedQuery, text: string, segmenter: WordSegmenter): boolean {
  return satisfies(query, [fieldMatcher(text, segmenter)]);
}

/**
 * RAG-10 on a chunk, like the FTS5 index sees it: a term may be in the title, the body or the metadata;
 * a phrase must be inside one of them. `words`, when given, are the chunk's matching words kept by the index.
 */
export function chunkMatchesMode(
  query: ParsedQuery,
  chunk: ChunkRecord,
  segmenter: WordSegmenter,
  words?: ChunkWords,
): boolean {
  return satisfies(query, [
    fieldMatcher(chunk.title, segmenter, words?.title),
    fieldMatcher(chunk.text, segmenter, words?.text),
    fieldMatcher(chunk.metadata, segmenter, words?.metadata),
  ]);
}
