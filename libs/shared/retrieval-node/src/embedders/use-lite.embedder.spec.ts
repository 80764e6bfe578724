import { EmbedderError } from './embedder.errors';
import { cosineSimilarity } from './vector-math';
import {
  createUseLiteEmbedder,
  USE_LITE_DIMENSIONS,
  USE_LITE_ID,
  type UseLiteEmbedder,
} from './use-lite.embedder';

jest.setTimeout(120_000);

describe('createUseLiteEmbedder (USE lite, TF.js, offline)', () => {
  let embedder: UseLiteEmbedder;
  let inline: UseLiteEmbedder;

  beforeAll(async () => {
    [embedder, inline] = await Promise.all([
      createUseLiteEmbedder(),
      createUseLiteEmbedder({ thread: 'inline' }),
    ]);
    console.info(
      `USE-lite load + warm-up: worker ${embedder.loadMs.toFixed(0)} ms, inline ${inline.loadMs.toFixed(0)} ms`,
    );
  });

  afterAll(async () => {
    await Promise.all([embedder.close(), inline.close()]);
  });

  it('RAG-13: implements the Embedder port: id, 512 dims, local, on a worker thread by default', () => {
    expect(embedder).toMatchObject({
      id: USE_LITE_ID,
      dimensions: USE_LITE_DIMENSIONS,
      local: true,
      thread: 'worker',
    });
    expect(inline.thread).toBe('inline');
    expect(embedder.loadMs).toBeGreaterThan(0);
  });

  it('RAG-13: scores paraphrases above unrelated sentences, with normalised vectors', async () => {
    const started = performance.now();
    const [cat, kitten, budget] = await embedder.embed([
      'the cat sat on the mat',
      'a kitten rested on the rug',
      'quarterly budget report',
    ]);
    const ms = performance.now() - started;
    for (const v of [cat, kitten, budget]) {
      expect(v).toBeInstanceOf(Float32Array);
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

  it('RAG-13: embeds a document as the mean of its sentences and a query whole', async () => {
    const first = 'The Monroe Doctrine closed the Americas to new colonies.';
    const second = 'Congress raised the tariff on imported iron.';
    const [doc] = await embedder.embed([`${first} ${second}`]);
    const [a, b] = await embedder.embedQueries([first, second]);
    const [whole] = await embedder.embedQueries([`${first} ${second}`]);
    const mean = a!.map((x, i) => x + b![i]!);
    const norm = Math.hypot(...mean);
    expect(
      cosineSimilarity(
        doc!,
        mean.map((x) => x / norm),
      ),
    ).toBeCloseTo(1, 5);
    expect(cosineSimilarity(doc!, whole!)).toBeLessThan(0.999);
    // A one-sentence document and the same text as a query get the same vector.
    const [single] = await embedder.embed([first]);
    expect(cosineSimilarity(single!, a!)).toBeCloseTo(1, 5);
  });

  it('RAG-13: the worker and the inline runner give the same vectors', async () => {
    const texts = ['the Americas are closed to new colonies', 'quarterly budget report'];
    const [fromWorker, fromInline] = await Promise.all([embedder.embed(texts), inline.embed(texts)]);
    texts.forEach((_, i) => expect(cosineSimilarity(fromWorker[i]!, fromInline[i]!)).toBeCloseTo(1, 5));
  });

  it('RAG-13: batches, keeps order, handles empty strings, and reports throughput', async () => {
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
  });

  it('keeps the calling thread free while the worker embeds', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    try {
      const passage = 'The union is strong and the budget is balanced. '.repeat(15);
      await embedder.embed(Array.from({ length: 8 }, (_, i) => `${i} ${passage}`));
    } finally {
      clearInterval(timer);
    }
    // Inline TF.js would hold the event loop for the whole batch (no timer could fire).
    expect(ticks).toBeGreaterThan(3);
  });

  it('answers concurrent calls each with its own vectors', async () => {
    const [a, b] = await Promise.all([embedder.embed(['garden tools']), embedder.embed(['tax policy'])]);
    const [a2, b2] = await inline.embed(['garden tools', 'tax policy']);
    expect(cosineSimilarity(a[0]!, a2!)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(b[0]!, b2!)).toBeCloseTo(1, 5);
  });

  it('rejects an aborted call with a typed error and stays usable', async () => {
    const controller = new AbortController();
    const call = embedder.embed(['first text', 'second text'], controller.signal);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'aborted' });
    const done = new AbortController();
    done.abort();
    await expect(embedder.embed(['x'], done.signal)).rejects.toBeInstanceOf(EmbedderError);
    await expect(embedder.embed(['still works'])).resolves.toHaveLength(1);
  });

  it('refuses calls after close, for both runners', async () => {
    const [worker, local] = await Promise.all([
      createUseLiteEmbedder(),
      createUseLiteEmbedder({ thread: 'inline' }),
    ]);
    const inFlight = expect(worker.embed(['in flight while closing'])).rejects.toMatchObject({
      code: 'closed',
    });
    await Promise.all([worker.close(), local.close()]);
    await inFlight;
    await expect(worker.embed(['x'])).rejects.toMatchObject({ code: 'closed' });
    await expect(local.embed(['x'])).rejects.toMatchObject({ code: 'closed' });
    await worker.close();
  });
});
