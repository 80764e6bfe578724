// Builds FTS5 MATCH expressions only from quoted strings (RAG-11).
// NOTE: a local twin of the core's `toFtsMatch` (@arslan/retrieval), written before that existed;
// same rule: every term becomes an FTS5 string with `"` doubled. To be deduplicated by the lead.
import { type MatchMode, type ParsedQuery } from '@arslan/retrieval';

/** Characters the FTS5 tokenizers (unicode61, trigram) index: letters, numbers, private use. */
const WORD_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** A term that holds no letter or number (e.g. `(`, `*`, `"`) yields no token and would make an `all` query match nothing: it is dropped. */
export function usableTerms(terms: readonly string[]): string[] {
  return terms.filter((term) => WORD_CHAR.test(term));
}

/** One FTS5 string literal: the term inside double quotes, inner `"` doubled. Operators inside are plain text. */
export function ftsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The MATCH expression of a parsed query, or `undefined` when no term can match.
 * `any` → `"a" OR "b"`, `all` → `"a" AND "b"`, `phrase` → `"a" + "b"` (adjacent tokens, RAG-10).
 */
export function ftsMatchOf(parsed: Pick<ParsedQuery, 'mode' | 'terms'>): string | undefined {
  const terms = usableTerms(parsed.terms);
  if (terms.length === 0) return undefined;
  return terms.map(ftsString).join(JOINERS[parsed.mode]);
}

const JOINERS: Record<MatchMode, string> = { any: ' OR ', all: ' AND ', phrase: ' + ' };
