// RAG-25: the model's reply is strict JSON `{answer, citations}`; unknown citation ids are rejected.
import { RetrievalError } from './retrieval.errors';

export const MAX_ANSWER_CHARS = 32_000;
const INLINE_CITATION = /\[(S\d+)\]/g;

export interface ParsedAnswer {
  answer: string;
  /** Distinct ids in first-seen order, each one of the allowed ids. */
  citations: string[];
}

/**
 * Strict: exactly the keys `answer` (string) and `citations` (array of strings), no code fences, no extra
 * keys (`bad_answer`). Every citation, and every inline `[Sn]` in the answer, must be an allowed id
 * (`unknown_citation`). A non-empty answer needs at least one citation (`missing_citation`); an empty answer
 * with citations is `bad_answer`. An empty answer with no citations means "no answer in the sources".
 */
export function parseAnswer(raw: string, allowedIds: readonly string[]): ParsedAnswer {
  if (typeof raw !== 'string' || raw.length > MAX_ANSWER_CHARS * 2) {
    throw new RetrievalError('bad_answer', 'reply is not a string of acceptable size');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new RetrievalError('bad_answer', 'reply is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RetrievalError('bad_answer', 'reply is not a JSON object');
  }
  const keys = Object.keys(value).sort();
  if (keys.length !== 2 || keys[0] !== 'answer' || keys[1] !== 'citations') {
    throw new RetrievalError('bad_answer', 'reply must have exactly the keys answer and citations');
  }
  const { answer, citations } = value as { answer: unknown; citations: unknown };
  if (typeof answer !== 'string' || answer.length > MAX_ANSWER_CHARS) {
    throw new RetrievalError('bad_answer', 'answer must be a string');
  }
  if (!Array.isArray(citations) || !citations.every((c): c is string => typeof c === 'string')) {
    throw new RetrievalError('bad_answer', 'citations must be an array of strings');
  }
  const allowed = new Set(allowedIds);
  const unique = [...new Set(citations)];
  const unknown = unique.filter((c) => !allowed.has(c));
  const inline = [...answer.matchAll(INLINE_CITATION)]
    .map((m) => m[1] as string)
    .filter((c) => !allowed.has(c));
  if (unknown.length > 0 || inline.length > 0) {
    throw new RetrievalError(
      'unknown_citation',
      `unknown citation id(s): ${[...unknown, ...inline].join(', ')}`,
    );
  }
  const blank = answer.trim() === '';
  if (!blank && unique.length === 0)
    throw new RetrievalError('missing_citation', 'an answer must cite a source');
  if (blank && unique.length > 0) throw new RetrievalError('bad_answer', 'citations without an answer');
  return { answer, citations: unique };
}
