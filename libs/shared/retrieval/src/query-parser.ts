// RAG-10, RAG-11: queries become segmented terms, and FTS5 sees them only as quoted strings.
import { assertUnreachable } from '@arslan/util';
import { type MatchMode, type ParsedQuery, type WordSegmenter } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';

export const MATCH_MODES: readonly MatchMode[] = ['any', 'all', 'phrase'];
/** Longest accepted query, in code points. */
export const MAX_QUERY_CHARS = 1000;
export const MAX_QUERY_TERMS = 32;

export function isMatchMode(value: unknown): value is MatchMode {
  return typeof value === 'string' && (MATCH_MODES as readonly string[]).includes(value);
}

/**
 * Segments the query with the same segmenter as the index (RAG-8). `any`/`all` drop duplicate terms;
 * `phrase` keeps the order and repeats. No word in the query is a typed `empty_query` error.
 */
export function parseQuery(text: string, mode: MatchMode, segmenter: WordSegmenter): ParsedQuery {
  if (typeof text !== 'string') throw new RetrievalError('invalid_argument', 'query must be a string');
  if (!isMatchMode(mode)) throw new RetrievalError('invalid_argument', 'unknown match mode');
  const trimmed = text.trim();
  if (trimmed === '') throw new RetrievalError('empty_query', 'the query is empty');
  let count = 0;
  for (const _ of trimmed) if (++count > MAX_QUERY_CHARS) break;
  if (count > MAX_QUERY_CHARS)
    throw new RetrievalError('query_too_long', `more than ${MAX_QUERY_CHARS} characters`);
  let terms = segmenter.segment(trimmed).filter((t) => t !== '');
  if (mode !== 'phrase') terms = [...new Set(terms)];
  if (terms.length === 0) throw new RetrievalError('empty_query', 'the query has no searchable words');
  if (terms.length > MAX_QUERY_TERMS)
    throw new RetrievalError('query_too_long', `more than ${MAX_QUERY_TERMS} terms`);
  return { text: trimmed, mode, terms };
}

/** An FTS5 string literal: the whole term between double quotes, inner quotes doubled, NUL removed. */
export function ftsQuote(term: string): string {
  return `"${term.replace(/\0/g, '').replace(/"/g, '""')}"`;
}

/**
 * RAG-11: the MATCH expression for a parsed query. Every term is one FTS5 string, so `AND OR NOT NEAR * ^ :
 * ( ) " -` inside terms are matched literally and never run as operators. `any` = `"a" OR "b"`,
 * `all` = `"a" AND "b"`, `phrase` = `"a b"` (one phrase).
 */
export function toFtsMatch(parsed: ParsedQuery): string {
  const terms = parsed.terms.map((t) => t.replace(/\0/g, '')).filter((t) => t.trim() !== '');
  if (terms.length === 0) throw new RetrievalError('empty_query', 'the query has no searchable words');
  switch (parsed.mode) {
    case 'any':
      return terms.map(ftsQuote).join(' OR ');
    case 'all':
      return terms.map(ftsQuote).join(' AND ');
    case 'phrase':
      return ftsQuote(terms.join(' '));
    default:
      return assertUnreachable(parsed.mode);
  }
}
