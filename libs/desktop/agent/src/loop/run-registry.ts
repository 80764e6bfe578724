// CKPT-03/04: the in-process registry of live runs. It holds each run's cancel handle, keeps its
// ordered events, and fans them out. `snapshotAndSubscribe` takes the snapshot and registers the
// listener in one synchronous step, so a reconnecting client sees every event exactly once.
import type { RunStatus } from '../store/run.repository';
import type { RunEvent, RunEventBody } from './run-events';

export interface RunSnapshot {
  runId: string;
  conversationId: string;
  status: RunStatus;
  /** Every event so far, in order; the listener receives only events with seq > lastSeq. */
  events: RunEvent[];
  lastSeq: number;
}

export type RunListener = (event: RunEvent) => void;

interface Entry {
  runId: string;
  conversationId: string;
  status: RunStatus;
  events: RunEvent[];
  listeners: Set<RunListener>;
  stop: () => void;
}

export interface RunRegistryOptions {
  now?: () => number;
  /** Called for each event before fan-out (persistence, CKPT-02). */
  persist?: (event: RunEvent) => void;
  /** Finished runs kept in memory for reconnects (older ones replay from the store). */
  keepFinished?: number;
}

export class RunRegistry {
  private readonly runs = new Map<string, Entry>();
  private readonly finishedOrder: string[] = [];
  private readonly now: () => number;

  constructor(private readonly options: RunRegistryOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  register(runId: string, conversationId: string, stop: () => void): void {
    this.runs.set(runId, {
      runId,
      conversationId,
      status: 'running',
      events: [],
      listeners: new Set(),
      stop,
    });
  }

  publish(runId: string, body: RunEventBody): RunEvent | undefined {
    const entry = this.runs.get(runId);
    if (!entry || entry.status !== 'running') return undefined; // late events of a finished run are dropped
    const event = { ...body, runId, seq: entry.events.length + 1, at: this.now() } as RunEvent;
    entry.events.push(event);
    this.options.persist?.(event);
    if (body.type === 'run_finished') this.markFinished(entry, body.status);
    for (const listener of [...entry.listeners]) {
      try {
        listener(event);
      } catch {
        // a failing subscriber never breaks the run or the other subscribers
      }
    }
    return event;
  }

  private markFinished(entry: Entry, status: RunStatus): void {
    entry.status = status;
    this.finishedOrder.push(entry.runId);
    const keep = this.options.keepFinished ?? 100;
    while (this.finishedOrder.length > keep) {
      const old = this.finishedOrder.shift();
      if (old) this.runs.delete(old);
    }
  }

  /** CKPT-14: an undone turn's finished run leaves memory (a live run is never forgotten). */
  forget(runId: string): void {
    const entry = this.runs.get(runId);
    if (!entry || entry.status === 'running') return;
    this.runs.delete(runId);
    const at = this.finishedOrder.indexOf(runId);
    if (at >= 0) this.finishedOrder.splice(at, 1);
  }

  stop(runId: string): boolean {
    const entry = this.runs.get(runId);
    if (!entry || entry.status !== 'running') return false;
    entry.stop();
    return true;
  }

  status(runId: string): RunStatus | undefined {
    return this.runs.get(runId)?.status;
  }

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** The live run of a conversation, else its latest run still held in memory. */
  latestRunOf(conversationId: string): string | undefined {
    let latest: string | undefined;
    for (const entry of this.runs.values()) {
      if (entry.conversationId !== conversationId) continue;
      if (entry.status === 'running') return entry.runId;
      latest = entry.runId;
    }
    return latest;
  }

  /** CKPT-04: one atomic operation — no event is lost or duplicated across the handover. */
  snapshotAndSubscribe(
    runId: string,
    listener: RunListener,
  ): { snapshot: RunSnapshot; unsubscribe: () => void } | undefined {
    const entry = this.runs.get(runId);
    if (!entry) return undefined;
    const snapshot: RunSnapshot = {
      runId,
      conversationId: entry.conversationId,
      status: entry.status,
      events: [...entry.events],
      lastSeq: entry.events.length,
    };
    if (entry.status !== 'running') return { snapshot, unsubscribe: () => undefined };
    entry.listeners.add(listener);
    return { snapshot, unsubscribe: () => entry.listeners.delete(listener) };
  }
}
