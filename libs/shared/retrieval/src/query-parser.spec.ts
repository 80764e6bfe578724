// RAG-10, RAG-11: parsed queries and escaped FTS5 MATCH expressions. The escaping is also checked against a
// real SQLite FTS5 table (better-sqlite3, test-only) so operator characters are proven literal.
import Database from 'better-sqlite3';
import { parseQuery, toFtsMatch, ftsQuote } from './query-parser';
import { type ParsedQuery } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';
import { composeSegmenter } from './word-segmenter';

const segmenter = composeSegmenter();
const q = (terms: string[], mode: ParsedQuery['mode'] = 'any'): ParsedQuery => ({
  text: terms.join(' '),
  mode,
  terms,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof RetrievalError ? e.code : 'other';
  }
  return undefined;
}

describe('parseQuery', () => {
  it('segments, lowercases and dedupes terms for any/all', () => {
    expect(parseQuery('  Budget budget ROADMAP ', 'all', segmenter)).toEqual({
      text: 'Budget budget ROADMAP',
      mode: 'all',
      terms: ['budget', 'roadmap'],
    });
  });

  it('keeps order and repeats for phrase', () => {
    expect(parseQuery('to be or not to be', 'phrase', segmenter).terms).toEqual([
      'to',
      'be',
      'or',
      'not',
      'to',
      'be',
    ]);
  });

  it('an empty or punctuation-only query is a typed empty_query error', () => {
    expect(codeOf(() => parseQuery('', 'any', segmenter))).toBe('empty_query');
    expect(codeOf(() => parseQuery('   ', 'any', segmenter))).toBe('empty_query');
    expect(codeOf(() => parseQuery('* ^ : ( ) " -', 'all', segmenter))).toBe('empty_query');
  });

  it('rejects unknown modes and overlong queries', () => {
    expect(codeOf(() => parseQuery('x', 'fuzzy' as never, segmenter))).toBe('invalid_argument');
    expect(codeOf(() => parseQuery('a'.repeat(1001), 'any', segmenter))).toBe('query_too_long');
    expect(
      codeOf(() => parseQuery(Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), 'any', segmenter)),
    ).toBe('query_too_long');
  });

  it('operator words become plain lowercase terms', () => {
    expect(parseQuery('NOT budget OR NEAR(x y)', 'any', segmenter).terms).toEqual([
      'not',
      'budget',
      'or',
      'near',
      'x',
      'y',
    ]);
  });
});

describe('toFtsMatch (RAG-11)', () => {
  it('builds any / all / phrase expressions', () => {
    expect(toFtsMatch(q(['a', 'b']))).toBe('"a" OR "b"');
    expect(toFtsMatch(q(['a', 'b'], 'all'))).toBe('"a" AND "b"');
    expect(toFtsMatch(q(['a', 'b'], 'phrase'))).toBe('"a b"');
  });

  it.each([
    'AND',
    'OR',
    'NOT',
    'NEAR',
    '*',
    '^',
    ':',
    '(',
    ')',
    '"',
    '-',
    'a"b',
    '""',
    'col:x',
    'x*',
    '^x',
    'NEAR(a b)',
  ])('quotes %j as one FTS5 string with inner quotes doubled', (term) => {
    const expr = toFtsMatch(q([term]));
    expect(expr).toBe(`"${term.replace(/"/g, '""')}"`);
    // Strip the outer quotes and un-double: the original term comes back, so nothing escaped the string.
    expect(expr.slice(1, -1).replace(/""/g, '"')).toBe(term);
    expect(expr.slice(1, -1)).not.toMatch(/(^|[^"])"([^"]|$)/);
  });

  it('removes NUL and refuses an expression with no terms', () => {
    expect(ftsQuote('a\0b')).toBe('"ab"');
    expect(codeOf(() => toFtsMatch(q(['\0', ' '])))).toBe('empty_query');
  });

  describe('against SQLite FTS5', () => {
    const db = new Database(':memory:');
    beforeAll(() => {
      db.exec(
        "CREATE VIRTUAL TABLE docs USING fts5(title, body, metadata, tokenize='unicode61 remove_diacritics 2')",
      );
      const insert = db.prepare('INSERT INTO docs (rowid, title, body, metadata) VALUES (?, ?, ?, ?)');
      insert.run(1, 'Plan', 'and or not near the budget', '');
      insert.run(2, 'Other', 'budget roadmap approved', 'tag');
      insert.run(3, 'Quote', 'he said "hello" to the roadmap', '');
      insert.run(4, 'Col', 'title colon budget', '');
    });
    afterAll(() => db.close());
    const rows = (expr: string): number[] =>
      (
        db.prepare('SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rowid').all(expr) as {
          rowid: number;
        }[]
      ).map((r) => r.rowid);

    it('operator characters and words never raise a syntax error', () => {
      for (const term of [
        'AND',
        'OR',
        'NOT',
        'NEAR',
        '*',
        '^',
        ':',
        '(',
        ')',
        '"',
        '-',
        'title:budget',
        'NEAR(a b)',
        'x*',
        '^budget',
      ]) {
        for (const mode of ['any', 'all', 'phrase'] as const) {
          expect(() => rows(toFtsMatch(q([term, 'budget'], mode)))).not.toThrow();
        }
      }
    });

    it('operator words are matched literally', () => {
      expect(rows(toFtsMatch(q(['and', 'not'], 'all')))).toEqual([1]);
      expect(rows(toFtsMatch(q(['near'])))).toEqual([1]);
    });

    it('a column filter or prefix star is not honoured as syntax', () => {
      expect(rows(toFtsMatch(q(['title:budget'])))).toEqual([]);
      expect(rows('budg*')).toEqual([1, 2, 4]); // raw syntax: a prefix query
      expect(rows(toFtsMatch(q(['budg*'])))).toEqual([]); // quoted: the literal token "budg" only
      expect(rows(toFtsMatch(q(['roadm*', 'approved'], 'all')))).toEqual([]);
    });

    it('all and phrase enforce every term and adjacency', () => {
      expect(rows(toFtsMatch(q(['budget', 'roadmap'], 'all')))).toEqual([2]);
      expect(rows(toFtsMatch(q(['budget', 'roadmap'], 'any')))).toEqual([1, 2, 3, 4]);
      expect(rows(toFtsMatch(q(['roadmap', 'approved'], 'phrase')))).toEqual([2]);
      expect(rows(toFtsMatch(q(['approved', 'roadmap'], 'phrase')))).toEqual([]);
    });

    it('a quote inside a term stays inside the string', () => {
      expect(rows(toFtsMatch(q(['"hello"'])))).toEqual([3]);
      expect(rows(toFtsMatch(q(['hello" OR "budget'])))).toEqual([]);
    });

    it('parsed user queries with operators run safely end to end', () => {
      const parsed = parseQuery('budget AND (roadmap OR NOT x) NEAR/3 *', 'all', segmenter);
      expect(() => rows(toFtsMatch(parsed))).not.toThrow();
    });
  });
});
