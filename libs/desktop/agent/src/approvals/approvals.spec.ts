import { ACTION_KINDS, type ActionKind } from '../ports';
import { openAgentDb } from '../store/agent-db';
import { ApprovalGate, type GateContext } from './approval-gate';
import { ApprovalQueue, CARD_EXPIRY_MS, type QueueEvent } from './approval-queue';
import { ApprovalRepository } from './approval.repository';
import { cardOptions } from './card-options';
import { MemoryGrantStore } from './grants';
import { ManualTimers } from '../loop/test-fakes';

function setup() {
  const timers = new ManualTimers();
  const repo = new ApprovalRepository(openAgentDb(':memory:').db, timers.now);
  const queue = new ApprovalQueue({ repository: repo, now: timers.now, timers });
  const events: QueueEvent[] = [];
  queue.subscribe((e) => events.push(e));
  return { timers, repo, queue, events };
}

const open = (queue: ApprovalQueue, kind: ActionKind = 'command', callId = 'c1') =>
  queue.open({ callId, runId: 'r1', conversationId: 'conv', kind, summary: 'ls -la' });

describe('approvals', () => {
  it('APPR-005/006/007: options per kind, in order', () => {
    expect(cardOptions('command')).toEqual(['once', 'conversation', 'always', 'no']);
    expect(cardOptions('workspace_write', true)).toEqual(['task', 'conversation', 'always', 'no']);
    expect(cardOptions('money')).toEqual(['once', 'no']);
    expect(cardOptions('remote_host')).toEqual(['once', 'no']);
    for (const kind of ['sandbox_exit', 'mcp_tool', 'network_command'] as const)
      expect(cardOptions(kind)).toEqual(['once', 'conversation', 'no']);
    expect(cardOptions('site')).toEqual(['task', 'conversation', 'no']);
    for (const kind of ACTION_KINDS) {
      const options = cardOptions(kind);
      expect(options.at(-1)).toBe('no');
      expect(['once', 'task']).toContain(options[0]);
    }
  });

  it('APPR-001: an answer of a different kind is rejected and resolves nothing', async () => {
    const { queue } = setup();
    const { resolution } = open(queue, 'command');
    expect(queue.answer({ callId: 'c1', kind: 'delete', option: 'once', surface: 'window' })).toEqual({
      ok: false,
      reason: 'kind_mismatch',
    });
    expect(
      queue.answer({ callId: 'c1', kind: 'nonsense' as ActionKind, option: 'once', surface: 'window' }),
    ).toEqual({ ok: false, reason: 'kind_mismatch' });
    expect(queue.list()).toHaveLength(1);
    expect(queue.answer({ callId: 'c1', kind: 'command', option: 'once', surface: 'window' })).toMatchObject({
      ok: true,
    });
    await expect(resolution).resolves.toEqual({ status: 'approved', option: 'once' });
  });

  it('APPR-002/003: first valid answer wins, later ones are already answered, subscribers are told it closed', async () => {
    const { queue, events, repo } = setup();
    const { resolution } = open(queue);
    expect(
      queue.answer({ callId: 'c1', kind: 'command', option: 'no', note: 'not now', surface: 'phone' }),
    ).toMatchObject({ ok: true });
    expect(queue.answer({ callId: 'c1', kind: 'command', option: 'once', surface: 'window' })).toEqual({
      ok: false,
      reason: 'already_answered',
    });
    expect(queue.answer({ callId: 'zz', kind: 'command', option: 'once', surface: 'window' })).toEqual({
      ok: false,
      reason: 'unknown_card',
    });
    await expect(resolution).resolves.toEqual({ status: 'denied', note: 'not now' });
    expect(events.map((e) => e.type)).toEqual(['card_opened', 'card_closed']);
    expect(events[1]).toMatchObject({ callId: 'c1', surface: 'phone', resolution: { status: 'denied' } });
    expect(repo.cardStatus('c1')).toBe('denied');
  });

  it('APPR-010/011/012/013: options not offered and surface restrictions are enforced by the server', () => {
    const { queue } = setup();
    open(queue, 'money', 'm');
    expect(queue.answer({ callId: 'm', kind: 'money', option: 'always', surface: 'window' })).toEqual({
      ok: false,
      reason: 'option_not_offered',
    });
    expect(queue.answer({ callId: 'm', kind: 'money', option: 'once', surface: 'island' })).toEqual({
      ok: false,
      reason: 'surface_not_allowed',
    });
    open(queue, 'command', 'c');
    expect(queue.answer({ callId: 'c', kind: 'command', option: 'conversation', surface: 'phone' })).toEqual({
      ok: false,
      reason: 'option_not_allowed_on_surface',
    });
    expect(queue.answer({ callId: 'c', kind: 'command', option: 'once', surface: 'chat' })).toEqual({
      ok: false,
      reason: 'option_not_allowed_on_surface',
    });
    open(queue, 'capability_install', 'i');
    expect(
      queue.answer({ callId: 'i', kind: 'capability_install', option: 'once', surface: 'phone' }),
    ).toEqual({ ok: false, reason: 'surface_not_allowed' });
    expect(
      queue.answer({ callId: 'i', kind: 'capability_install', option: 'once', surface: 'inbox' }),
    ).toEqual({ ok: false, reason: 'surface_not_allowed' });
    expect(
      queue.answer({ callId: 'i', kind: 'capability_install', option: 'once', surface: 'window' }),
    ).toMatchObject({ ok: true });
    expect(queue.list().map((c) => c.callId)).toEqual(['m', 'c']);
  });

  it('APPR-016: after 30 minutes the card closes as expired (not a denial)', async () => {
    const { queue, timers, repo } = setup();
    const { card, resolution } = open(queue);
    expect(card.expiresAt - card.createdAt).toBe(CARD_EXPIRY_MS);
    timers.advance(CARD_EXPIRY_MS - 1);
    expect(queue.list()).toHaveLength(1);
    timers.advance(1);
    await expect(resolution).resolves.toEqual({ status: 'expired' });
    expect(repo.cardStatus('c1')).toBe('expired');
    expect(queue.answer({ callId: 'c1', kind: 'command', option: 'once', surface: 'window' })).toEqual({
      ok: false,
      reason: 'already_answered',
    });
  });

  describe('gate', () => {
    const ctx = (over: Partial<GateContext> = {}): GateContext => ({
      mode: 'interactive',
      allow: new Set(),
      runId: 'r1',
      callId: 'c1',
      conversationId: 'conv',
      taskId: 't1',
      ...over,
    });

    it('APPR-005/018: grants per scope are consulted before asking; once is never remembered', async () => {
      const { queue } = setup();
      const grants = new MemoryGrantStore();
      const gate = new ApprovalGate(queue, grants);
      const need = { kind: 'command' as const, summary: 'make test' };
      const p1 = gate.decide(need, ctx());
      queue.answer({ callId: 'c1', kind: 'command', option: 'once', surface: 'window' });
      await expect(p1).resolves.toEqual({ allowed: true, via: 'card' });
      const p2 = gate.decide(need, ctx({ callId: 'c2' }));
      expect(queue.list()).toHaveLength(1);
      queue.answer({ callId: 'c2', kind: 'command', option: 'conversation', surface: 'window' });
      await p2;
      await expect(gate.decide(need, ctx({ callId: 'c3' }))).resolves.toEqual({
        allowed: true,
        via: 'grant',
      });
      // another conversation still asks; another command still asks
      void gate.decide(need, ctx({ callId: 'c4', conversationId: 'other' }));
      void gate.decide({ kind: 'command', summary: 'rm -rf x' }, ctx({ callId: 'c5' }));
      expect(queue.list().map((c) => c.callId)).toEqual(['c4', 'c5']);
    });

    it('APPR-017: unattended runs never ask and never apply grants', async () => {
      const { queue } = setup();
      const grants = new MemoryGrantStore();
      grants.addGrant('always', { kind: 'delete', subject: 'x', conversationId: null, taskId: null });
      const gate = new ApprovalGate(queue, grants);
      const need = { kind: 'delete' as const, summary: 'x' };
      await expect(gate.decide(need, ctx({ mode: 'headless' }))).resolves.toEqual({
        allowed: false,
        reason: 'unattended',
      });
      await expect(
        gate.decide(need, ctx({ mode: 'scheduled', allow: new Set(['delete']) })),
      ).resolves.toEqual({ allowed: false, reason: 'unattended' });
      await expect(gate.decide(need, ctx({ mode: 'headless', allow: new Set(['delete']) }))).resolves.toEqual(
        { allowed: true, via: 'preapproved' },
      );
      await expect(gate.decide(need, ctx())).resolves.toEqual({ allowed: true, via: 'grant' });
      expect(queue.list()).toEqual([]);
    });

    it('BUD-10: the gate reports card waits so the run clock can pause', async () => {
      const { queue } = setup();
      const calls: string[] = [];
      const gate = new ApprovalGate(queue, new MemoryGrantStore());
      const p = gate.decide(
        { kind: 'send', summary: 'mail' },
        ctx({ onWaitStart: () => calls.push('start'), onWaitEnd: () => calls.push('end') }),
      );
      expect(calls).toEqual(['start']);
      queue.cancel('c1');
      await expect(p).resolves.toEqual({ allowed: false, reason: 'cancelled' });
      expect(calls).toEqual(['start', 'end']);
    });
  });
});
