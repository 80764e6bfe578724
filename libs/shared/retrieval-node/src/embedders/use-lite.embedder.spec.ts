import { cosineSimilarity } from './vector-math';
import {
  createUseLiteEmbedder,
  USE_LITE_DIMENSIONS,
  USE_LITE_ID,
  type UseLiteEmbedder,
} from './use-lite.embedder';

describe('createUseLiteEmbedder (USE lite, TF.js, offline)', () => {
  let embedder: UseLiteEmbedder;

  beforeAll(async () => {
    embedder = await createUseLiteEmbedder();
    console.info(`USE-lite load: ${embedder.loadMs.toFixed(0)} ms`);
  }, 60_000);

  afterAll(async () => {
    await embedder.close();
  });

  it('implements the Embedder port: id, 512 dims, local', () => {
    expect(embedder).toMatchObject({ id: USE_LITE_ID, dimensions: USE_LITE_DIMENSIONS, local: true });
    expect(embedder.loadMs).toBeGreaterThan(0);
  });

  it('scores paraphrases above unrelated sentences, with normalised vectors', async () => {
    const started = performance.now();
    const [cat, kitten, budget] = await embedder.embed([
      'the cat sat on the mat',
      'a kitten rested on the rug',
      'quarterly budget report',
    ]);
    const ms = performance.now() - started;
    for (const v of [cat, kitten, budget]) {
      expect(v).toHaveLength(512);
      expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    }
    const paraphrase = cosineSimilarity(cat!, kitten!);
    const unrelated = cosineSimilarity(cat!, budget!);
    console.info(
      `USE-lite 3 sentences: ${ms.toFixed(0)} ms; cos(paraphrase)=${paraphrase.toFixed(3)} cos(unrelated)=${unrelated.toFixed(3)}`,
    );
    expect(paraphrase).toBeGreaterThan(unrelated + 0.2);
  });

  it('batches, keeps order, handles empty strings, and reports throughput', async () => {
    const texts = Array.from(
      { length: 40 },
      (_, i) => `note number ${i} about the ${i % 2 ? 'garden' : 'invoice'}`,
    );
    texts[5] = '';
    const started = performance.now();
    const vectors = await embedder.embed(texts);
    const ms = performance.now() - started;
    console.info(`USE-lite 40 sentences: ${ms.toFixed(0)} ms (${(ms / 40).toFixed(1)} ms/sentence)`);
    expect(vectors).toHaveLength(40);
    expect(vectors.every((v) => v.every(Number.isFinite))).toBe(true);
    const [again] = await embedder.embed([texts[7]!]);
    expect(cosineSimilarity(again!, vectors[7]!)).toBeCloseTo(1, 4);
  }, 60_000);
});
