// LOOP-04 last gate and APPR-017: decides whether a call that needs a card may run.
// Attended runs consult grants, then ask. Unattended runs (headless, scheduled) never create a
// card and never apply earlier grants: the step is refused at once. Kinds pre-approved for this
// run (`arslan run --allow KINDS`) are an explicit user decision for this run; scheduled runs have
// nobody who could have given it and ignore it.
import type { ActionKind, ApprovalNeed } from '../ports';
import type { RunMode } from '../store/run.repository';
import type { ApprovalQueue, CardResolution } from './approval-queue';
import { type GrantStore, grantSubject } from './grants';

export interface GateContext {
  mode: RunMode;
  /** Kinds pre-approved for this run (APPR-017 still wins for scheduled runs). */
  allow: ReadonlySet<ActionKind>;
  runId: string;
  callId: string;
  conversationId: string | null;
  taskId: string | null;
  /** Called when a card opens / closes (the loop pauses the run clock: BUD-10). */
  onWaitStart?: () => void;
  onWaitEnd?: () => void;
}

export type GateDecision =
  | { allowed: true; via: 'grant' | 'card' | 'preapproved' }
  | { allowed: false; reason: 'unattended' }
  | { allowed: false; reason: 'denied'; note?: string }
  | { allowed: false; reason: 'expired' }
  | { allowed: false; reason: 'cancelled' };

export class ApprovalGate {
  constructor(
    private readonly queue: ApprovalQueue,
    private readonly grants: GrantStore,
  ) {}

  async decide(need: ApprovalNeed, ctx: GateContext): Promise<GateDecision> {
    if (ctx.mode === 'scheduled') return { allowed: false, reason: 'unattended' };
    if (ctx.allow.has(need.kind)) return { allowed: true, via: 'preapproved' };
    if (ctx.mode === 'headless') return { allowed: false, reason: 'unattended' };
    const query = {
      kind: need.kind,
      subject: grantSubject(need),
      conversationId: ctx.conversationId,
      taskId: ctx.taskId,
    };
    if (this.grants.findGrant(query)) return { allowed: true, via: 'grant' };
    const { resolution } = this.queue.open({
      callId: ctx.callId,
      runId: ctx.runId,
      conversationId: ctx.conversationId,
      kind: need.kind,
      summary: need.summary,
      ...(need.taskScoped ? { taskScoped: true } : {}),
    });
    ctx.onWaitStart?.();
    let outcome: CardResolution;
    try {
      outcome = await resolution;
    } finally {
      ctx.onWaitEnd?.();
    }
    switch (outcome.status) {
      case 'approved':
        if (outcome.option !== 'once') this.grants.addGrant(outcome.option, query);
        return { allowed: true, via: 'card' };
      case 'denied':
        return {
          allowed: false,
          reason: 'denied',
          ...(outcome.note !== undefined ? { note: outcome.note } : {}),
        };
      case 'expired':
        return { allowed: false, reason: 'expired' };
      case 'cancelled':
        return { allowed: false, reason: 'cancelled' };
    }
  }
}
