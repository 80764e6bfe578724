import { createJiebaSegmenter } from './jieba-segmenter';

describe('createJiebaSegmenter (RAG-8)', () => {
  it('search mode emits sub-words of long words', () => {
    const words = createJiebaSegmenter().segment('南京市长江大桥很有名。');
    expect(words).toEqual(expect.arrayContaining(['南京市', '长江', '大桥', '长江大桥']));
    expect(words).not.toContain('。');
  });

  it('exact mode gives one segmentation', () => {
    expect(createJiebaSegmenter({ mode: 'exact' }).segment('我们讨论了季度预算，产品路线图')).toEqual([
      '我们',
      '讨论',
      '了',
      '季度',
      '预算',
      '产品',
      '路线图',
    ]);
  });

  it('returns nothing for whitespace or punctuation only', () => {
    expect(createJiebaSegmenter().segment('  ，。!? ')).toEqual([]);
    expect(createJiebaSegmenter().segment('')).toEqual([]);
  });
});
