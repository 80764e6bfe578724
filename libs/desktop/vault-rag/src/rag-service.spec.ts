import fs from 'node:fs';
import { type LocalVaultService } from '@arslan/desktop-vault';
import { createRagService } from './rag-service';
import { type RagServiceConfig } from './rag-config';
import {
  type FakeChatServer,
  PW,
  fakeChatServer,
  fakeEmbedder,
  freshVault,
  sentSourceIds,
} from './testing.spec-support';

const NONE: RagServiceConfig = { embedder: 'none' };
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  config: RagServiceConfig = NONE,
  extra: Parameters<typeof createRagService>[0] extends infer O ? Partial<O> : never = {},
) {
  const { dir, vault } = await freshVault();
  const rag = createRagService({ vault, config, ...extra });
  cleanups.push(() => {
    void rag.close();
    vault.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { vault, rag };
}

function write(vault: LocalVaultService, title: string, body: string, v?: string) {
  return vault.write({ title, body, ...(v ? { vault: v } : {}) });
}

const code = (c: string) => expect.objectContaining({ code: c });

describe('indexing sources (RAG-3, RAG-6)', () => {
  it('deleted and conflicted assets are not found; live ones are', async () => {
    const { vault, rag } = await setup();
    const live = write(vault, 'Live note', 'the zebra crossing is near the bakery');
    const gone = write(vault, 'Deleted note', 'the zebra escaped from the zoo');
    vault.delete({ asset_id: gone.asset_id });
    const base = write(vault, 'Conflict', 'zebra stripes original');
    vault.writeWithParents({
      asset_id: base.asset_id,
      parents: [base.revision_id],
      title: 'A',
      body: 'zebra side a',
    });
    vault.writeWithParents({
      asset_id: base.asset_id,
      parents: [base.revision_id],
      title: 'B',
      body: 'zebra side b',
    });
    expect(vault.list({}).assets.find((a) => a.asset_id === base.asset_id)?.state).toBe('conflicted');
    const result = await rag.search({ query: 'zebra' });
    expect(result.hits.map((h) => h.asset_id)).toEqual([live.asset_id]);
  });

  it('a write invalidates the vault index; a delete removes the asset', async () => {
    const { vault, rag } = await setup();
    const a = write(vault, 'Tea', 'green tea from Shizuoka');
    expect((await rag.search({ query: 'oolong' })).hits).toEqual([]);
    write(vault, 'More tea', 'oolong from Taiwan');
    expect((await rag.search({ query: 'oolong' })).hits).toHaveLength(1);
    vault.write({ asset_id: a.asset_id, title: 'Tea', body: 'matcha now' });
    expect((await rag.search({ query: 'shizuoka' })).hits).toEqual([]);
    expect((await rag.search({ query: 'matcha' })).hits[0]?.asset_id).toBe(a.asset_id);
  });

  it('lock clears the cache and a locked vault answers no search', async () => {
    const { vault, rag } = await setup();
    write(vault, 'Note', 'kangaroo facts');
    await rag.index({});
    expect(rag.status({}).indexed).toBe(true);
    vault.lock();
    rag.clear();
    await expect(rag.search({ query: 'kangaroo' })).rejects.toThrow(code('locked'));
    expect(() => rag.status({})).toThrow(code('locked'));
    await vault.unlock(PW);
    expect(rag.status({}).indexed).toBe(false);
    expect(rag.status({}).cached_vaults).toBe(0);
    expect((await rag.search({ query: 'kangaroo' })).hits).toHaveLength(1);
  });

  it('a lock seen only through the unlock generation also drops the indexes', async () => {
    const { vault, rag } = await setup();
    write(vault, 'Note', 'wombat facts');
    await rag.index({});
    vault.lock();
    await vault.unlock(PW);
    expect(rag.status({}).indexed).toBe(false);
  });

  it('index limits become index_limit', async () => {
    const { vault, rag } = await setup(NONE, { limits: { maxChunks: 2 } });
    for (let i = 0; i < 3; i++) write(vault, `n${i}`, `note number ${i}`);
    await expect(rag.index({})).rejects.toThrow(code('index_limit'));
  });
});

describe('search (RAG-8..12)', () => {
  it('finds English, Japanese and Chinese text', async () => {
    const { vault, rag } = await setup();
    const en = write(vault, 'Groceries', 'buy apples and oranges');
    const ja = write(vault, '旅行', '京都の寺と抹茶を楽しんだ');
    const zh = write(vault, '会议', '我们明天在北京开会讨论预算');
    expect((await rag.search({ query: 'oranges' })).hits.map((h) => h.asset_id)).toEqual([en.asset_id]);
    expect((await rag.search({ query: '抹茶' })).hits.map((h) => h.asset_id)).toEqual([ja.asset_id]);
    expect((await rag.search({ query: '北京' })).hits.map((h) => h.asset_id)).toEqual([zh.asset_id]);
  });

  it('all and phrase constraints; FTS operators are literal', async () => {
    const { vault, rag } = await setup();
    const both = write(vault, 'x', 'red apples and green pears');
    const one = write(vault, 'y', 'red cars only');
    const ids = async (query: string, mode: 'any' | 'all' | 'phrase') =>
      (await rag.search({ query, mode })).hits.map((h) => h.asset_id).sort();
    expect(await ids('red pears', 'any')).toEqual([both.asset_id, one.asset_id].sort());
    expect(await ids('red pears', 'all')).toEqual([both.asset_id]);
    expect(await ids('green pears', 'phrase')).toEqual([both.asset_id]);
    expect(await ids('pears green', 'phrase')).toEqual([]);
    for (const q of ['red OR NOT cars', 'NEAR(red cars)', 'red* "cars', 'title:red', '-red ^cars']) {
      await expect(rag.search({ query: q, mode: 'all' })).resolves.toBeDefined();
    }
    expect(await ids('cars AND only', 'all')).toEqual([]); // AND is a literal term, not an operator
  });

  it('retrieve returns chunks with revision, chunk hash, UTF-8 byte offsets and citations', async () => {
    const { vault, rag } = await setup();
    const body = `${'é日本語 '.repeat(150)}\n\nthe unique platypus paragraph is here. ${'word '.repeat(200)}`;
    const w = write(vault, 'Long', body);
    const result = await rag.retrieve('retrieve', { query: 'platypus', limit: 5 });
    expect(result.kind).toBe('lexical');
    expect(result.chunks.length).toBeGreaterThan(0);
    const bytes = Buffer.from(body, 'utf8');
    result.chunks.forEach((c, i) => {
      expect(c.asset_id).toBe(w.asset_id);
      expect(c.revision_id).toBe(w.revision_id);
      expect(c.chunk_id).toMatch(/^[0-9a-f]{64}$/);
      expect(c.citation).toBe(`[S${i + 1}]`);
      expect(bytes.subarray(c.byte_start, c.byte_end).toString('utf8')).toBe(c.text);
      expect(c.text).toContain('platypus');
      expect(typeof c.score).toBe('number');
    });
    const again = await rag.retrieve('rag_search', { query: 'platypus', limit: 5 });
    expect(again.chunks.map((c) => c.chunk_id)).toEqual(result.chunks.map((c) => c.chunk_id));
  });

  it('with an embedder, vectors are built and hybrid search uses them', async () => {
    const embedder = fakeEmbedder();
    const { vault, rag } = await setup({ embedder: 'use-lite' }, { embedderFactory: async () => embedder });
    write(vault, 'a', 'alpha beta');
    write(vault, 'b', 'gamma delta');
    const status = await rag.index({});
    expect(status.vector_bytes).toBeGreaterThan(0);
    const result = await rag.retrieve('retrieve', { query: 'gamma', kind: 'hybrid' });
    expect(result.kind).toBe('hybrid');
    expect(result.chunks[0]?.text).toBe('gamma delta');
  });

  it('EGRESS-11: a device-only vault never sends text to a non-local embedder; without an explicit kind it answers lexically and says so', async () => {
    const embedder = fakeEmbedder(false);
    const { vault, rag } = await setup({ embedder: 'remote' }, { embedderFactory: async () => embedder });
    vault.vaultCreate({ name: 'secret', device_only: true });
    write(vault, 'x', 'confidential otter plans', 'secret');
    const result = await rag.retrieve('retrieve', { vault: 'secret', query: 'otter' });
    expect(result.kind).toBe('lexical');
    expect(result.chunks).toHaveLength(1);
    expect((await rag.search({ vault: 'secret', query: 'otter', kind: 'lexical' })).kind).toBe('lexical');
    expect(embedder.calls).toBe(0);
  });

  it('EGRESS-11: an explicit vector or hybrid search of a device-only vault with a remote embedder is refused before inference', async () => {
    const embedder = fakeEmbedder(false);
    const { vault, rag } = await setup({ embedder: 'remote' }, { embedderFactory: async () => embedder });
    vault.vaultCreate({ name: 'secret', device_only: true });
    write(vault, 'x', 'confidential otter plans', 'secret');
    for (const kind of ['vector', 'hybrid'] as const) {
      await expect(rag.retrieve('rag_search', { vault: 'secret', query: 'otter', kind })).rejects.toThrow(
        code('egress_refused'),
      );
      await expect(rag.search({ vault: 'secret', query: 'otter', kind })).rejects.toThrow(
        code('egress_refused'),
      );
    }
    expect(embedder.calls).toBe(0);
    expect(vault.auditEntries().some((e) => e.kind === 'inference')).toBe(false);
    // A local embedder stays allowed for the same vault (EGRESS-11: local inference).
    const local = fakeEmbedder(true);
    const ok = await setup({ embedder: 'onnx' }, { embedderFactory: async () => local });
    ok.vault.vaultCreate({ name: 'secret', device_only: true });
    write(ok.vault, 'x', 'confidential otter plans', 'secret');
    expect(
      (await ok.rag.retrieve('retrieve', { vault: 'secret', query: 'otter', kind: 'hybrid' })).kind,
    ).toBe('hybrid');
  });
});

describe('rag_ask (RAG-22..28, EGRESS-2, EGRESS-11)', () => {
  let chat: FakeChatServer;
  beforeEach(async () => {
    chat = await fakeChatServer();
    cleanups.push(() => chat.close());
  });
  const gen = (): RagServiceConfig => ({
    embedder: 'none',
    generation: { baseUrl: chat.url, model: 'fake' },
  });

  it('answers with citations; only the question and chosen chunks are sent; audit has ids, no question', async () => {
    const { vault, rag } = await setup(gen());
    const w = write(vault, 'Passport', 'my passport expires in March 2031');
    write(vault, 'Other', 'unrelated gardening notes');
    chat.reply = (body) => {
      const [id] = sentSourceIds(body);
      return JSON.stringify({ answer: `It expires in March 2031 [${id}].`, citations: [id] });
    };
    const question = 'when does my passport expire';
    const result = await rag.ask({ question });
    expect(result.status).toBe('answered');
    if (result.status !== 'answered') throw new Error('unreachable');
    expect(result.answer).toContain('March 2031');
    expect(result.citations.map((c) => c.asset_id)).toEqual([w.asset_id]);
    expect(chat.requests).toHaveLength(1);
    const sent = chat.requests[0]!.raw;
    expect(sent).toContain('passport expires');
    expect(sent).not.toContain('gardening');
    expect(chat.requests[0]!.body['response_format']).toEqual({ type: 'json_object' });
    const entries = vault.auditEntries();
    const text = JSON.stringify(entries);
    expect(text).not.toContain(question);
    expect(text).not.toContain('March 2031');
    expect(entries.some((e) => e.type === 'intent' && e.kind === 'inference')).toBe(true);
    const read = entries.filter((e) => e.type === 'intent' && e.kind === 'read').at(-1);
    expect(read?.details['sources']).toEqual([`${w.asset_id}@${w.revision_id}`]);
    const outcome = entries.filter((e) => e.kind === 'rag.result').at(-1);
    expect(outcome?.details).toEqual(
      expect.objectContaining({
        op: 'rag_ask',
        outcome: 'delivered',
        sources: [`${w.asset_id}@${w.revision_id}`],
      }),
    );
  });

  it('RAG-26: insufficient evidence never calls the model', async () => {
    const { vault, rag } = await setup(gen());
    write(vault, 'Passport', 'my passport expires in March 2031');
    const result = await rag.ask({ question: 'volcano eruption', mode: 'all' });
    expect(result).toEqual({
      vault: 'personal',
      status: 'insufficient_evidence',
      answer: null,
      citations: [],
    });
    expect(chat.requests).toHaveLength(0);
  });

  it('RAG-25: an unknown citation id is rejected', async () => {
    const { vault, rag } = await setup(gen());
    write(vault, 'Passport', 'my passport expires in March 2031');
    chat.reply = () => JSON.stringify({ answer: 'March [S9].', citations: ['S9'] });
    await expect(rag.ask({ question: 'passport' })).rejects.toThrow(code('model_failed'));
    const last = vault
      .auditEntries()
      .filter((e) => e.kind === 'rag.result')
      .at(-1);
    expect(last?.details).toEqual(expect.objectContaining({ outcome: 'failed', code: 'model_failed' }));
  });

  it('EGRESS-11: a device-only vault refuses a non-loopback endpoint before any request', async () => {
    let created = 0;
    const { vault, rag } = await setup(
      { embedder: 'none', generation: { baseUrl: 'https://llm.example.com/v1', model: 'm' } },
      {
        modelFactory: () => {
          created++;
          return { loopback: false, id: 'x', requestCount: 0, complete: async () => 'never' };
        },
      },
    );
    vault.vaultCreate({ name: 'secret', device_only: true });
    write(vault, 'x', 'otter plans', 'secret');
    await expect(rag.ask({ vault: 'secret', question: 'otter' })).rejects.toThrow(code('egress_refused'));
    expect(created).toBe(1);
    expect(vault.auditEntries().some((e) => e.kind === 'inference')).toBe(false);
    // the real model refuses plain HTTP to a non-loopback host at creation
    const real = createRagService({
      vault,
      config: { embedder: 'none', generation: { baseUrl: 'http://10.0.0.1/v1', model: 'm' } },
    });
    await expect(real.ask({ question: 'otter', vault: 'secret' })).rejects.toThrow(code('egress_refused'));
  });

  it('RAG-28: a lock during an in-flight ask suppresses its result', async () => {
    const { vault, rag } = await setup(gen());
    write(vault, 'Passport', 'my passport expires in March 2031');
    chat.delayMs = 300;
    chat.reply = (body) => {
      const [id] = sentSourceIds(body);
      return JSON.stringify({ answer: `March [${id}]`, citations: [id] });
    };
    const pending = rag.ask({ question: 'passport' });
    await new Promise((r) => setTimeout(r, 100));
    expect(chat.requests).toHaveLength(1);
    vault.lock();
    rag.clear();
    await expect(pending).rejects.toThrow(code('locked'));
  });

  it('RAG-28: a lock noticed only by the re-check (no clear) also suppresses the result', async () => {
    const { vault, rag } = await setup(gen());
    write(vault, 'Passport', 'my passport expires in March 2031');
    chat.delayMs = 200;
    chat.reply = (body) => {
      const [id] = sentSourceIds(body);
      return JSON.stringify({ answer: `March [${id}]`, citations: [id] });
    };
    const pending = rag.ask({ question: 'passport' });
    await new Promise((r) => setTimeout(r, 80));
    vault.lock();
    await vault.unlock(PW);
    await expect(pending).rejects.toThrow(code('locked'));
  });

  it('RAG-21: a write during an in-flight ask makes it stale', async () => {
    const { vault, rag } = await setup(gen());
    write(vault, 'Passport', 'my passport expires in March 2031');
    chat.delayMs = 200;
    chat.reply = (body) => {
      const [id] = sentSourceIds(body);
      return JSON.stringify({ answer: `March [${id}]`, citations: [id] });
    };
    const pending = rag.ask({ question: 'passport' });
    await new Promise((r) => setTimeout(r, 80));
    write(vault, 'New', 'another note');
    await expect(pending).rejects.toThrow(code('stale'));
  });
});
