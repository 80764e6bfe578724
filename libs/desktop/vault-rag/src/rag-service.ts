// The daemon's retrieval service (RAG-1..28, EGRESS-1..11) over one VaultService: one search cache
// (≤ 2 vaults), one segmenter, one embedder, indexes built lazily per vault and dropped on lock.
//
// Delivery discipline: reading sources to index them is not delivery; results are. Every op that
// returns source text commits a `read` intent naming the delivered sources first (VAULT-13, RAG-22);
// `rag_ask` commits an `inference` intent before the model call, and a remote embedder an `inference`
// intent before it is sent vault text or a query. The unlock generation and the vault's content
// stamp are captured before external work and compared after it and again right before returning
// (RAG-21, RAG-28): a lock → `locked`, changed sources → `stale`, and nothing is delivered.
// The audit records the outcome and the delivered source ids, never the query, prompt, answer or keys.
import { type IndexSourceStamp, type VaultService } from '@arslan/desktop-vault';
import {
  IpcError,
  type RagStatusResult,
  type RetrievedChunk as WireChunk,
  type VaultOpArgs,
  type VaultOpResults,
} from '@arslan/protocol';
import {
  type ChunkRecord,
  type Embedder,
  type RetrievedChunk,
  type SearchKind,
  type WordSegmenter,
  buildChunkRecords,
  composeSegmenter,
  createRetriever,
  isRetrievalError,
  runAsk,
} from '@arslan/retrieval';
import {
  type SearchCache,
  type SearchCacheLimits,
  type VaultSearchCache,
  USE_LITE_ID,
  createJiebaSegmenter,
  queryEmbedderOf,
  createSearchCache,
} from '@arslan/retrieval-node';
import { basename } from 'node:path';
import { type RagChatModel } from './openai-chat.model';
import { createConfiguredChatModel, createConfiguredEmbedder } from './rag-egress';
import { type GenerationConfig, type RagServiceConfig } from './rag-config';
import { lockedError, staleError, toRagIpcError } from './rag-errors';

/** The part of the vault service RAG needs. */
export type RagVault = Pick<
  VaultService,
  'indexStamp' | 'indexSources' | 'unlockGeneration' | 'recordIntent' | 'recordEvent'
>;

export interface RagServiceOptions {
  vault: RagVault;
  config: RagServiceConfig;
  /** The generation endpoint (default: OpenAI-compatible chat completions). */
  modelFactory?: (config: GenerationConfig) => RagChatModel;
  /** The embedder for `config.embedder` (default: USE-lite, ONNX, remote, or none). */
  embedderFactory?: (config: RagServiceConfig) => Promise<Embedder | null>;
  segmenter?: WordSegmenter;
  limits?: Partial<SearchCacheLimits>;
  /** Texts per embedding call while indexing; default 64. */
  embedBatch?: number;
  /** Where API keys and proxy variables are read (EGRESS-5/9); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

type ChunkOp = 'retrieve' | 'rag_search';

export interface RagService {
  search(args: VaultOpArgs<'search'>): Promise<VaultOpResults['search']>;
  retrieve(op: ChunkOp, args: VaultOpArgs<'retrieve'>): Promise<VaultOpResults['retrieve']>;
  index(args: VaultOpArgs<'rag_index'>): Promise<VaultOpResults['rag_index']>;
  status(args: VaultOpArgs<'rag_status'>): VaultOpResults['rag_status'];
  ask(args: VaultOpArgs<'rag_ask'>): Promise<VaultOpResults['rag_ask']>;
  /** RAG-6: lock. Drops every index and vector and aborts in-flight external work. */
  clear(): void;
  close(): Promise<void>;
}

interface IndexedVault {
  stamp: IndexSourceStamp;
  handle: VaultSearchCache;
  /** Vectors were built (an embedder is configured and allowed for this vault). */
  vectors: boolean;
  sources: number;
}

const SNIPPET_CHARS = 280;
const ASK_SOURCES = 8;
const EMBED_BATCH = 64;

export function createRagService(options: RagServiceOptions): RagService {
  const { vault, config } = options;
  const segmenter = options.segmenter ?? composeSegmenter({ chinese: createJiebaSegmenter() });
  const cache: SearchCache = createSearchCache({
    segmenter,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const env = options.env ?? process.env;
  const modelFactory =
    options.modelFactory ?? ((g: GenerationConfig) => createConfiguredChatModel(g, config, env));
  const embedderFactory =
    options.embedderFactory ?? ((c: RagServiceConfig) => createConfiguredEmbedder(c, env));
  const embedBatch = Math.max(1, options.embedBatch ?? EMBED_BATCH);
  const indexed = new Map<string, IndexedVault>();
  const building = new Map<string, { stamp: IndexSourceStamp; promise: Promise<IndexedVault> }>();
  const inflight = new Set<AbortController>();
  let generation = vault.unlockGeneration();
  let embedder: Promise<Embedder | null> | undefined;

  function clear(): void {
    for (const controller of inflight) controller.abort();
    inflight.clear();
    indexed.clear();
    building.clear();
    cache.clearAll();
  }

  /** The current stamp; a lock/unlock since the last call clears everything first (RAG-6). */
  function currentStamp(name: string | undefined): IndexSourceStamp {
    const gen = vault.unlockGeneration();
    if (gen !== generation) {
      clear();
      generation = gen;
    }
    const stamp = vault.indexStamp(name);
    if (stamp.unlock_generation !== generation) {
      clear();
      generation = stamp.unlock_generation;
    }
    return stamp;
  }

  /** RAG-21/28: the vault is still unlocked in the same generation and its sources did not change. */
  function recheck(stamp: IndexSourceStamp): void {
    if (vault.unlockGeneration() !== stamp.unlock_generation) throw lockedError();
    let now: IndexSourceStamp;
    try {
      now = vault.indexStamp(stamp.vault);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'locked') throw lockedError();
      throw error;
    }
    if (now.unlock_generation !== stamp.unlock_generation) throw lockedError();
    if (now.vault_id !== stamp.vault_id || now.content_stamp !== stamp.content_stamp) throw staleError();
  }

  function embedderInstance(): Promise<Embedder | null> {
    embedder ??= embedderFactory(config).catch((error: unknown) => {
      embedder = undefined; // retry on the next call
      throw error;
    });
    return embedder;
  }

  /** The embedder this vault may use: none when unconfigured, or when a device-only vault would send text off the device (EGRESS-11). */
  async function embedderFor(stamp: IndexSourceStamp): Promise<Embedder | null> {
    if (config.embedder === 'none') return null;
    const e = await embedderInstance();
    if (e === null) return null;
    if (stamp.device_only && !e.local) return null;
    return e;
  }

  async function withAbort<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    inflight.add(controller);
    try {
      return await run(controller.signal);
    } finally {
      inflight.delete(controller);
    }
  }

  function sameStamp(a: IndexSourceStamp, b: IndexSourceStamp): boolean {
    return (
      a.vault_id === b.vault_id &&
      a.content_stamp === b.content_stamp &&
      a.unlock_generation === b.unlock_generation
    );
  }

  async function ensureIndex(name: string | undefined): Promise<IndexedVault> {
    const stamp = currentStamp(name);
    const current = indexed.get(stamp.vault_id);
    if (current && sameStamp(current.stamp, stamp) && !current.handle.closed) return current;
    const pending = building.get(stamp.vault_id);
    if (pending && sameStamp(pending.stamp, stamp)) return pending.promise;
    // RAG-6: the sources changed (write, delete, resolve, policy): drop this vault's indexes.
    indexed.delete(stamp.vault_id);
    cache.invalidate(stamp.vault_id);
    const promise = build(stamp.vault).finally(() => {
      if (building.get(stamp.vault_id)?.promise === promise) building.delete(stamp.vault_id);
    });
    building.set(stamp.vault_id, { stamp, promise });
    return promise;
  }

  async function build(name: string): Promise<IndexedVault> {
    const src = vault.indexSources(name);
    const stamp: IndexSourceStamp = {
      vault: src.vault,
      vault_id: src.vault_id,
      device_only: src.device_only,
      content_stamp: src.content_stamp,
      unlock_generation: src.unlock_generation,
    };
    const handle = cache.vault(src.vault_id);
    try {
      const records: ChunkRecord[] = src.sources.flatMap((s) =>
        buildChunkRecords({
          vaultId: src.vault_id,
          assetId: s.asset_id,
          revisionId: s.revision_id,
          title: s.title,
          body: s.body,
          metadata: '',
        }),
      );
      handle.lexical.add(records); // RAG-2: all or nothing, RetrievalLimitError → index_limit
      let vectors = false;
      const e = await embedderFor(stamp);
      recheck(stamp);
      if (e !== null && records.length > 0) {
        if (!e.local) {
          // RAG-22 / EGRESS-1: vault text is about to leave the device for the remote embedder.
          vault.recordIntent('inference', {
            op: 'rag_index',
            vault: stamp.vault,
            purpose: 'embed',
            chunks: records.length,
          });
        }
        const index = handle.vectors(e.dimensions);
        await withAbort(async (signal) => {
          for (let i = 0; i < records.length; i += embedBatch) {
            const batch = records.slice(i, i + embedBatch);
            const vecs = await e.embed(
              batch.map((r) => (r.title ? `${r.title}\n${r.text}` : r.text)),
              signal,
            );
            recheck(stamp);
            index.addBatch(batch.map((r, j) => ({ chunkId: r.chunkId, vector: vecs[j] as Float32Array })));
          }
        });
        vectors = true;
      }
      recheck(stamp);
      const entry: IndexedVault = { stamp, handle, vectors, sources: src.sources.length };
      indexed.set(stamp.vault_id, entry);
      return entry;
    } catch (error) {
      cache.invalidate(src.vault_id);
      throw error;
    }
  }

  function lockedNow(stamp: IndexSourceStamp | undefined): boolean {
    return stamp !== undefined && vault.unlockGeneration() !== stamp.unlock_generation;
  }

  /** RAG-23: outcome + delivered source ids; best effort for failures (a locked vault has no audit). */
  function audit(
    op: string,
    stamp: IndexSourceStamp,
    details: Record<string, string | number | string[]>,
  ): void {
    vault.recordEvent('rag.result', { op, vault: stamp.vault, ...details });
  }

  function auditFailure(op: string, stamp: IndexSourceStamp | undefined, code: string): void {
    if (!stamp || lockedNow(stamp)) return;
    try {
      vault.recordEvent('rag.result', { op, vault: stamp.vault, outcome: 'failed', code });
    } catch {
      // best effort: the original error is what the caller sees
    }
  }

  async function guarded<T>(
    op: string,
    run: (setStamp: (s: IndexSourceStamp) => void) => Promise<T>,
  ): Promise<T> {
    let stamp: IndexSourceStamp | undefined;
    try {
      return await run((s) => (stamp = s));
    } catch (error) {
      const mapped = toRagIpcError(error, lockedNow(stamp));
      const code = (mapped as { code?: unknown }).code;
      auditFailure(op, stamp, typeof code === 'string' ? code : 'internal');
      throw mapped;
    }
  }

  /** VAULT-13: the read intent naming the delivered sources, then the last re-check, then the outcome. */
  function deliver(
    op: string,
    stamp: IndexSourceStamp,
    chunks: readonly { assetId: string; revisionId: string }[],
  ): void {
    const sources = sourceIds(chunks);
    recheck(stamp);
    if (sources.length > 0) vault.recordIntent('read', { op, vault: stamp.vault, sources });
    recheck(stamp);
    audit(op, stamp, { outcome: 'delivered', sources });
  }

  async function runSearch(
    entry: IndexedVault,
    args: { query: string; mode?: 'any' | 'all' | 'phrase'; kind?: SearchKind; limit?: number },
    op: string,
    documents: boolean,
  ) {
    if (args.kind !== undefined && args.kind !== 'lexical' && entry.stamp.device_only) {
      // EGRESS-11: vectors were asked for explicitly, but this vault's embedder is off the device:
      // refuse before any inference instead of quietly answering lexically. (Without an explicit
      // kind the search falls back to lexical and says so in `kind`.)
      const configured = config.embedder === 'none' ? null : await embedderInstance();
      if (configured !== null && !configured.local)
        throw new IpcError(
          'egress_refused',
          `vault ${entry.stamp.vault} is device-only: the embedding endpoint is not on loopback (search with kind "lexical")`,
        );
    }
    const e = entry.vectors ? await embedderFor(entry.stamp) : null;
    const retriever = createRetriever({
      lexical: entry.handle.lexical,
      // Asymmetric models (EmbeddingGemma) embed queries with their query prompt.
      ...(e && entry.handle.vector ? { vector: entry.handle.vector, embedder: queryEmbedderOf(e) } : {}),
      segmenter,
    });
    const kind = args.kind ?? 'hybrid';
    if (e && !e.local && kind !== 'lexical') {
      // RAG-22: the query goes to a remote embedder.
      vault.recordIntent('inference', { op, vault: entry.stamp.vault, purpose: 'embed_query' });
    }
    const request = {
      query: args.query,
      mode: args.mode ?? 'any',
      kind,
      ...(args.limit === undefined ? {} : { limit: args.limit }),
    };
    return withAbort(async (signal) => {
      const result = documents
        ? await retriever.searchDocuments({ ...request, signal })
        : await retriever.search({ ...request, signal });
      recheck(entry.stamp); // after the external work (query embedding)
      return result;
    });
  }

  async function chunksOf(op: ChunkOp, args: VaultOpArgs<'retrieve'>): Promise<VaultOpResults['retrieve']> {
    return guarded(op, async (setStamp) => {
      const entry = await ensureIndex(args.vault);
      setStamp(entry.stamp);
      const result = await runSearch(entry, args, op, false);
      if (!('chunks' in result)) throw new IpcError('internal', 'unexpected search result');
      deliver(op, entry.stamp, result.chunks);
      return { vault: entry.stamp.vault, kind: result.used, chunks: result.chunks.map(toWire) };
    });
  }

  function statusOf(stamp: IndexSourceStamp): RagStatusResult {
    const entry = indexed.get(stamp.vault_id);
    const live = entry !== undefined && sameStamp(entry.stamp, stamp) && !entry.handle.closed;
    const stats = live ? entry.handle.stats() : undefined;
    return {
      vault: stamp.vault,
      indexed: live,
      chunks: stats?.chunks ?? 0,
      text_bytes: stats?.textBytes ?? 0,
      vector_bytes: stats?.vectorBytes ?? 0,
      embedder: embedderName(),
      cached_vaults: cache.openVaults().length,
    };
  }

  function embedderName(): string | null {
    switch (config.embedder) {
      case 'none':
        return null;
      case 'use-lite':
        return USE_LITE_ID;
      case 'onnx':
        return `onnx:${basename(config.localModelDir ?? 'model')}`;
      case 'remote':
        return `remote:${config.remote?.model ?? '?'}`;
    }
  }

  return {
    clear,

    search(args) {
      return guarded('search', async (setStamp) => {
        const entry = await ensureIndex(args.vault);
        setStamp(entry.stamp);
        const result = await runSearch(entry, args, 'search', true);
        if (!('documents' in result)) throw new IpcError('internal', 'unexpected search result');
        deliver(
          'search',
          entry.stamp,
          result.documents.map((d) => ({ assetId: d.assetId, revisionId: d.revisionId })),
        );
        return {
          vault: entry.stamp.vault,
          kind: result.used,
          hits: result.documents.map((d) => ({
            asset_id: d.assetId,
            revision_id: d.revisionId,
            title: d.title,
            snippet: snippet(d.best.text),
            score: d.score,
            matching_chunks: d.matchingChunks,
          })),
        };
      });
    },

    retrieve(op, args) {
      return chunksOf(op, args);
    },

    index(args) {
      return guarded('rag_index', async (setStamp) => {
        const entry = await ensureIndex(args.vault);
        setStamp(entry.stamp);
        recheck(entry.stamp);
        const status = statusOf(entry.stamp);
        audit('rag_index', entry.stamp, { outcome: 'indexed', chunks: status.chunks });
        return status;
      });
    },

    status(args) {
      return statusOf(currentStamp(args.vault));
    },

    ask(args) {
      return guarded('rag_ask', async (setStamp) => {
        const generationConfig = config.generation;
        if (generationConfig === undefined)
          throw new IpcError('bad_request', 'no generation endpoint is configured ([rag.generation])');
        const entry = await ensureIndex(args.vault);
        setStamp(entry.stamp);
        const stamp = entry.stamp;
        const found = await runSearch(
          entry,
          {
            query: args.question,
            mode: args.mode ?? 'any',
            kind: entry.vectors ? 'hybrid' : 'lexical',
            limit: args.limit ?? ASK_SOURCES,
          },
          'rag_ask',
          false,
        );
        if (!('chunks' in found)) throw new IpcError('internal', 'unexpected search result');
        const chunks = found.chunks.filter((c) => c.text.trim() !== '');
        const insufficient = (): VaultOpResults['rag_ask'] => {
          recheck(stamp);
          audit('rag_ask', stamp, { outcome: 'insufficient_evidence', sources: [] });
          return { vault: stamp.vault, status: 'insufficient_evidence', answer: null, citations: [] };
        };
        // RAG-26: no evidence → the model is never called.
        if (chunks.length === 0) return insufficient();
        // EGRESS-11: refused before any inference (and before the intent).
        const model = modelFactory(generationConfig);
        if (stamp.device_only && !model.loopback)
          throw new IpcError(
            'egress_refused',
            `vault ${stamp.vault} is device-only: the generation endpoint is not on loopback`,
          );
        const sent = chunks.slice(0, ASK_SOURCES);
        recheck(stamp);
        // RAG-22: the signed intent precedes the inference (EGRESS-2: question + these chunks only).
        vault.recordIntent('inference', { op: 'rag_ask', vault: stamp.vault, sources: sourceIds(sent) });
        let answer;
        try {
          answer = await withAbort((signal) =>
            runAsk(args.question, sent, model, { signal, maxSources: ASK_SOURCES }),
          );
        } catch (error) {
          recheck(stamp); // a lock or change meanwhile wins over the model's outcome (RAG-28)
          if (isRetrievalError(error, 'insufficient_evidence')) return insufficient();
          throw error;
        }
        recheck(stamp);
        const byChunk = new Map(sent.map((c) => [c.chunkId, c]));
        const citations: WireChunk[] = answer.cited.map((source) => {
          const chunk = byChunk.get(source.chunkId);
          if (!chunk) throw new IpcError('model_failed', 'a citation does not name a sent source');
          return { ...toWire(chunk), citation: `[${source.id}]` };
        });
        const delivered = citations.map((c) => ({ assetId: c.asset_id, revisionId: c.revision_id }));
        deliver('rag_ask', stamp, delivered);
        return { vault: stamp.vault, status: 'answered', answer: answer.answer, citations };
      });
    },

    async close() {
      clear();
      const e = embedder;
      embedder = undefined;
      if (e) await e.then((x) => x?.close()).catch(() => undefined);
    },
  };
}

function sourceIds(chunks: readonly { assetId: string; revisionId: string }[]): string[] {
  return [...new Set(chunks.map((c) => `${c.assetId}@${c.revisionId}`))];
}

function toWire(chunk: RetrievedChunk): WireChunk {
  return {
    citation: chunk.citation,
    asset_id: chunk.assetId,
    revision_id: chunk.revisionId,
    chunk_id: chunk.chunkId,
    title: chunk.title,
    text: chunk.text,
    byte_start: chunk.byteStart,
    byte_end: chunk.byteEnd,
    score: chunk.score,
  };
}

function snippet(text: string): string {
  const points = [...text];
  return points.length <= SNIPPET_CHARS ? text : `${points.slice(0, SNIPPET_CHARS).join('')}…`;
}
