// RAG-10: the mode filter applied to vector and hybrid candidates.
import { chunkMatchesMode, matchesMode } from './mode-matcher';
import { parseQuery } from './query-parser';
import { type ChunkRecord, type MatchMode } from './retrieval.ports';
import { composeSegmenter } from './word-segmenter';

const segmenter = composeSegmenter();
const matches = (query: string, mode: MatchMode, text: string): boolean =>
  matchesMode(parseQuery(query, mode, segmenter), text, segmenter);

describe('matchesMode (RAG-10)', () => {
  const text = 'The quarterly budget and the product roadmap were approved.';

  it('any: at least one term present as a word', () => {
    expect(matches('budget missing', 'any', text)).toBe(true);
    expect(matches('missing absent', 'any', text)).toBe(false);
    expect(matches('budg', 'any', text)).toBe(false); // a word, not a prefix
  });

  it('all: every term present', () => {
    expect(matches('roadmap budget', 'all', text)).toBe(true);
    expect(matches('roadmap budget missing', 'all', text)).toBe(false);
  });

  it('phrase: the terms contiguous and in order', () => {
    expect(matches('product roadmap', 'phrase', text)).toBe(true);
    expect(matches('PRODUCT, roadmap!', 'phrase', text)).toBe(true);
    expect(matches('roadmap product', 'phrase', text)).toBe(false);
    expect(matches('budget roadmap', 'phrase', text)).toBe(false);
  });

  it('folds case, width and Latin diacritics like the FTS5 tokenizer', () => {
    expect(matches('cafe deja', 'all', 'Café déjà vu')).toBe(true);
    expect(matches('ＣＡＦＥ', 'any', 'café')).toBe(true);
  });

  it('matches CJK terms as substrings, since query and document may segment differently', () => {
    const ja = '東京都で開かれた会議では来年度の予算について話し合いました。';
    expect(matches('東京都', 'all', ja)).toBe(true);
    expect(matches('会議 予算', 'all', ja)).toBe(true);
    expect(matches('会議 大阪', 'all', ja)).toBe(false);
    expect(matches('東京都で開かれた', 'phrase', ja)).toBe(true);
    expect(matches('開かれた東京都', 'phrase', ja)).toBe(false);
  });

  it('checks title, body and metadata for a chunk; a phrase must sit in one field', () => {
    const chunk: ChunkRecord = {
      chunkId: 'c',
      vaultId: 'v',
      assetId: 'a',
      revisionId: 'r',
      title: 'Roadmap',
      text: 'budget numbers',
      metadata: 'finance',
      byteStart: 0,
      byteEnd: 14,
      ordinal: 0,
    };
    expect(chunkMatchesMode(parseQuery('roadmap budget finance', 'all', segmenter), chunk, segmenter)).toBe(
      true,
    );
    expect(chunkMatchesMode(parseQuery('roadmap budget', 'phrase', segmenter), chunk, segmenter)).toBe(false);
    expect(chunkMatchesMode(parseQuery('budget numbers', 'phrase', segmenter), chunk, segmenter)).toBe(true);
  });
});
