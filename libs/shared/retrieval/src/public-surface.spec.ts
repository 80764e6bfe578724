// Pins the public surface. Changing this list is an API change: do it on purpose, never to make CI pass.
import * as api from './index';

describe('@arslan/retrieval public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CHUNK_ID_DOMAIN',
        'DEFAULT_MAX_CHARS',
        'DEFAULT_MAX_SOURCES',
        'DEFAULT_OVERLAP',
        'DEFAULT_SEARCH_LIMIT',
        'MATCH_MODES',
        'MAX_ANSWER_CHARS',
        'MAX_QUERY_CHARS',
        'MAX_QUERY_TERMS',
        'MAX_SEARCH_LIMIT',
        'PHRASE_BONUS',
        'RERANK_CANDIDATES',
        'RETRIEVAL_ERROR_CODES',
        'RRF_K',
        'RetrievalError',
        'buildChunkRecords',
        'chunkIdOf',
        'chunkMatchesMode',
        'chunkText',
        'composeSegmenter',
        'cosine',
        'foldForMatch',
        'createRetriever',
        'ftsQuote',
        'intlWordSegmenter',
        'isMatchMode',
        'isRetrievalError',
        'lightRerank',
        'matchesMode',
        'neutralizeMarkers',
        'normalize',
        'parseAnswer',
        'parseQuery',
        'prepareAsk',
        'reciprocalRankFusion',
        'runAsk',
        'scriptRuns',
        'toFtsMatch',
      ].sort(),
    );
  });

  it('pins the error codes and the constants others rely on', () => {
    expect(api.RETRIEVAL_ERROR_CODES).toEqual([
      'empty_query',
      'query_too_long',
      'invalid_argument',
      'insufficient_evidence',
      'bad_answer',
      'unknown_citation',
      'missing_citation',
    ]);
    expect(api.RRF_K).toBe(60); // RAG-14
    expect(api.DEFAULT_MAX_CHARS).toBe(768); // RAG-7
    expect(api.DEFAULT_OVERLAP).toBe(128); // RAG-7
    expect(api.RERANK_CANDIDATES).toBe(50); // RAG-15
    expect(api.CHUNK_ID_DOMAIN).toBe('arslan-chunk/v1');
    expect(api.MATCH_MODES).toEqual(['any', 'all', 'phrase']); // RAG-10
  });
});
