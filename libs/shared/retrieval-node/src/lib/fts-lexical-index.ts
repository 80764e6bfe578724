// The per-vault lexical index: an in-memory SQLite database with FTS5 (RAG-4, RAG-8..RAG-11).
import Database from 'better-sqlite3';
import {
  foldForMatch,
  type ChunkRecord,
  type ChunkWords,
  type LexicalIndex,
  type ParsedQuery,
  type ScoredChunk,
  type WordSegmenter,
} from '@arslan/retrieval';
import { ftsMatchOf, ftsString, usableTerms } from './fts-match';

/** BM25 column weights (RAG-9): title 5, body 1, safe metadata 2. */
export const BM25_WEIGHTS = { title: 5, body: 1, metadata: 2 } as const;

/** Substring-fallback pieces of at least this many code points use the trigram index; shorter ones a LIKE scan. */
export const TRIGRAM_MIN_CHARS = 3;

export interface FtsLexicalIndexOptions {
  /** Splits titles, bodies, metadata and (through the caller's parser) queries into words. */
  segmenter: WordSegmenter;
  /**
   * UTF-8 bytes that the source text + metadata (`textBytes`) and the kept matching words (`wordBytes`) may take
   * together. Words are kept for a chunk only while they fit; when later text needs the room, the oldest kept
   * words are dropped (those chunks are then segmented per query again). Default: unbounded.
   */
  memoryBudgetBytes?: number;
}

export interface FtsLexicalIndexDiagnostics {
  open: boolean;
  /** true for a `:memory:` database (RAG-4). */
  memory: boolean;
  /** `PRAGMA temp_store`: 2 = MEMORY (RAG-4). */
  tempStore: number;
}

export interface FtsLexicalIndex extends LexicalIndex {
  has(chunkId: string): boolean;
  chunkIdsOfAsset(assetId: string): string[];
  /** UTF-8 bytes of title + text + metadata over all chunks (RAG-2). */
  textBytes(): number;
  /** UTF-8 bytes of the matching words kept for the reranker and the mode filter (see `words`). */
  wordBytes(): number;
  /** The chunk's matching words (segmented and folded at `add`), or `undefined` when they were not kept. */
  words(chunkId: string): ChunkWords | undefined;
  diagnostics(): FtsLexicalIndexDiagnostics;
  /** Closes the in-memory database; afterwards searches return nothing and `add` throws. */
  close(): void;
  readonly closed: boolean;
}

/** The UTF-8 size of a chunk's source text plus metadata, as counted against RAG-2. */
export function chunkTextBytes(chunk: Pick<ChunkRecord, 'title' | 'text' | 'metadata'>): number {
  return (
    Buffer.byteLength(chunk.title, 'utf8') +
    Buffer.byteLength(chunk.text, 'utf8') +
    Buffer.byteLength(chunk.metadata, 'utf8')
  );
}

const SCHEMA = `
CREATE TABLE chunks (
  rowid INTEGER PRIMARY KEY,
  chunk_id TEXT NOT NULL UNIQUE,
  vault_id TEXT NOT NULL,
  asset_id TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  metadata TEXT NOT NULL,
  byte_start INTEGER NOT NULL,
  byte_end INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE INDEX chunks_asset ON chunks (asset_id);
CREATE VIRTUAL TABLE fts USING fts5 (
  title, body, metadata,
  tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1
);
CREATE VIRTUAL TABLE tri USING fts5 (
  title, body, metadata,
  tokenize = 'trigram remove_diacritics 1', content = '', contentless_delete = 1
);
`;

/** Scripts written without spaces between words, where segmentation can miss: only these get the substring fallback. */
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Separates the kept words of one field; a word holding it (or an empty word) is not kept. */
const WORD_SEP = '\u0000';

/** One chunk's matching words, each field's words joined by WORD_SEP (compact: one string per field). */
interface KeptWords {
  title: string;
  text: string;
  metadata: string;
  bytes: number;
}

/** Joins folded words, or `undefined` if they cannot round-trip through WORD_SEP. */
function joinWords(words: readonly string[]): string | undefined {
  for (const word of words) if (word === '' || word.includes(WORD_SEP)) return undefined;
  return words.join(WORD_SEP);
}

function splitWords(joined: string): string[] {
  return joined === '' ? [] : joined.split(WORD_SEP);
}

interface ChunkRow {
  rowid: number;
  chunk_id: string;
  vault_id: string;
  asset_id: string;
  revision_id: string;
  title: string;
  body: string;
  metadata: string;
  byte_start: number;
  byte_end: number;
  ordinal: number;
}

/**
 * Creates an FTS5 index in a private `:memory:` database with `temp_store = MEMORY` (RAG-4).
 *
 * - `fts` (unicode61) holds the **segmented** text (segmenter words joined by spaces) and ranks
 *   with `bm25(fts, 5, 1, 2)`; scores are `-bm25`, higher is better (RAG-9).
 * - `tri` (trigram) holds the original text for the substring fallback (see `search`).
 * - `chunks` maps rowid → the original `ChunkRecord` (text and UTF-8 offsets, never segmented).
 * Both FTS tables are contentless (`contentless_delete = 1`): the text is kept once, in `chunks`.
 */
export function createFtsLexicalIndex(options: FtsLexicalIndexOptions): FtsLexicalIndex {
  const { segmenter } = options;
  const budget = options.memoryBudgetBytes ?? Number.POSITIVE_INFINITY;
  const db = new Database(':memory:');
  db.pragma('temp_store = MEMORY');
  db.exec(SCHEMA);
  let bytes = 0;
  /** Kept matching words by chunk id; insertion order = age (the oldest are dropped first). */
  const kept = new Map<string, KeptWords>();
  let keptBytes = 0;

  const forget = (chunkId: string): void => {
    const entry = kept.get(chunkId);
    if (entry === undefined) return;
    kept.delete(chunkId);
    keptBytes -= entry.bytes;
  };
  /** Drops the oldest kept words until text + words fit the budget. */
  const fitBudget = (): void => {
    for (const chunkId of kept.keys()) {
      if (bytes + keptBytes <= budget) return;
      forget(chunkId);
    }
  };

  const insertChunk = db.prepare(
    `INSERT INTO chunks (chunk_id, vault_id, asset_id, revision_id, title, body, metadata, byte_start, byte_end, ordinal, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertFts = db.prepare('INSERT INTO fts (rowid, title, body, metadata) VALUES (?, ?, ?, ?)');
  const insertTri = db.prepare('INSERT INTO tri (rowid, title, body, metadata) VALUES (?, ?, ?, ?)');
  const hasChunk = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM chunks WHERE chunk_id = ?');
  const getChunk = db.prepare<[string], ChunkRow>('SELECT * FROM chunks WHERE chunk_id = ?');
  const assetRows = db.prepare<[string], { rowid: number; chunk_id: string; bytes: number }>(
    'SELECT rowid, chunk_id, bytes FROM chunks WHERE asset_id = ? ORDER BY rowid',
  );
  const deleteFts = db.prepare('DELETE FROM fts WHERE rowid = ?');
  const deleteTri = db.prepare('DELETE FROM tri WHERE rowid = ?');
  const deleteAsset = db.prepare('DELETE FROM chunks WHERE asset_id = ?');
  const countChunks = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
  const w = `${BM25_WEIGHTS.title}.0, ${BM25_WEIGHTS.body}.0, ${BM25_WEIGHTS.metadata}.0`;
  const searchFts = db.prepare<[string, number], ScoredChunk>(
    `SELECT c.chunk_id AS chunkId, s.score AS score
       FROM (SELECT rowid, -bm25(fts, ${w}) AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC, rowid LIMIT ?) AS s
       JOIN chunks AS c ON c.rowid = s.rowid
      ORDER BY s.score DESC, s.rowid`,
  );

  /**
   * Segments a field once: the FTS5 text (segmenter words joined by spaces) and the joined matching words
   * (`foldForMatch` of each word, as the mode filter and the reranker compare them).
   */
  const segmentField = (text: string, memo?: Map<string, { fts: string; words: string | undefined }>) => {
    const known = memo?.get(text);
    if (known !== undefined) return known;
    const words = segmenter.segment(text);
    const field = { fts: words.join(' '), words: joinWords(words.map(foldForMatch)) };
    memo?.set(text, field); // titles (and metadata) repeat over an asset's chunks: segmented once per batch
    return field;
  };

  const addAll = db.transaction((chunks: readonly ChunkRecord[]) => {
    let added = 0;
    const memo = new Map<string, { fts: string; words: string | undefined }>();
    const fresh: { chunkId: string; words: KeptWords }[] = [];
    for (const chunk of chunks) {
      if (hasChunk.get(chunk.chunkId)) continue; // chunk ids hash revision, range and text: same id, same chunk
      const size = chunkTextBytes(chunk);
      const info = insertChunk.run(
        chunk.chunkId,
        chunk.vaultId,
        chunk.assetId,
        chunk.revisionId,
        chunk.title,
        chunk.text,
        chunk.metadata,
        chunk.byteStart,
        chunk.byteEnd,
        chunk.ordinal,
        size,
      );
      const rowid = info.lastInsertRowid;
      const title = segmentField(chunk.title, memo);
      const body = segmentField(chunk.text);
      const metadata = segmentField(chunk.metadata, memo);
      insertFts.run(rowid, title.fts, body.fts, metadata.fts);
      insertTri.run(rowid, chunk.title, chunk.text, chunk.metadata);
      added += size;
      if (title.words !== undefined && body.words !== undefined && metadata.words !== undefined) {
        const wordBytes =
          Buffer.byteLength(title.words, 'utf8') +
          Buffer.byteLength(body.words, 'utf8') +
          Buffer.byteLength(metadata.words, 'utf8');
        fresh.push({
          chunkId: chunk.chunkId,
          words: { title: title.words, text: body.words, metadata: metadata.words, bytes: wordBytes },
        });
      }
    }
    return { added, fresh };
  });

  const removeAll = db.transaction((assetId: string) => {
    let removed = 0;
    for (const row of assetRows.all(assetId)) {
      forget(row.chunk_id);
      deleteFts.run(row.rowid);
      deleteTri.run(row.rowid);
      removed += row.bytes;
    }
    deleteAsset.run(assetId);
    return removed;
  });

  const clearAll = db.transaction(() => {
    db.exec(
      `DELETE FROM chunks; INSERT INTO fts (fts) VALUES ('delete-all'); INSERT INTO tri (tri) VALUES ('delete-all');`,
    );
  });

  /**
   * Substring fallback for unspaced scripts (CJK, Thai, ...), used only when the segmented search
   * finds nothing: each piece of ≥ 3 code points must match the trigram index, shorter pieces
   * (1–2 chars, which trigram cannot match) a LIKE scan over the original text. Pieces are the
   * usable terms (`any`: one must match, `all`: every one) or, for `phrase`, the original phrase.
   * Scores: occurrences weighted 5 / 1 / 2 by column, like BM25's weights (RAG-9).
   */
  function fallbackSearch(query: ParsedQuery, limit: number): ScoredChunk[] {
    const pieces = query.mode === 'phrase' ? phrasePieces(query) : usableTerms(query.terms);
    if (pieces.length === 0 || !pieces.some((piece) => UNSPACED_SCRIPT.test(piece))) return [];
    const clauses: string[] = [];
    const params: string[] = [];
    for (const piece of pieces) {
      if ([...piece].length >= TRIGRAM_MIN_CHARS) {
        clauses.push('c.rowid IN (SELECT rowid FROM tri WHERE tri MATCH ?)');
        params.push(ftsString(piece));
      } else {
        const pattern = `%${piece.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
        clauses.push(
          "(c.title LIKE ? ESCAPE '\\' OR c.body LIKE ? ESCAPE '\\' OR c.metadata LIKE ? ESCAPE '\\')",
        );
        params.push(pattern, pattern, pattern);
      }
    }
    const where = clauses.join(query.mode === 'any' ? ' OR ' : ' AND ');
    const rows = db
      .prepare<string[], Pick<ChunkRow, 'rowid' | 'chunk_id' | 'title' | 'body' | 'metadata'>>(
        `SELECT c.rowid, c.chunk_id, c.title, c.body, c.metadata FROM chunks AS c WHERE ${where} ORDER BY c.rowid`,
      )
      .all(...params);
    const needles = pieces.map((piece) => piece.toLowerCase());
    return rows
      .map((row) => ({
        rowid: row.rowid,
        chunkId: row.chunk_id,
        score:
          BM25_WEIGHTS.title * occurrences(row.title, needles) +
          BM25_WEIGHTS.body * occurrences(row.body, needles) +
          BM25_WEIGHTS.metadata * occurrences(row.metadata, needles),
      }))
      .sort((a, b) => b.score - a.score || a.rowid - b.rowid)
      .slice(0, limit)
      .map(({ chunkId, score }) => ({ chunkId, score }));
  }

  const index: FtsLexicalIndex = {
    get closed() {
      return !db.open;
    },
    add(chunks) {
      if (!db.open) throw new Error('the lexical index is closed');
      const { added, fresh } = addAll(chunks);
      bytes += added;
      fitBudget(); // the new text first: older kept words make room for it
      for (const { chunkId, words } of fresh) {
        if (bytes + keptBytes + words.bytes > budget) break;
        kept.set(chunkId, words);
        keptBytes += words.bytes;
      }
    },
    removeAsset(assetId) {
      if (!db.open) return;
      bytes -= removeAll(assetId);
    },
    search(query, limit) {
      if (!db.open || !(limit >= 1)) return [];
      const max = Math.floor(limit);
      const match = ftsMatchOf(query);
      const hits = match === undefined ? [] : searchFts.all(match, max);
      return hits.length > 0 ? hits : fallbackSearch(query, max);
    },
    get(chunkId) {
      if (!db.open) return undefined;
      const row = getChunk.get(chunkId);
      return row && toRecord(row);
    },
    has(chunkId) {
      return db.open && hasChunk.get(chunkId) !== undefined;
    },
    chunkIdsOfAsset(assetId) {
      return db.open ? assetRows.all(assetId).map((row) => row.chunk_id) : [];
    },
    size() {
      return db.open ? (countChunks.get()?.n ?? 0) : 0;
    },
    textBytes() {
      return db.open ? bytes : 0;
    },
    wordBytes() {
      return db.open ? keptBytes : 0;
    },
    words(chunkId) {
      const entry = db.open ? kept.get(chunkId) : undefined;
      if (entry === undefined) return undefined;
      return {
        title: splitWords(entry.title),
        text: splitWords(entry.text),
        metadata: splitWords(entry.metadata),
      };
    },
    clear() {
      if (!db.open) return;
      clearAll();
      bytes = 0;
      kept.clear();
      keptBytes = 0;
    },
    diagnostics() {
      if (!db.open) return { open: false, memory: db.memory, tempStore: -1 };
      return { open: true, memory: db.memory, tempStore: Number(db.pragma('temp_store', { simple: true })) };
    },
    close() {
      if (!db.open) return;
      db.close();
      bytes = 0;
      kept.clear();
      keptBytes = 0;
    },
  };
  return index;
}

/** The phrase for the fallback: the query text without wrapping quotes, else the terms joined. */
function phrasePieces(query: ParsedQuery): string[] {
  let text = query.text.trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1).trim();
  if (!usableTerms([text]).length) text = usableTerms(query.terms).join(' ');
  return text ? [text] : [];
}

function occurrences(haystack: string, needles: readonly string[]): number {
  const lower = haystack.toLowerCase();
  let count = 0;
  for (const needle of needles) {
    for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) count++;
  }
  return count;
}

function toRecord(row: ChunkRow): ChunkRecord {
  return {
    chunkId: row.chunk_id,
    vaultId: row.vault_id,
    assetId: row.asset_id,
    revisionId: row.revision_id,
    title: row.title,
    text: row.body,
    metadata: row.metadata,
    byteStart: row.byte_start,
    byteEnd: row.byte_end,
    ordinal: row.ordinal,
  };
}
