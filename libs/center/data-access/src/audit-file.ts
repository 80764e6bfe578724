// AUD-3: `<data-dir>/audit.jsonl`, one hash-chained JSON line per entry, fsync'd per append.
// An append that fails throws, so the caller's transaction rolls back (fail closed).
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import {
  AUDIT_GENESIS,
  CenterError,
  makeAuditEntry,
  verifyAuditLines,
  type AuditEntry,
  type AuditEvent,
  type AuditSink,
  type AuditVerdict,
  type Clock,
} from '@arslan/center-domain';

export class FileAuditSink implements AuditSink {
  private seq = 0;
  private head = AUDIT_GENESIS;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly clock: Clock,
  ) {
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const last = lines.at(-1);
      if (last) {
        const entry = JSON.parse(last) as AuditEntry;
        this.seq = entry.seq;
        this.head = entry.hash;
      }
    }
  }

  get headHash(): string {
    return this.head;
  }

  append(event: AuditEvent): Promise<void> {
    const next = this.chain.then(() => {
      try {
        this.write(event);
      } catch (e) {
        throw new CenterError(
          'audit_unavailable',
          `audit append failed (${(e as NodeJS.ErrnoException).code ?? 'error'}); change refused`,
        );
      }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private write(event: AuditEvent): void {
    const entry = makeAuditEntry(this.seq + 1, this.clock.now(), this.head, event);
    const fd = openSync(this.path, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.seq = entry.seq;
    this.head = entry.hash;
  }
}

export function verifyAuditFile(path: string, knownHead?: string): AuditVerdict {
  if (!existsSync(path)) return { ok: false, line: 0, reason: `${path} does not exist` };
  return verifyAuditLines(readFileSync(path, 'utf8').split('\n'), knownHead);
}
