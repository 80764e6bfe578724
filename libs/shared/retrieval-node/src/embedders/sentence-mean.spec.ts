import { embedAsSentenceMeans, splitSentences } from './sentence-mean';

/** A fake unit embedder: each distinct unit gets its own axis (unit vectors), in call order. */
function axisEmbedder(dimensions: number) {
  const axes = new Map<string, number>();
  const calls: string[][] = [];
  const embedUnits = async (units: string[]): Promise<Float32Array[]> => {
    calls.push(units);
    return units.map((u) => {
      if (!axes.has(u)) axes.set(u, axes.size);
      const v = new Float32Array(dimensions);
      v[axes.get(u)! % dimensions] = 1;
      return v;
    });
  };
  return { embedUnits, axes, calls };
}

describe('splitSentences (RAG-13: USE-lite embeds documents sentence by sentence)', () => {
  it('splits on sentence ends and line breaks, trims, and drops blanks', () => {
    expect(splitSentences('First one. Second one?  Third!\nA title line\n\n  ')).toEqual([
      'First one.',
      'Second one?',
      'Third!',
      'A title line',
    ]);
  });

  it('keeps a text without sentences (blank or one run-on) as one unit', () => {
    expect(splitSentences('   ')).toEqual(['   ']);
    expect(splitSentences('')).toEqual(['']);
    expect(splitSentences('no end mark here')).toEqual(['no end mark here']);
  });
});

describe('embedAsSentenceMeans', () => {
  it('returns one unit vector per text: the normalised mean of its sentences, in text order', async () => {
    const fake = axisEmbedder(8);
    const [two, one] = await embedAsSentenceMeans(
      ['Alpha beta. Gamma delta epsilon.', 'Zeta.'],
      8,
      fake.embedUnits,
    );
    const alpha = fake.axes.get('Alpha beta.')!;
    const gamma = fake.axes.get('Gamma delta epsilon.')!;
    expect(two![alpha]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(two![gamma]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Math.hypot(...two!)).toBeCloseTo(1, 6);
    expect(one![fake.axes.get('Zeta.')!]).toBe(1);
  });

  it('embeds all units in one call, shortest first, and maps the vectors back to their texts', async () => {
    const fake = axisEmbedder(16);
    const texts = ['A much longer first sentence here. Short.', 'Mid-length one.'];
    const vectors = await embedAsSentenceMeans(texts, 16, fake.embedUnits);
    expect(fake.calls).toEqual([['Short.', 'Mid-length one.', 'A much longer first sentence here.']]);
    expect(vectors[1]![fake.axes.get('Mid-length one.')!]).toBe(1);
    expect(vectors[0]![fake.axes.get('Short.')!]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it("keeps the first sentence's vector when the sentences cancel out exactly", async () => {
    const opposite = async (units: string[]) =>
      units.map((_, i) => Float32Array.from([i % 2 === 0 ? 1 : -1, 0]));
    const [v] = await embedAsSentenceMeans(['Up. Down.'], 2, opposite);
    expect(Array.from(v!)).toEqual([1, 0]);
  });

  it('embeds nothing for no texts', async () => {
    const fake = axisEmbedder(4);
    expect(await embedAsSentenceMeans([], 4, fake.embedUnits)).toEqual([]);
  });
});
