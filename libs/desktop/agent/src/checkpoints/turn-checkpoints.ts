// "Undo this turn" (CKPT-11..17): the first change a turn makes to its working folder saves the
// folder once, as it was; at the end of the turn the folder is listed again so that undo can tell
// the turn's own changes from later ones. Undo puts the folder back and removes the turn and every
// later turn from the conversation. Work on one folder (save, listing, restore) runs one at a time.
import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { AgentDb } from '../store/agent-db';
import { CheckpointRepository, type CheckpointRow } from '../store/checkpoint.repository';
import {
  AFTER_MANIFEST,
  BEFORE_MANIFEST,
  type RestoreReport,
  copyEntries,
  readManifest,
  restoreFolder,
  writeJsonAtomic,
} from './folder-copy';
import { type Manifest, hashFiles, scanFolder } from './manifest';
import { UndoError } from './undo.errors';

export interface CheckpointLimits {
  maxFiles: number;
  maxBytes: number;
  /** Free space that must remain on the data volume after the copy. */
  minFreeBytes: number;
}

/** CKPT-12 (the spec's table): 20,000 files, 5 GB. */
export const CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFiles: 20_000,
  maxBytes: 5 * 1024 ** 3,
  minFreeBytes: 512 * 1024 ** 2,
};
/** CKPT-17: 7 days. */
export const CHECKPOINT_RETENTION_MS = 7 * 24 * 60 * 60_000;
export const CHECKPOINTS_DIR = 'checkpoints';
const PURGE_INTERVAL_MS = 60 * 60_000;
const TMP_PREFIX = '.tmp-';

export type NotSavedReason =
  'other_volume' | 'too_many_files' | 'too_large' | 'low_disk' | 'interrupted' | 'error';

/** DEL-05: the memory side of an undo (the vault), when present. */
export interface TurnMemoryPort {
  /** Deletes items whose sources are all these turns; others only lose these sources. */
  forgetTurns(input: { conversationId: string; runIds: readonly string[] }): Promise<void>;
}

export interface TurnCheckpointsOptions {
  db: AgentDb;
  /** The agent's data folder; checkpoints live in `<dataDir>/checkpoints/<id>/`. */
  dataDir: string;
  now?: () => number;
  newId?: () => string;
  limits?: Partial<CheckpointLimits>;
  retentionMs?: number;
  purgeIntervalMs?: number;
  memory?: TurnMemoryPort;
  /** The volume (st_dev) of a path; injectable for tests. */
  deviceOf?: (p: string) => Promise<number>;
  /** Free bytes for this user on the volume of a path (statfs); injectable for tests. */
  freeBytes?: (p: string) => Promise<number>;
}

export interface TurnStart {
  runId: string;
  conversationId: string;
  /** Absolute, real path of the working folder. */
  workspace: string;
  /** Told once whether the save happened ("Not saved" with its reason otherwise). */
  notify?: (outcome: { saved: boolean; message: string }) => void;
}

export interface TurnHandle {
  /** CKPT-11: awaited by write_file/edit_file/terminal before their change; saves once per turn. */
  beforeFirstChange(): Promise<void>;
  /** Records the post-turn listing (CKPT-15) and ends the turn's hold on the folder (CKPT-16). */
  end(): Promise<void>;
}

export interface CheckpointView {
  id: string;
  status: CheckpointRow['status'];
  reason: string | null;
  /** "Saved …" or "Not saved: …" for the turn's line in the UI. */
  message: string;
  fileCount: number;
  bytes: number;
  /** CKPT-13: what was not saved (and will not be restored). */
  notSaved: string[];
}

export interface TurnView {
  runId: string;
  runStatus: string;
  createdAt: number;
  checkpoint: CheckpointView | null;
  /** Undo of this turn would be accepted now. */
  undoable: boolean;
}

export interface FolderUndoReport extends RestoreReport {
  workspace: string;
  /** CKPT-13: not saved, so not restored. */
  notSaved: string[];
}

export interface UndoResult {
  conversationId: string;
  /** The turn and every later turn, oldest first. */
  undoneRunIds: string[];
  removedMessages: number;
  folders: FolderUndoReport[];
  /** DEL-05: whether the memory side was told (absent when no memory store is attached). */
  memory?: { ok: boolean; error?: string };
}

interface ActiveTurn extends TurnStart {
  checkpointId?: string;
}

export class TurnCheckpoints {
  readonly root: string;
  private readonly repo: CheckpointRepository;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly limits: CheckpointLimits;
  private readonly active = new Map<string, ActiveTurn>();
  private readonly undoing = new Set<string>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private staleAfter: CheckpointRow[];

  constructor(private readonly options: TurnCheckpointsOptions) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomUUID;
    this.limits = { ...CHECKPOINT_LIMITS, ...options.limits };
    this.root = path.join(options.dataDir, CHECKPOINTS_DIR);
    this.repo = new CheckpointRepository(options.db, this.now);
    // A save cut off by a restart is "Not saved"; a turn that never listed its end is listed by
    // recover(). Both are decided now, before any new turn can start.
    for (const row of this.repo.byStatus('saving')) this.repo.markNotSaved(row.id, 'interrupted');
    this.staleAfter = this.repo.byStatus('saved').filter((row) => !row.afterRecorded);
  }

  /**
   * After a restart: a turn that never recorded its end is listed as the folder is now, stray temp
   * copies of interrupted saves go, and expired checkpoints are purged.
   */
  async recover(): Promise<void> {
    await fsp.mkdir(this.root, { recursive: true, mode: 0o700 });
    const saving = new Set([...this.active.values()].map((t) => `${TMP_PREFIX}${t.checkpointId ?? ''}`));
    for (const name of await fsp.readdir(this.root))
      if (name.startsWith(TMP_PREFIX) && !saving.has(name))
        await fsp.rm(path.join(this.root, name), { recursive: true, force: true });
    for (const row of this.staleAfter.splice(0)) {
      try {
        await this.recordAfter(row);
      } catch {
        this.repo.markNotSaved(row.id, 'error');
      }
    }
    await this.purgeExpired();
  }

  /** CKPT-17: purge on a timer (unref'd: it never keeps the process alive). */
  startPurgeTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => void this.purgeExpired().catch(() => undefined),
      this.options.purgeIntervalMs ?? PURGE_INTERVAL_MS,
    );
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** CKPT-17: checkpoints older than 7 days are deleted; their turns can no longer be undone. */
  async purgeExpired(): Promise<number> {
    const cutoff = this.now() - (this.options.retentionMs ?? CHECKPOINT_RETENTION_MS);
    let purged = 0;
    for (const row of this.repo.olderThan(cutoff)) {
      if (this.isActive(row.runId)) continue;
      await this.serial(row.workspace, () => fsp.rm(this.dirOf(row.id), { recursive: true, force: true }));
      this.repo.setStatus(row.id, 'expired', 'older than the retention period');
      purged += 1;
    }
    return purged;
  }

  startTurn(start: TurnStart): TurnHandle {
    const turn: ActiveTurn = { ...start };
    this.active.set(start.runId, turn);
    let saving: Promise<void> | undefined;
    return {
      beforeFirstChange: () => (saving ??= this.serial(start.workspace, () => this.save(turn))),
      end: async () => {
        try {
          if (saving) await saving;
          const row = turn.checkpointId ? this.repo.get(turn.checkpointId) : undefined;
          if (row?.status === 'saved') await this.recordAfter(row);
        } catch {
          // Without the post-turn listing later edits cannot be told apart: no undo for this one.
          if (turn.checkpointId) this.repo.markNotSaved(turn.checkpointId, 'error');
        } finally {
          this.active.delete(start.runId);
        }
      },
    };
  }

  list(conversationId: string): TurnView[] {
    const turns = this.repo.turns(conversationId);
    const busy = this.busyReason(
      conversationId,
      turns.map((t) => t.checkpoint?.workspace),
    );
    return turns.map((turn, index) => ({
      runId: turn.runId,
      runStatus: turn.status,
      createdAt: turn.createdAt,
      checkpoint: turn.checkpoint ? this.view(turn.checkpoint) : null,
      undoable:
        busy === undefined &&
        turns
          .slice(index)
          .every(
            (t) => t.checkpoint === null || (t.checkpoint.status === 'saved' && t.checkpoint.afterRecorded),
          ),
    }));
  }

  /** CKPT-14..16: undo `runId` and every later turn of the conversation. Throws UndoError. */
  async undo(input: { conversationId: string; runId: string }): Promise<UndoResult> {
    const { conversationId } = input;
    const turns = this.repo.turns(conversationId);
    const index = turns.findIndex((t) => t.runId === input.runId);
    if (index < 0) throw new UndoError('not_found', 'the conversation has no such turn');
    const range = turns.slice(index);
    const checkpoints = range.flatMap((t) => (t.checkpoint ? [t.checkpoint] : []));
    const busy = this.busyReason(
      conversationId,
      checkpoints.map((c) => c.workspace),
    );
    if (busy) throw new UndoError('busy', busy);
    for (const c of checkpoints) {
      if (c.status === 'not_saved')
        throw new UndoError(
          'not_saved',
          `a turn in the range changed the folder without a save: ${this.message(c)}`,
        );
      if (c.status === 'expired')
        throw new UndoError('expired', 'the save point is older than 7 days and was deleted');
      if (c.status !== 'saved' || !c.afterRecorded)
        throw new UndoError('busy', 'the save point is not complete yet');
    }
    this.undoing.add(conversationId);
    try {
      const folders: FolderUndoReport[] = [];
      for (const [workspace, group] of groupByWorkspace(checkpoints)) {
        const first = group[0]!;
        const last = group.at(-1)!;
        const report = await this.serial(workspace, async () => {
          const before = await readManifest(path.join(this.dirOf(first.id), BEFORE_MANIFEST));
          const after = await readManifest(path.join(this.dirOf(last.id), AFTER_MANIFEST));
          return restoreFolder(workspace, this.dirOf(first.id), before, after);
        });
        folders.push({ workspace, ...report, notSaved: first.notSaved });
      }
      const undoneRunIds = range.map((t) => t.runId);
      const removedMessages = this.repo.removeTurns(
        conversationId,
        undoneRunIds,
        checkpoints.map((c) => c.id),
      );
      for (const c of checkpoints) await fsp.rm(this.dirOf(c.id), { recursive: true, force: true });
      const result: UndoResult = { conversationId, undoneRunIds, removedMessages, folders };
      if (this.options.memory) {
        try {
          await this.options.memory.forgetTurns({ conversationId, runIds: undoneRunIds });
          result.memory = { ok: true };
        } catch (error) {
          result.memory = { ok: false, error: error instanceof Error ? error.message : String(error) };
        }
      }
      return result;
    } finally {
      this.undoing.delete(conversationId);
    }
  }

  private isActive(runId: string): boolean {
    return this.active.has(runId);
  }

  /** CKPT-16: a live turn in the conversation or on one of the folders, or an undo under way. */
  private busyReason(
    conversationId: string,
    workspaces: readonly (string | undefined)[],
  ): string | undefined {
    if (this.undoing.has(conversationId)) return 'an undo of this conversation is already under way';
    const folders = new Set(workspaces.filter((w): w is string => w !== undefined));
    for (const turn of this.active.values()) {
      if (turn.conversationId === conversationId) return 'a reply is still running in this conversation';
      if (folders.has(turn.workspace)) return 'a run is still working in this folder';
    }
    return undefined;
  }

  private dirOf(id: string): string {
    return path.join(this.root, id);
  }

  /** Runs `fn` after every earlier job on the same folder (saves, listings, restores never interleave). */
  private serial<T>(workspace: string, fn: () => Promise<T>): Promise<T> {
    const prior = this.chains.get(workspace) ?? Promise.resolve();
    const next = prior.then(fn, fn);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(workspace, settled);
    void settled.then(() => {
      if (this.chains.get(workspace) === settled) this.chains.delete(workspace);
    });
    return next;
  }

  /** CKPT-11/12/13: never throws; a failed or refused save is recorded as "Not saved". */
  private async save(turn: ActiveTurn): Promise<void> {
    const id = this.newId();
    turn.checkpointId = id;
    this.repo.create({
      id,
      runId: turn.runId,
      conversationId: turn.conversationId,
      workspace: turn.workspace,
    });
    const tmp = path.join(this.root, `${TMP_PREFIX}${id}`);
    let outcome: { saved: true } | { saved: false; reason: NotSavedReason };
    try {
      outcome = await this.copy(turn.workspace, id, tmp);
    } catch {
      await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      outcome = { saved: false, reason: 'error' };
    }
    if (!outcome.saved) this.repo.markNotSaved(id, outcome.reason);
    const row = this.repo.get(id);
    if (row) turn.notify?.({ saved: outcome.saved, message: this.message(row) });
  }

  private async copy(
    workspace: string,
    id: string,
    tmp: string,
  ): Promise<{ saved: true } | { saved: false; reason: NotSavedReason }> {
    await fsp.mkdir(this.root, { recursive: true, mode: 0o700 });
    const deviceOf = this.options.deviceOf ?? (async (p: string) => (await fsp.stat(p)).dev);
    if ((await deviceOf(workspace)) !== (await deviceOf(this.root)))
      return { saved: false, reason: 'other_volume' };
    const scan = await scanFolder(workspace, this.limits);
    if (scan.overLimit) return { saved: false, reason: scan.overLimit };
    const freeBytes =
      this.options.freeBytes ??
      (async (p: string) => {
        const s = await fsp.statfs(p);
        return s.bavail * s.bsize;
      });
    if ((await freeBytes(this.root)) < scan.bytes + this.limits.minFreeBytes)
      return { saved: false, reason: 'low_disk' };
    await fsp.mkdir(tmp, { mode: 0o700 });
    await copyEntries(workspace, scan.entries, tmp);
    const before: Manifest = { entries: scan.entries };
    await writeJsonAtomic(path.join(tmp, BEFORE_MANIFEST), before);
    await fsp.rename(tmp, this.dirOf(id));
    this.repo.markSaved(id, { fileCount: scan.files, bytes: scan.bytes, notSaved: scan.excluded });
    return { saved: true };
  }

  /** CKPT-15: what the turn left, compared against at undo time. */
  private async recordAfter(row: CheckpointRow): Promise<void> {
    await this.serial(row.workspace, async () => {
      const dir = this.dirOf(row.id);
      const before = await readManifest(path.join(dir, BEFORE_MANIFEST));
      const scan = await scanFolder(row.workspace);
      await hashFiles(row.workspace, scan.entries, before);
      await writeJsonAtomic(path.join(dir, AFTER_MANIFEST), { entries: scan.entries } satisfies Manifest);
    });
    this.repo.markAfterRecorded(row.id);
  }

  private view(row: CheckpointRow): CheckpointView {
    return {
      id: row.id,
      status: row.status,
      reason: row.reason,
      message: this.message(row),
      fileCount: row.fileCount,
      bytes: row.bytes,
      notSaved: row.notSaved,
    };
  }

  private message(row: CheckpointRow): string {
    const gb = (this.limits.maxBytes / 1024 ** 3).toLocaleString('en-US', { maximumFractionDigits: 2 });
    switch (row.status) {
      case 'saved':
        return `Saved (${row.fileCount} files)${row.notSaved.length > 0 ? `; not saved: ${row.notSaved.length} excluded items` : ''}`;
      case 'saving':
        return 'Saving…';
      case 'undone':
        return 'Undone';
      case 'expired':
        return 'Save point expired (kept 7 days)';
      case 'not_saved':
        switch (row.reason as NotSavedReason) {
          case 'other_volume':
            return "Not saved: the folder is on a different volume than Arslan's data";
          case 'too_many_files':
            return `Not saved: the folder has more than ${this.limits.maxFiles.toLocaleString('en-US')} files`;
          case 'too_large':
            return `Not saved: the folder is larger than ${gb} GB`;
          case 'low_disk':
            return 'Not saved: not enough free disk space';
          case 'interrupted':
            return 'Not saved: the save was interrupted';
          default:
            return 'Not saved: the folder could not be copied';
        }
    }
  }
}

function groupByWorkspace(rows: readonly CheckpointRow[]): Map<string, CheckpointRow[]> {
  const groups = new Map<string, CheckpointRow[]>();
  for (const row of rows) groups.set(row.workspace, [...(groups.get(row.workspace) ?? []), row]);
  return groups;
}
