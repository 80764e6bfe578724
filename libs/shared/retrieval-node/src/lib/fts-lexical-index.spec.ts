import { foldForMatch, type ChunkRecord, type MatchMode, type ParsedQuery } from '@arslan/retrieval';
import { chunkTextBytes, createFtsLexicalIndex, type FtsLexicalIndex } from './fts-lexical-index';
import { createMixedSegmenter } from './mixed-segmenter.testing';

const segmenter = createMixedSegmenter();

let seq = 0;
function chunk(over: Partial<ChunkRecord> & { text: string }): ChunkRecord {
  seq++;
  return {
    chunkId: `c${seq}`,
    vaultId: 'v1',
    assetId: `a${seq}`,
    revisionId: `r${seq}`,
    title: '',
    metadata: '',
    byteStart: 0,
    byteEnd: Buffer.byteLength(over.text),
    ordinal: 0,
    ...over,
  };
}

/** A parsed query as the core's parser would give it: words from the same segmenter. */
function q(text: string, mode: MatchMode = 'any'): ParsedQuery {
  return { text, mode, terms: segmenter.segment(text) };
}

const ids = (index: FtsLexicalIndex, query: ParsedQuery, limit = 10): string[] =>
  index.search(query, limit).map((hit) => hit.chunkId);

describe('createFtsLexicalIndex', () => {
  let index: FtsLexicalIndex;
  beforeEach(() => {
    index = createFtsLexicalIndex({ segmenter });
  });
  afterEach(() => index.close());

  it('lives in a :memory: database with temp_store = MEMORY (RAG-4)', () => {
    expect(index.diagnostics()).toEqual({ open: true, memory: true, tempStore: 2 });
  });

  it('weights title 5, metadata 2, body 1 (RAG-9); scores are -bm25, higher is better', () => {
    const body = chunk({
      chunkId: 'body',
      title: 'other notes',
      text: 'budget beta gamma delta',
      metadata: 'tag one',
    });
    const title = chunk({
      chunkId: 'title',
      title: 'budget notes',
      text: 'alpha beta gamma delta',
      metadata: 'tag one',
    });
    const meta = chunk({
      chunkId: 'meta',
      title: 'other notes',
      text: 'alpha beta gamma delta',
      metadata: 'budget one',
    });
    index.add([body, title, meta]);
    const hits = index.search(q('budget'), 10);
    expect(hits.map((h) => h.chunkId)).toEqual(['title', 'meta', 'body']);
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  describe('match modes (RAG-10), English', () => {
    beforeEach(() => {
      index.add([
        chunk({ chunkId: 'e1', text: 'Quarterly budget review for the team' }),
        chunk({ chunkId: 'e2', text: 'The budget for the product roadmap' }),
        chunk({ chunkId: 'e3', text: 'A review of the roadmap' }),
      ]);
    });
    it('any: at least one term', () => {
      expect(ids(index, q('budget roadmap', 'any')).sort()).toEqual(['e1', 'e2', 'e3']);
    });
    it('all: every term', () => {
      expect(ids(index, q('budget roadmap', 'all'))).toEqual(['e2']);
      expect(ids(index, q('Roadmap REVIEW', 'all'))).toEqual(['e3']);
    });
    it('phrase: the terms adjacent and in order', () => {
      expect(ids(index, q('product roadmap', 'phrase'))).toEqual(['e2']);
      expect(ids(index, q('roadmap product', 'phrase'))).toEqual([]);
    });
    it('folds diacritics and honours the limit', () => {
      index.add([chunk({ chunkId: 'e4', text: 'Café déjà vu budget' })]);
      expect(ids(index, q('cafe deja', 'all'))).toEqual(['e4']);
      expect(index.search(q('budget'), 2)).toHaveLength(2);
      expect(index.search(q('budget'), 0)).toEqual([]);
    });
  });

  describe('CJK through the segmenter (RAG-8)', () => {
    beforeEach(() => {
      index.add([
        chunk({ chunkId: 'zh', text: '我们今天在北京讨论了季度预算和产品路线图。' }),
        chunk({ chunkId: 'bridge', text: '南京市长江大桥很有名。' }),
        chunk({
          chunkId: 'ja',
          text: '東京都で開かれた会議では来年度の予算と製品ロードマップについて話し合いました。',
        }),
        chunk({ chunkId: 'mixed', title: 'Arslan 路线图', text: 'Arslan 的季度预算 review 会在 Q3 完成' }),
      ]);
    });
    it('Chinese words', () => {
      expect(ids(index, q('季度预算', 'all')).sort()).toEqual(['mixed', 'zh']);
      expect(ids(index, q('北京', 'all'))).toEqual(['zh']);
    });
    it('a sub-word of a long Chinese word (cutForSearch)', () => {
      expect(ids(index, q('长江', 'all'))).toEqual(['bridge']);
    });
    it('Japanese words (Intl.Segmenter)', () => {
      expect(ids(index, q('会議', 'all'))).toEqual(['ja']);
      expect(ids(index, q('ロードマップ', 'all'))).toEqual(['ja']);
      expect(ids(index, q('来年度の予算', 'phrase'))).toEqual(['ja']);
    });
    it('mixed Latin and Chinese, title outranking body', () => {
      expect(ids(index, q('Arslan 预算', 'all'))).toEqual(['mixed']);
      expect(ids(index, q('路线图', 'any'))).toEqual(['mixed', 'zh']);
    });
    it('trigram / LIKE fallback finds substrings the segmenter split differently', () => {
      // 桥 is no jieba token (长江 / 大桥 / 长江大桥): 1–2 chars → LIKE scan
      expect(ids(index, q('桥', 'all'))).toEqual(['bridge']);
      // 京市长 crosses word boundaries: ≥ 3 chars → trigram
      expect(ids(index, { text: '京市长', mode: 'phrase', terms: ['京市长'] })).toEqual(['bridge']);
      expect(ids(index, { text: '"京市长江"', mode: 'phrase', terms: ['京市', '长江'] })).toEqual(['bridge']);
      // all: every piece must match
      expect(ids(index, { text: '京市长 北京', mode: 'all', terms: ['京市长', '北京x'] })).toEqual([]);
    });
    it('no substring fallback for spaced scripts', () => {
      index.add([chunk({ chunkId: 'budget', text: 'budgeting and planning' })]);
      expect(ids(index, q('budget', 'all'))).toEqual([]);
      expect(ids(index, q('bud', 'all'))).toEqual([]);
    });
  });

  describe('operator characters are literal (RAG-11)', () => {
    beforeEach(() => {
      index.add([
        chunk({ chunkId: 'not', text: 'apples NOT oranges' }),
        chunk({ chunkId: 'apples', text: 'apples only' }),
        chunk({ chunkId: 'budget', title: 'budget', text: 'numbers' }),
        chunk({ chunkId: 'quote', text: 'they say "hi" to everyone' }),
        chunk({ chunkId: 'near', text: 'near apples, or not' }),
      ]);
    });
    const raw = (text: string, mode: MatchMode, terms: string[]): ParsedQuery => ({ text, mode, terms });

    it('NOT / AND / OR are words, not operators', () => {
      expect(ids(index, raw('apples NOT oranges', 'all', ['apples', 'NOT', 'oranges']))).toEqual(['not']);
      expect(ids(index, raw('apples AND oranges', 'all', ['apples', 'AND', 'oranges']))).toEqual([]);
      expect(ids(index, raw('or', 'all', ['OR'])).sort()).toEqual(['near']);
    });
    it('* is no prefix, ^ no anchor, : no column filter', () => {
      expect(ids(index, raw('budg*', 'all', ['budg*']))).toEqual([]);
      expect(ids(index, raw('^numbers', 'all', ['^numbers']))).toEqual(['budget']);
      expect(ids(index, raw('title:budget', 'all', ['title:budget']))).toEqual([]);
    });
    it('" ( - NEAR( are plain text', () => {
      expect(ids(index, raw('say "hi', 'all', ['say "hi']))).toEqual(['quote']);
      expect(ids(index, raw('NEAR(apples', 'all', ['NEAR(apples']))).toEqual(['near']);
      expect(ids(index, raw('-oranges', 'all', ['-oranges']))).toEqual(['not']);
      expect(ids(index, raw('(apples', 'phrase', ['(apples', 'only)']))).toEqual(['apples']);
    });
    it.each([
      'AND',
      'OR',
      'NOT',
      'NEAR(',
      '*',
      '^',
      ':',
      '"',
      '(',
      ')',
      '-',
      '+',
      '{a b}',
      'a:b*',
      '"""',
      'NEAR(a b, 2)',
      '\\',
      '%',
      '_',
    ])('never throws an FTS syntax error for %j in any mode', (nasty) => {
      for (const mode of ['any', 'all', 'phrase'] as const) {
        const terms = [nasty, `x${nasty}`, ...segmenter.segment(nasty)];
        expect(() => index.search({ text: nasty, mode, terms }, 10)).not.toThrow();
        expect(() =>
          index.search({ text: `季度${nasty}`, mode, terms: [`季${nasty}`, nasty] }, 10),
        ).not.toThrow();
      }
    });
    it('LIKE wildcards in the fallback are literal', () => {
      index.add([chunk({ chunkId: 'pct', text: '预算增长百分之十' })]);
      expect(ids(index, raw('%', 'all', ['预%']))).toEqual([]);
      expect(ids(index, raw('_', 'all', ['预_']))).toEqual([]);
    });
  });

  it('keeps the original text and offsets; segmented text never leaks (RAG-12)', () => {
    const c = chunk({
      chunkId: 'orig',
      title: '标题',
      text: '季度预算和产品路线图',
      metadata: 'tags: 预算',
      byteStart: 12,
      byteEnd: 42,
      ordinal: 3,
    });
    index.add([c]);
    expect(index.get('orig')).toEqual(c);
    expect(index.get('missing')).toBeUndefined();
  });

  it('ignores chunks already present and counts UTF-8 bytes once', () => {
    const c = chunk({ chunkId: 'dup', title: 'é', text: '预算', metadata: 'x' });
    index.add([c, c]);
    index.add([c]);
    expect(index.size()).toBe(1);
    expect(index.textBytes()).toBe(chunkTextBytes(c));
    expect(chunkTextBytes(c)).toBe(2 + 6 + 1);
  });

  it('removeAsset drops the asset from both FTS tables and the side table', () => {
    index.add([
      chunk({ chunkId: 'k1', assetId: 'A', text: '季度预算 alpha' }),
      chunk({ chunkId: 'k2', assetId: 'A', text: '南京市长江大桥 alpha' }),
      chunk({ chunkId: 'k3', assetId: 'B', text: 'alpha beta' }),
    ]);
    expect(index.chunkIdsOfAsset('A')).toEqual(['k1', 'k2']);
    index.removeAsset('A');
    expect(index.size()).toBe(1);
    expect(index.textBytes()).toBe(chunkTextBytes(index.get('k3')!));
    expect(ids(index, q('alpha'))).toEqual(['k3']);
    expect(ids(index, q('预算'))).toEqual([]);
    expect(ids(index, q('京市长', 'phrase'))).toEqual([]);
    expect(ids(index, q('桥', 'all'))).toEqual([]);
    expect(index.get('k1')).toBeUndefined();
    index.removeAsset('nope');
    expect(index.size()).toBe(1);
  });

  it('clear empties every table; close makes reads empty and writes throw', () => {
    index.add([chunk({ chunkId: 'z', text: '季度预算 alpha' })]);
    index.clear();
    expect(index.size()).toBe(0);
    expect(index.textBytes()).toBe(0);
    expect(ids(index, q('alpha'))).toEqual([]);
    expect(ids(index, q('季度'))).toEqual([]);
    index.add([chunk({ chunkId: 'z2', text: 'alpha' })]);
    expect(ids(index, q('alpha'))).toEqual(['z2']);
    index.close();
    expect(index.closed).toBe(true);
    expect(index.diagnostics().open).toBe(false);
    expect(ids(index, q('alpha'))).toEqual([]);
    expect(index.size()).toBe(0);
    expect(index.get('z2')).toBeUndefined();
    expect(() => index.add([chunk({ text: 'x' })])).toThrow(/closed/);
    index.close();
  });

  it("keeps each chunk's matching words (segmented and folded once at add) and forgets them with the chunk", () => {
    const c = chunk({
      chunkId: 'w1',
      assetId: 'W',
      title: 'Café Notes',
      text: 'Ünïcode 南京市长江大桥 Alpha',
      metadata: 'x',
    });
    index.add([c]);
    const fold = (text: string) => segmenter.segment(text).map(foldForMatch);
    expect(index.words('w1')).toEqual({
      title: fold(c.title),
      text: fold(c.text),
      metadata: fold(c.metadata),
    });
    expect(index.words('w1')?.title).toEqual(['cafe', 'notes']);
    expect(index.wordBytes()).toBeGreaterThan(0);
    expect(index.words('missing')).toBeUndefined();
    index.removeAsset('W');
    expect(index.words('w1')).toBeUndefined();
    expect(index.wordBytes()).toBe(0);
  });

  it('keeps words only within the memory budget, dropping the oldest when text needs the room', () => {
    const budgeted = createFtsLexicalIndex({ segmenter, memoryBudgetBytes: 35 });
    budgeted.add([chunk({ chunkId: 'b1', text: 'alpha beta' })]); // 10 text + 10 words
    expect(budgeted.textBytes() + budgeted.wordBytes()).toBe(20);
    expect(budgeted.words('b1')?.text).toEqual(['alpha', 'beta']);
    budgeted.add([chunk({ chunkId: 'b2', text: 'gamma delta epsilon' })]); // 19 text: 29 + 10 > 35, b1's words make room
    expect(budgeted.textBytes()).toBe(29);
    expect(budgeted.words('b1')).toBeUndefined();
    expect(budgeted.words('b2')).toBeUndefined(); // 29 + 19 > 35
    expect(budgeted.wordBytes()).toBe(0);
    expect(budgeted.search(q('alpha'), 10).map((h) => h.chunkId)).toEqual(['b1']); // search is unaffected
    budgeted.close();
    expect(budgeted.words('b1')).toBeUndefined();
  });
});
