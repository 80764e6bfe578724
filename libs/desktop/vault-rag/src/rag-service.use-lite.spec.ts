// The out-of-the-box semantic model (USE-lite, in-process): a paraphrase finds the right note in vector mode.
import fs from 'node:fs';
import { createRagService } from './rag-service';
import { freshVault } from './testing.spec-support';

jest.setTimeout(60_000);

it('RAG-13/16: USE-lite vectors rank a paraphrase above unrelated notes', async () => {
  const { dir, vault } = await freshVault();
  const rag = createRagService({ vault, config: { embedder: 'use-lite' } });
  try {
    vault.write({ title: 'Baking', body: 'Bake the bread at 220 degrees for thirty minutes.' });
    const dog = vault.write({
      title: 'Weekend',
      body: 'The puppy chased a ball in the garden all afternoon.',
    });
    vault.write({ title: 'Taxes', body: 'The tax filing deadline is in April.' });
    const status = await rag.index({});
    expect(status.embedder).toBe('tfjs:use-lite-en');
    expect(status.vector_bytes).toBe(3 * 512 * 4);
    // "in" is the only shared word with two notes, so the ranking is the embedder's.
    const result = await rag.retrieve('retrieve', {
      query: 'my dog playing fetch in the yard',
      kind: 'vector',
    });
    expect(result.kind).toBe('vector');
    expect(result.chunks[0]?.asset_id).toBe(dog.asset_id);
  } finally {
    await rag.close();
    vault.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
