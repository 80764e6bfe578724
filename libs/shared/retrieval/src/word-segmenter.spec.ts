// RAG-8: Chinese through Jieba, Japanese and the rest through Intl.Segmenter, same path for index and query.
import { type WordSegmenter } from './retrieval.ports';
import { composeSegmenter, intlWordSegmenter, scriptRuns, segmentPieces } from './word-segmenter';

/** Stands in for @node-rs/jieba: a greedy longest-match over a tiny dictionary, and it records its input. */
function fakeJieba(dictionary: string[]): WordSegmenter & { inputs: string[] } {
  const inputs: string[] = [];
  return {
    inputs,
    segment(text: string): string[] {
      inputs.push(text);
      const out: string[] = [];
      let i = 0;
      while (i < text.length) {
        const word = dictionary.filter((w) => text.startsWith(w, i)).sort((a, b) => b.length - a.length)[0];
        const next = word ?? text[i]!;
        out.push(next);
        i += next.length;
      }
      return out;
    },
  };
}

describe('intlWordSegmenter', () => {
  it('segments Japanese into words (東京都で開かれた会議)', () => {
    expect(intlWordSegmenter('ja').segment('東京都で開かれた会議')).toEqual([
      '東京',
      '都',
      'で',
      '開',
      'か',
      'れ',
      'た',
      '会議',
    ]);
  });

  it('keeps word-like segments only, NFKC-normalised and lowercased', () => {
    expect(intlWordSegmenter().segment('Hello, ＷＯＲＬＤ! 42 — ﬁne')).toEqual([
      'hello',
      'world',
      '42',
      'fine',
    ]);
  });

  it('lowercases locale-independently unless a locale is given', () => {
    expect(intlWordSegmenter().segment('I')).toEqual(['i']);
    expect(intlWordSegmenter('tr').segment('I')).toEqual(['ı']);
  });
});

describe('segmentPieces', () => {
  it('cuts long text after spaces or punctuation, keeps everything, and segments in linear time', () => {
    const text = 'budget roadmap 東京都で開かれた会議。'.repeat(2000);
    const pieces = segmentPieces(text, 100);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(100);
    for (const p of pieces.slice(0, -1)) expect(p).toMatch(/[ 。]$/);
    const started = performance.now();
    const words = intlWordSegmenter('ja').segment(text);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(words.filter((w) => w === 'roadmap')).toHaveLength(2000);
  });

  it('never splits a surrogate pair on a hard cut', () => {
    const pieces = segmentPieces('𝒜'.repeat(100), 11);
    expect(pieces.join('')).toBe('𝒜'.repeat(100));
    for (const p of pieces) expect(p.length % 2).toBe(0);
  });
});

describe('scriptRuns', () => {
  it('separates Han-only runs (Chinese), kana runs (Japanese) and other scripts', () => {
    expect(scriptRuns('Roadmap 路线图 v2')).toEqual([
      { kind: 'other', text: 'Roadmap ' },
      { kind: 'chinese', text: '路线图' },
      { kind: 'other', text: ' v2' },
    ]);
  });

  it('treats Han runs as Japanese kanji when the text contains kana', () => {
    expect(scriptRuns('会議。東京都で')).toEqual([
      { kind: 'japanese', text: '会議' },
      { kind: 'other', text: '。' },
      { kind: 'japanese', text: '東京都で' },
    ]);
  });
});

describe('composeSegmenter (RAG-8)', () => {
  it('routes Chinese runs to the injected Jieba and drops its punctuation tokens', () => {
    const jieba = fakeJieba(['南京市', '长江大桥', '很', '有名', '北京']);
    const segmenter = composeSegmenter({ chinese: jieba });
    expect(segmenter.segment('南京市长江大桥很有名。')).toEqual(['南京市', '长江大桥', '很', '有名']);
    expect(jieba.inputs).toEqual(['南京市长江大桥很有名']);
  });

  it('routes mixed text: Latin to Intl, Chinese to Jieba, in order', () => {
    const jieba = fakeJieba(['路线图', '预算']);
    const segmenter = composeSegmenter({ chinese: jieba });
    expect(segmenter.segment('Q3 Roadmap: 路线图 and 预算!')).toEqual([
      'q3',
      'roadmap',
      '路线图',
      'and',
      '预算',
    ]);
    expect(jieba.inputs).toEqual(['路线图', '预算']);
  });

  it('never sends Japanese to Jieba', () => {
    const jieba = fakeJieba([]);
    const segmenter = composeSegmenter({ chinese: jieba });
    expect(segmenter.segment('東京都で開かれた会議')).toEqual([
      '東京',
      '都',
      'で',
      '開',
      'か',
      'れ',
      'た',
      '会議',
    ]);
    expect(jieba.inputs).toEqual([]);
  });

  it('normalises full-width input before routing (index and query agree)', () => {
    const jieba = fakeJieba(['预算']);
    const segmenter = composeSegmenter({ chinese: jieba });
    expect(segmenter.segment('ＢＵＤＧＥＴ预算')).toEqual(segmenter.segment('budget 预算'));
  });

  it('falls back to Intl.Segmenter for Chinese without Jieba', () => {
    expect(composeSegmenter().segment('我们今天在北京')).toEqual(['我们', '今天', '在', '北京']);
  });
});
