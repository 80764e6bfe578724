// Finding a revision row by id without an SQL index (store-schema.ts, `revisions`). Each row
// keeps `lookup` = a keyed hash of its id; the store maps lookup → seq in memory. The map is
// loaded once per unlock from sealed blocks of 256 lookups (`state` rows `lookups.<block>`,
// written in the commit that fills a block, counted by the checkpoint's row_count like every
// extra row) plus the `lookup` column of the < 256 rows after the last block. A unique index
// did the same on disk but every commit journaled and wrote one of its random leaf pages
// (~9 KiB of the ~38 KiB a commit wrote).
import type { SealedValueLabel } from '@arslan/vault-core';
import { VaultStoreError } from './vault-store.errors';

export const LOOKUP_BYTES = 16;
export const LOOKUP_BLOCK_ROWS = 256;
/** Range of the lookup block purposes in `state` ('/' is the byte after '.'). */
export const LOOKUP_PURPOSE_FROM = 'lookups.';
export const LOOKUP_PURPOSE_TO = 'lookups/';

/** Block `block` (0-based) holds the lookups of rows block·256+1 … (block+1)·256, in seq order. */
export function lookupBlockLabel(block: number): SealedValueLabel {
  return { table: 'state', purpose: `${LOOKUP_PURPOSE_FROM}${String(block).padStart(12, '0')}` };
}

export interface SealedBlockRow {
  purpose: string;
  value: Uint8Array;
}

export interface NewLookup {
  seq: number;
  lookup: Buffer;
}

const keyOf = (bytes: Uint8Array, offset = 0): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset + offset, LOOKUP_BYTES).toString('hex');

export class RevisionLookups {
  private readonly seqByKey = new Map<string, number>();
  /** Lookups of the rows after the last block, in seq order. */
  private tail: Buffer[] = [];
  private blocks = 0;

  /**
   * `blockRows`: the sealed block rows in purpose order, opened with `open`; `tailRows`: (seq,
   * lookup) of every row after them. A missing or misplaced block or a gap is `corrupt`.
   */
  static load(
    blockRows: readonly SealedBlockRow[],
    open: (sealed: Uint8Array, label: SealedValueLabel) => Uint8Array,
    tailRows: (afterSeq: number) => Iterable<[number, Buffer]>,
  ): RevisionLookups {
    const index = new RevisionLookups();
    for (const row of blockRows) {
      const label = lookupBlockLabel(index.blocks);
      if (row.purpose !== label.purpose) throw new VaultStoreError('corrupt', 'lookup blocks out of order');
      const plain = open(row.value, label);
      if (plain.length !== LOOKUP_BLOCK_ROWS * LOOKUP_BYTES)
        throw new VaultStoreError('corrupt', 'lookup block length');
      const first = index.blocks * LOOKUP_BLOCK_ROWS + 1;
      for (let i = 0; i < LOOKUP_BLOCK_ROWS; i++) index.remember(keyOf(plain, i * LOOKUP_BYTES), first + i);
      index.blocks++;
    }
    for (const [seq, lookup] of tailRows(index.blocks * LOOKUP_BLOCK_ROWS)) {
      if (seq !== index.nextSeq() || lookup.length !== LOOKUP_BYTES)
        throw new VaultStoreError('corrupt', 'revision rows do not follow the lookup blocks');
      index.remember(keyOf(lookup), seq);
      index.tail.push(lookup);
    }
    return index;
  }

  /** The row number of `lookup`, if a row has it. */
  find(lookup: Buffer): number | undefined {
    return this.seqByKey.get(keyOf(lookup));
  }

  /** The seq the next appended row must have (rows are counted from 1 without gaps). */
  nextSeq(): number {
    return this.blocks * LOOKUP_BLOCK_ROWS + this.tail.length + 1;
  }

  /**
   * The block rows that appending `rows` (in seq order, right after the known ones) completes,
   * sealed with `seal`; also refuses a lookup that is already stored or repeated (the unique
   * index this replaces did). Changes nothing: `commit` after the transaction did.
   */
  prepare(
    rows: readonly NewLookup[],
    seal: (plain: Uint8Array, label: SealedValueLabel) => Uint8Array,
  ): SealedBlockRow[] {
    const batch = new Set<string>();
    for (const row of rows) {
      const key = keyOf(row.lookup);
      if (this.seqByKey.has(key) || batch.has(key))
        throw new VaultStoreError('commit_failed', 'a revision row with this id exists');
      batch.add(key);
    }
    const pending = [...this.tail, ...rows.map((r) => r.lookup)];
    const out: SealedBlockRow[] = [];
    for (let b = 0; (b + 1) * LOOKUP_BLOCK_ROWS <= pending.length; b++) {
      const plain = Buffer.concat(pending.slice(b * LOOKUP_BLOCK_ROWS, (b + 1) * LOOKUP_BLOCK_ROWS));
      const label = lookupBlockLabel(this.blocks + b);
      out.push({ purpose: label.purpose, value: seal(plain, label) });
    }
    return out;
  }

  /** After the transaction with `rows` and `blocksWritten` blocks (from prepare) committed. */
  commit(rows: readonly NewLookup[], blocksWritten: number): void {
    for (const row of rows) {
      this.remember(keyOf(row.lookup), row.seq);
      this.tail.push(row.lookup);
    }
    this.tail = this.tail.slice(blocksWritten * LOOKUP_BLOCK_ROWS);
    this.blocks += blocksWritten;
  }

  private remember(key: string, seq: number): void {
    // Two rows of one revision (never written by this store) resolve to the first.
    if (!this.seqByKey.has(key)) this.seqByKey.set(key, seq);
  }
}
