import { ftsMatchOf, ftsString, usableTerms } from './fts-match';

describe('ftsMatchOf (RAG-11: every term is a quoted FTS5 string)', () => {
  it('quotes terms and doubles inner double quotes', () => {
    expect(ftsString('a"b')).toBe('"a""b"');
    expect(ftsString('NEAR(x')).toBe('"NEAR(x"');
  });

  it('joins by match mode (RAG-10)', () => {
    expect(ftsMatchOf({ mode: 'any', terms: ['a', 'b'] })).toBe('"a" OR "b"');
    expect(ftsMatchOf({ mode: 'all', terms: ['a', 'b'] })).toBe('"a" AND "b"');
    expect(ftsMatchOf({ mode: 'phrase', terms: ['a', 'b'] })).toBe('"a" + "b"');
  });

  it('drops terms without letters or numbers, and gives undefined when none is left', () => {
    expect(usableTerms(['(', '*', 'x', '"', '-', '季'])).toEqual(['x', '季']);
    expect(ftsMatchOf({ mode: 'all', terms: ['(', 'AND', '*'] })).toBe('"AND"');
    expect(ftsMatchOf({ mode: 'any', terms: ['^', ':'] })).toBeUndefined();
    expect(ftsMatchOf({ mode: 'any', terms: [] })).toBeUndefined();
  });
});
