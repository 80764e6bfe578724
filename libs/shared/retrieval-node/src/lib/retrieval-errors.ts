// Typed errors of the search cache (RAG-2, RAG-6, RAG-28).

/** Which per-vault limit a batch would have exceeded (RAG-2). */
export type RetrievalLimitKind = 'chunks' | 'text_bytes' | 'vector_bytes';

/** A batch would push one vault's cache over a limit; nothing from that batch was added (RAG-2). */
export class RetrievalLimitError extends Error {
  readonly code = 'index_limit' as const;
  constructor(
    readonly vaultId: string,
    readonly limit: RetrievalLimitKind,
    readonly max: number,
    /** What the cache would have held after the batch. */
    readonly attempted: number,
  ) {
    super(
      `search index limit reached for vault ${vaultId}: ${describe(limit)} would be ${attempted}, ` +
        `the limit is ${max}; nothing from this batch was added`,
    );
    this.name = 'RetrievalLimitError';
  }
}

/** The vault's cache was locked, invalidated or evicted; late writes are refused (RAG-6, RAG-28). */
export class RetrievalCacheClosedError extends Error {
  readonly code = 'cache_closed' as const;
  constructor(readonly vaultId: string) {
    super(`the search cache of vault ${vaultId} was cleared (lock, invalidation or eviction); open it again`);
    this.name = 'RetrievalCacheClosedError';
  }
}

function describe(limit: RetrievalLimitKind): string {
  switch (limit) {
    case 'chunks':
      return 'the number of chunks';
    case 'text_bytes':
      return 'the UTF-8 bytes of source text plus metadata';
    case 'vector_bytes':
      return 'the bytes of vectors';
  }
}
