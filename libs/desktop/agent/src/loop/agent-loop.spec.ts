import { ACTION_KINDS, type ActionKind, ProviderError, type Tool, type TrajectoryItem } from '../ports';
import type { RunEvent } from './run-events';
import { FakeProvider, calls, deferred, fakeTool, flush, makeService, reply } from './test-fakes';

const WS = '/tmp/ws';
const base = { workspace: WS, model: 'm1', attended: true } as const;

function toolItems(trajectory: readonly TrajectoryItem[]): Extract<TrajectoryItem, { role: 'tool' }>[] {
  return trajectory.filter((t): t is Extract<TrajectoryItem, { role: 'tool' }> => t.role === 'tool');
}

describe('agent loop', () => {
  it('LOOP-02/09/07: runs a tool, binds the result to its call id, narration is not the answer', async () => {
    const read = fakeTool('read_file');
    const provider = new FakeProvider([
      calls(['c1', 'read_file', { value: 'a.txt' }]),
      reply('The file says hi.'),
    ]);
    const { service } = makeService([read]);
    const started = service.startRun({ ...base, message: 'read a.txt', provider });
    const result = await started.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toBe('The file says hi.');
    expect(result.steps).toEqual([
      expect.objectContaining({ callId: 'c1', tool: 'read_file', args: { value: 'a.txt' }, outcome: 'ok' }),
    ]);
    const second = provider.requests[1]!;
    expect(toolItems(second.trajectory)).toEqual([
      {
        role: 'tool',
        callId: 'c1',
        name: 'read_file',
        content: '<ext c1>read_file:a.txt</ext>',
        isError: false,
      },
    ]);
    expect(service.runs.listMessages(started.conversationId).map((m) => m.text)).toEqual([
      'read a.txt',
      'The file says hi.',
    ]);
    expect(service.runs.getRun(started.runId)?.status).toBe('succeeded');
    expect(service.tasks.getTask(started.taskId).status).toBe('succeeded');
  });

  it('LOOP-04: bad JSON, schema failure and unknown tool give error results, never an execution', async () => {
    const t = fakeTool('list_dir');
    const provider = new FakeProvider([
      calls(['c1', 'list_dir', '{not json'], ['c2', 'list_dir', { extra: 1 }], ['c3', 'nope', {}]),
      reply('done'),
    ]);
    const { service } = makeService([t]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(t.executed).toEqual([]);
    expect(result.steps.map((s) => s.outcome)).toEqual([
      'invalid_arguments',
      'invalid_arguments',
      'unavailable',
    ]);
    expect(toolItems(provider.requests[1]!.trajectory).every((i) => i.isError)).toBe(true);
  });

  it('LOOP-06: a batch cut off by max_tokens never runs', async () => {
    const t = fakeTool('write_file', { readOnly: false });
    const provider = new FakeProvider([
      { ...calls(['c1', 'write_file', { value: 'x' }]), stopReason: 'max_tokens' },
      reply('ok, gave up'),
    ]);
    const { service } = makeService([t]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(t.executed).toEqual([]);
    expect(result.steps[0]).toMatchObject({ callId: 'c1', outcome: 'not_executed' });
    expect(result.answer).toBe('ok, gave up');
  });

  it('LOOP-16/17: up to 4 reads run concurrently, results keep call order, a write is a barrier', async () => {
    let active = 0;
    let peak = 0;
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    const order: string[] = [];
    const read = fakeTool('read_file', {
      execute: async (args, ctx) => {
        active += 1;
        peak = Math.max(peak, active);
        const d = deferred<void>();
        gates.set(ctx.callId, d);
        await d.promise;
        active -= 1;
        order.push(ctx.callId);
        return { content: `r${args.value}` };
      },
    });
    const write = fakeTool('write_file', {
      readOnly: false,
      execute: (_a, ctx) => {
        order.push(ctx.callId);
        expect(active).toBe(0);
        return { content: 'written' };
      },
    });
    const reads = ['1', '2', '3', '4', '5'].map(
      (v) => [`r${v}`, 'read_file', { value: v }] as [string, string, unknown],
    );
    const provider = new FakeProvider([
      calls(...reads, ['w1', 'write_file', {}], ['r6', 'read_file', { value: '6' }]),
      reply('ok'),
    ]);
    const { service } = makeService([read, write]);
    const done = service.startRun({ ...base, message: 'x', provider }).result;
    await flush();
    expect([...gates.keys()]).toEqual(['r1', 'r2', 'r3', 'r4']);
    // finish out of order: results must still be bound to their calls in reply order
    for (const id of ['r4', 'r2', 'r3', 'r1']) gates.get(id)!.resolve();
    await flush();
    expect([...gates.keys()]).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    gates.get('r5')!.resolve();
    await flush();
    gates.get('r6')!.resolve();
    const result = await done;
    expect(peak).toBe(4);
    expect(order.slice(4)).toEqual(['r5', 'w1', 'r6']);
    expect(toolItems(provider.requests[1]!.trajectory).map((t) => [t.callId, t.content])).toEqual([
      ['r1', '<ext r1>r1</ext>'],
      ['r2', '<ext r2>r2</ext>'],
      ['r3', '<ext r3>r3</ext>'],
      ['r4', '<ext r4>r4</ext>'],
      ['r5', '<ext r5>r5</ext>'],
      ['w1', '<out w1>written</out>'],
      ['r6', '<ext r6>r6</ext>'],
    ]);
    expect(result.status).toBe('succeeded');
  });

  it('LOOP-18/TURN-02: a message sent during a reply joins at the next step; calls not yet started are skipped', async () => {
    const hold = deferred<void>();
    const slow = fakeTool('write_file', {
      readOnly: false,
      execute: async () => (await hold.promise, { content: 'w' }),
    });
    const other = fakeTool('edit_file', { readOnly: false });
    const provider = new FakeProvider([
      calls(['c1', 'write_file', {}], ['c2', 'edit_file', {}]),
      reply('switched'),
    ]);
    const { service } = makeService([slow, other]);
    const started = service.startRun({ ...base, message: 'first', provider });
    await flush();
    expect(service.sendMessage(started.conversationId, 'actually do B')).toEqual({
      delivered: 'steered',
      runId: started.runId,
    });
    hold.resolve();
    const result = await started.result;
    expect(other.executed).toEqual([]);
    expect(result.steps.map((s) => [s.callId, s.outcome])).toEqual([
      ['c1', 'ok'],
      ['c2', 'skipped'],
    ]);
    const last = provider.requests[1]!.trajectory.at(-1);
    expect(last).toEqual({ role: 'user', text: 'actually do B' });
  });

  it('TURN-03/APPR-008: a message sent while a card waits answers it No with the message as note', async () => {
    const cmd = fakeTool('terminal', {
      readOnly: false,
      approval: () => ({ kind: 'command', summary: 'ls' }),
    });
    const provider = new FakeProvider([calls(['c1', 'terminal', {}]), reply('fine')]);
    const { service } = makeService([cmd]);
    const started = service.startRun({ ...base, message: 'run ls', provider });
    await flush();
    expect(service.listCards().map((c) => c.callId)).toEqual(['c1']);
    expect(service.sendMessage(started.conversationId, 'no, use find')).toMatchObject({
      delivered: 'answered_card',
      callId: 'c1',
    });
    const result = await started.result;
    expect(cmd.executed).toEqual([]);
    expect(result.steps[0]).toMatchObject({ outcome: 'denied' });
    expect(result.steps[0]!.detail).toContain('no, use find');
    expect(provider.requests[1]!.trajectory.at(-1)).toEqual({ role: 'user', text: 'no, use find' });
  });

  it('APPR-016/TURN-05/BUD-10: an expired card is told as "nobody answered — not a refusal" and the wait is not run time', async () => {
    const cmd = fakeTool('terminal', {
      readOnly: false,
      approval: () => ({ kind: 'command', summary: 'make' }),
    });
    const provider = new FakeProvider([calls(['c1', 'terminal', {}]), reply('skipped it')]);
    const { service, timers } = makeService([cmd], { workingIntervalMs: 15_000 });
    const started = service.startRun({ ...base, message: 'build', provider });
    await flush();
    timers.advance(30 * 60_000);
    const result = await started.result;
    expect(result.steps[0]!.outcome).toBe('expired');
    expect(result.steps[0]!.detail).toContain('not a refusal');
    expect(service.approvals.cardStatus('c1')).toBe('expired');
    expect(result.usage.timeMs).toBe(0);
  });

  it('APPR-005: a conversation grant is remembered and consulted before asking; once is not', async () => {
    const cmd = fakeTool('terminal', {
      readOnly: false,
      approval: () => ({ kind: 'command', summary: 'ls' }),
    });
    const provider = new FakeProvider([
      calls(['c1', 'terminal', {}]),
      reply('one'),
      calls(['c2', 'terminal', {}]),
      reply('two'),
    ]);
    const { service } = makeService([cmd]);
    const first = service.startRun({ ...base, message: 'a', provider });
    await flush();
    expect(
      service.answerCard({ callId: 'c1', kind: 'command', option: 'conversation', surface: 'window' }),
    ).toMatchObject({ ok: true });
    await first.result;
    const second = service.startRun({
      ...base,
      conversationId: first.conversationId,
      message: 'b',
      provider,
    });
    await flush();
    expect(service.listCards()).toEqual([]);
    const result = await second.result;
    expect(result.steps[0]!.outcome).toBe('ok');
    expect(cmd.executed).toEqual(['c1', 'c2']);
  });

  describe('APPR-017 fail-closed matrix: context × every action kind', () => {
    const contexts = [
      { name: 'interactive', attended: true, scheduled: false },
      { name: 'headless', attended: false, scheduled: false },
      { name: 'scheduled', attended: false, scheduled: true },
    ] as const;
    for (const ctx of contexts) {
      it.each(ACTION_KINDS.map((k) => [k]))(`${ctx.name} × %s`, async (kind: ActionKind) => {
        const t = fakeTool('act', { readOnly: false, approval: () => ({ kind, summary: `do ${kind}` }) });
        const provider = new FakeProvider([calls(['c1', 'act', {}]), reply('end')]);
        const { service } = makeService([t]);
        // an earlier Always grant must never be applied to unattended runs
        if (ctx.name !== 'interactive')
          service.approvals.addGrant('always', {
            kind,
            subject: `do ${kind}`,
            conversationId: null,
            taskId: null,
          });
        const started = service.startRun({
          ...base,
          attended: ctx.attended,
          scheduled: ctx.scheduled,
          message: 'go',
          provider,
        });
        await flush();
        if (ctx.name === 'interactive') {
          expect(service.listCards()).toEqual([expect.objectContaining({ callId: 'c1', kind })]);
          service.answerCard({ callId: 'c1', kind, option: 'no', surface: 'window' });
          const result = await started.result;
          expect(result.steps[0]!.outcome).toBe('denied');
        } else {
          expect(service.listCards()).toEqual([]);
          const result = await started.result;
          expect(result.steps[0]!.outcome).toBe('refused_unattended');
          expect(result.refused).toEqual([{ callId: 'c1', tool: 'act', kind, summary: `do ${kind}` }]);
          expect(service.listInbox()).toHaveLength(1);
        }
        expect(t.executed).toEqual([]);
      });
    }

    it('APPR-017: unattended runs never apply an earlier Always grant; headless --allow pre-approves; scheduled ignores it', async () => {
      const mk = () =>
        fakeTool('terminal', { readOnly: false, approval: () => ({ kind: 'command', summary: 'ls' }) });
      const t1 = mk();
      const s1 = makeService([t1]);
      s1.service.approvals.addGrant('always', {
        kind: 'command',
        subject: 'ls',
        conversationId: null,
        taskId: null,
      });
      const r1 = await s1.service.startRun({
        ...base,
        attended: false,
        message: 'x',
        provider: new FakeProvider([calls(['c1', 'terminal', {}]), reply('e')]),
      }).result;
      expect(r1.steps[0]!.outcome).toBe('refused_unattended');
      const t2 = mk();
      const s2 = makeService([t2]);
      const r2 = await s2.service.startRun({
        ...base,
        attended: false,
        allow: ['command'],
        message: 'x',
        provider: new FakeProvider([calls(['c1', 'terminal', {}]), reply('e')]),
      }).result;
      expect(r2.steps[0]!.outcome).toBe('ok');
      const t3 = mk();
      const s3 = makeService([t3]);
      const r3 = await s3.service.startRun({
        ...base,
        attended: false,
        scheduled: true,
        allow: ['command'],
        message: 'x',
        provider: new FakeProvider([calls(['c1', 'terminal', {}]), reply('e')]),
      }).result;
      expect(r3.steps[0]!.outcome).toBe('refused_unattended');
      expect(t3.executed).toEqual([]);
    });
  });

  it('CKPT-08/SIDE-005: stop cancels in-flight work, the late result is discarded, the action is unknown', async () => {
    const hold = deferred<void>();
    let signal: AbortSignal | undefined;
    const write = fakeTool('write_file', {
      readOnly: false,
      execute: async (_a, ctx) => {
        signal = ctx.signal;
        await hold.promise;
        return { content: 'late' };
      },
    });
    const provider = new FakeProvider([calls(['c1', 'write_file', {}]), reply('never')]);
    const { service } = makeService([write]);
    const started = service.startRun({ ...base, message: 'x', provider });
    await flush();
    expect(service.stop(started.runId)).toBe(true);
    const result = await started.result;
    expect(signal?.aborted).toBe(true);
    expect(result.status).toBe('stopped');
    hold.resolve();
    await flush();
    expect(provider.requests).toHaveLength(1);
    expect(service.runs.listActions({ runId: started.runId }).map((a) => a.state)).toEqual(['unknown']);
    expect(service.runs.listToolCalls(started.runId)).toEqual([]);
    expect(service.runs.getRun(started.runId)?.status).toBe('stopped');
    expect(service.tasks.getTask(started.taskId).status).toBe('stopped');
  });

  it('CKPT-08: stop aborts the provider request', async () => {
    let seen: AbortSignal | undefined;
    const provider = new FakeProvider([(_r, signal) => ((seen = signal), new Promise(() => undefined))]);
    const { service } = makeService([]);
    const started = service.startRun({ ...base, message: 'x', provider });
    await flush();
    service.stop(started.runId);
    expect((await started.result).status).toBe('stopped');
    expect(seen?.aborted).toBe(true);
  });

  it('TASK-07: a run that left an action of unknown effect is not marked succeeded', async () => {
    const bad = fakeTool('send', {
      readOnly: false,
      execute: () => Promise.reject(new Error('socket closed')),
    });
    const provider = new FakeProvider([calls(['c1', 'send', {}]), reply('I tried')]);
    const { service } = makeService([bad]);
    const started = service.startRun({ ...base, message: 'x', provider });
    const result = await started.result;
    expect(result.status).toBe('succeeded');
    expect(service.runs.listActions({ runId: started.runId })[0]!.state).toBe('unknown');
    expect(service.tasks.getTask(started.taskId).status).toBe('unverified');
  });

  it('BUD-04: at a soft limit the loop wraps up: no tools offered, delivers what exists', async () => {
    const t = fakeTool('read_file');
    const provider = new FakeProvider([
      calls(['c1', 'read_file', {}]),
      calls(['c2', 'read_file', {}]),
      reply('summary so far'),
    ]);
    const { service } = makeService([t], { softLimits: { requests: 2 } });
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(provider.requests[0]!.tools).toHaveLength(1);
    expect(provider.requests[2]!.tools).toEqual([]);
    expect(provider.requests[2]!.system).toContain('Budget limit reached');
    expect(result.status).toBe('wrapped_up');
    expect(result.answer).toBe('summary so far');
  });

  it('BUD-05/BUD-09: at a hard limit the run stops before the next request', async () => {
    const provider = new FakeProvider([
      { ...calls(['c1', 'read_file', {}]), usage: { inputTokens: 100, outputTokens: 60 } },
      reply('never'),
    ]);
    const { service } = makeService([fakeTool('read_file')], { softLimits: { tokens: 100 } });
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(provider.requests).toHaveLength(1);
    expect(result.status).toBe('budget_exceeded');
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(160);
  });

  it('BUD-11/12: the dollar cap stops priced runs; cost is reported', async () => {
    const usage = { inputTokens: 600_000, outputTokens: 0 };
    const provider = new FakeProvider([
      { ...calls(['c1', 'read_file', {}]), usage },
      calls(['c2', 'read_file', {}]),
      reply('x'),
    ]);
    const { service } = makeService([fakeTool('read_file')], {
      softLimits: { tokens: 1e12 },
      prices: { m1: { inputPerMTok: 2.5, outputPerMTok: 10 } },
    });
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    // $1.50 ≥ 2/3 of $2 → wrap-up: no tools offered, the call it still makes is refused, it then delivers
    expect(provider.requests[1]!.tools).toEqual([]);
    expect(result.costUsd).toBeCloseTo(1.5 + (2 * 10 * 5) / 1e6 + (2.5 * 20) / 1e6);
    expect(result.status).toBe('wrapped_up');
    const over = new FakeProvider([
      { ...calls(['c1', 'read_file', {}]), usage: { inputTokens: 900_000, outputTokens: 0 } },
      reply('never'),
    ]);
    const capped = await makeService([fakeTool('read_file')], {
      softLimits: { tokens: 1e12 },
      prices: { m1: { inputPerMTok: 2.5, outputPerMTok: 10 } },
    }).service.startRun({ ...base, message: 'x', provider: over }).result;
    expect(capped.costUsd).toBeCloseTo(2.25);
    expect(capped.status).toBe('budget_exceeded');
    expect(over.requests).toHaveLength(1);
  });

  it('BUD-07: the same failing call repeated is not retried again', async () => {
    const t = fakeTool('web_extract', { execute: () => ({ content: 'HTTP 500', isError: true }) });
    const same = ['x', 'web_extract', { value: 'u' }] as [string, string, unknown];
    const provider = new FakeProvider([
      calls(['a', 'web_extract', { value: 'u' }]),
      calls(['b', 'web_extract', { value: 'u' }]),
      calls(['c', same[1], same[2]]),
      reply('could not fetch'),
    ]);
    const { service } = makeService([t]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(t.executed).toEqual(['a', 'b']);
    expect(result.steps.map((s) => s.outcome)).toEqual(['error', 'error', 'no_progress']);
  });

  it('LOOP-21: transient provider errors are retried within the budget', async () => {
    const provider = new FakeProvider([
      () => Promise.reject(new ProviderError('transient', '429')),
      () => Promise.reject(new ProviderError('timeout', 'slow')),
      reply('finally'),
    ]);
    const { service } = makeService([]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(result.answer).toBe('finally');
    expect(result.usage.requests).toBe(3);
    const auth = new FakeProvider([() => Promise.reject(new ProviderError('auth', 'bad key'))]);
    const failed = await makeService([]).service.startRun({ ...base, message: 'x', provider: auth }).result;
    expect(failed.status).toBe('failed');
    expect(auth.requests).toHaveLength(1);
  });

  it('LOOP-15: a broken stream keeps the shown text and says the reply was interrupted', async () => {
    const shown = {
      kind: 'fake',
      stream: async (_req: unknown, onEvent: (e: { type: 'text'; delta: string }) => void) => {
        onEvent({ type: 'text', delta: 'Half an ans' });
        throw new ProviderError('stream_broken', 'reset');
      },
    };
    const { service } = makeService([]);
    const result = await service.startRun({ ...base, message: 'x', provider: shown as never }).result;
    expect(result.status).toBe('interrupted');
    expect(result.answer).toBe('Half an ans');
    expect(result.notices.join(' ')).toContain('interrupted');
  });

  it('PROV-11: a rejected MCP tool is excluded for the rest of the reply; a second rejection excludes all MCP tools', async () => {
    const a = fakeTool('mcp_a_x');
    const b = fakeTool('mcp_b_y');
    const r = fakeTool('read_file');
    const provider = new FakeProvider([
      () => Promise.reject(new ProviderError('rejected_tool', 'bad schema', { tool: 'mcp_a_x' })),
      () => Promise.reject(new ProviderError('rejected_tool', 'bad schema')),
      reply('ok'),
    ]);
    const { service } = makeService([a, b, r]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(provider.requests.map((q) => q.tools.map((t) => t.name))).toEqual([
      ['mcp_a_x', 'mcp_b_y', 'read_file'],
      ['mcp_b_y', 'read_file'],
      ['read_file'],
    ]);
    expect(result.answer).toBe('ok');
  });

  it('SEC-005/002/003: external content sets the turn flag before the result reaches the model and is wrapped as external data', async () => {
    const flags: boolean[] = [];
    const web = fakeTool('web_extract', {
      execute: (_a, ctx) => (flags.push(ctx.turn.externalContentRead), { content: 'page' }),
    });
    const local = fakeTool('plan', {
      execute: (_a, ctx) => (flags.push(ctx.turn.externalContentRead), { content: 'p' }),
    });
    const mcp = fakeTool('custom', { execute: () => ({ content: 'm', external: true }) });
    const provider = new FakeProvider([
      calls(['c0', 'plan', {}]),
      calls(['c1', 'web_extract', {}]),
      calls(['c2', 'plan', {}], ['c3', 'custom', {}]),
      reply('x'),
    ]);
    const { service } = makeService([web, local, mcp]);
    await service.startRun({ ...base, message: 'x', provider }).result;
    expect(flags).toEqual([false, false, true]);
    const items = toolItems(provider.requests[3]!.trajectory);
    expect(items.map((i) => i.content)).toEqual([
      '<out c0>p</out>',
      '<ext c1>page</ext>',
      '<out c2>p</out>',
      '<ext c3>m</ext>',
    ]);
  });

  it('TURN-01: a working event at least every interval while the run is live', async () => {
    const hold = deferred<void>();
    const provider = new FakeProvider([
      async () => (
        await hold.promise,
        {
          text: 'done',
          toolCalls: [],
          stopReason: 'end' as const,
          usage: { inputTokens: 1, outputTokens: 1 },
        }
      ),
    ]);
    const { service, timers } = makeService([], { workingIntervalMs: 15_000 });
    const started = service.startRun({ ...base, message: 'x', provider });
    const events: RunEvent[] = [];
    service.snapshotAndSubscribe({ runId: started.runId }, (e) => events.push(e));
    timers.advance(45_000);
    hold.resolve();
    await started.result;
    expect(
      events.filter((e) => e.type === 'working').map((e) => (e.type === 'working' ? e.elapsedMs : 0)),
    ).toEqual([15_000, 30_000, 45_000]);
  });

  it('CKPT-03/04: snapshot + subscribe is atomic — a reconnecting client sees every event exactly once', async () => {
    const hold = deferred<void>();
    const t = fakeTool('read_file', { execute: async () => (await hold.promise, { content: 'r' }) });
    const provider = new FakeProvider([calls(['c1', 'read_file', {}]), reply('answer')]);
    const { service } = makeService([t]);
    const started = service.startRun({ ...base, message: 'x', provider });
    await flush();
    const live: RunEvent[] = [];
    const got = service.snapshotAndSubscribe({ conversationId: started.conversationId }, (e) =>
      live.push(e),
    )!;
    expect(got.snapshot.events.length).toBeGreaterThan(0);
    hold.resolve();
    await started.result;
    const seqs = [...got.snapshot.events, ...live].map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(live[0]!.seq).toBe(got.snapshot.lastSeq + 1);
    expect(live.at(-1)).toMatchObject({ type: 'run_finished', status: 'succeeded', answer: 'answer' });
    // CKPT-02: replay from the store after the run left memory gives the same ordered events (minus heartbeats)
    const persisted = service.runs.loadEvents(started.runId).map((e) => e.seq);
    expect(persisted).toEqual(seqs);
  });

  it('LOOP-19: a message sent while the final answer is written runs as the next turn', async () => {
    const hold = deferred<void>();
    const provider = new FakeProvider([
      async () => (
        await hold.promise,
        {
          text: 'answer one',
          toolCalls: [],
          stopReason: 'end' as const,
          usage: { inputTokens: 1, outputTokens: 1 },
        }
      ),
      reply('answer two'),
    ]);
    const { service } = makeService([]);
    const started = service.startRun({ ...base, message: 'one', provider });
    await flush();
    expect(service.sendMessage(started.conversationId, 'two')).toMatchObject({ delivered: 'steered' });
    hold.resolve();
    const first = await started.result;
    expect(first.followUps).toEqual(['two']);
    await flush();
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.trajectory.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
  });
});

describe('restart', () => {
  it('CKPT-05/06: a new service on the same database marks the unfinished run interrupted and its started action unknown', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { openAgentDb } = await import('../store/agent-db');
    const { RunService } = await import('./run-service');
    const { StaticToolCatalog } = await import('./tool-catalog');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-loop-')), 'agent.db');
    const write = fakeTool('write_file', { readOnly: false, execute: () => new Promise(() => undefined) });
    const deps = {
      tools: () => new StaticToolCatalog([write]),
      wrapExternal: (c: string) => c,
      wrapToolOutput: (c: string) => c,
      dataDir: '/tmp',
    };
    const first = new RunService({ ...deps, db: openAgentDb(file).db });
    const started = first.startRun({
      ...base,
      message: 'x',
      provider: new FakeProvider([calls(['c1', 'write_file', {}])]),
    });
    await flush();
    const second = new RunService({ ...deps, db: openAgentDb(file).db });
    expect(second.recovered).toEqual({ interruptedRuns: [started.runId], unknownActions: 1 });
    expect(second.runs.getRun(started.runId)?.status).toBe('interrupted');
    expect(second.tasks.getTask(started.taskId).status).toBe('interrupted');
    const replay = second.snapshotAndSubscribe({ runId: started.runId }, () => undefined)!;
    expect(replay.snapshot.status).toBe('interrupted');
    expect(replay.snapshot.events.map((e) => e.type).slice(0, 3)).toEqual([
      'run_started',
      'task_progress',
      'user_message',
    ]);
    first.stop(started.runId);
  });
});

describe('TOOL-05: use_tool is handled as a call of the inner tool', () => {
  // A real registry catalog: on-demand (non-resident) tools are only reachable through use_tool.
  async function setup(tools: Tool[]) {
    const { ToolRegistry } = await import('../tools/registry');
    const { registryCatalog } = await import('../runtime/agent-runtime');
    const registry = new ToolRegistry();
    for (const t of tools) registry.register({ ...t, resident: false });
    return makeService([], {
      tools: ({ conversationId, mode }) => registryCatalog(registry, conversationId, mode),
    });
  }
  const use = (id: string, name: string, args: unknown): [string, string, unknown] => [
    id,
    'use_tool',
    { name, arguments: args },
  ];

  it('steps, traces and events record the inner tool; the result keeps the use_tool call id and name', async () => {
    const lookup = fakeTool('lookup');
    const provider = new FakeProvider([calls(use('c1', 'lookup', { value: 'k' })), reply('done')]);
    const { service } = await setup([lookup]);
    const started = service.startRun({ ...base, message: 'x', provider });
    const result = await started.result;
    expect(lookup.executed).toEqual(['c1']);
    expect(result.steps).toEqual([
      expect.objectContaining({ callId: 'c1', tool: 'lookup', args: { value: 'k' }, outcome: 'ok' }),
    ]);
    const states = service.runs
      .loadEvents(started.runId)
      .filter((e) => e.type === 'tool_state')
      .map((e) => (e.payload as { tool: string }).tool);
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['lookup']));
    expect(toolItems(provider.requests[1]!.trajectory)).toEqual([
      { role: 'tool', callId: 'c1', name: 'use_tool', content: '<out c1>lookup:k</out>', isError: false },
    ]);
  });

  it('an unresolvable use_tool call keeps today’s behaviour: an error result, nothing runs', async () => {
    const lookup = fakeTool('lookup');
    const provider = new FakeProvider([calls(use('c1', 'nope', {})), reply('done')]);
    const { service } = await setup([lookup]);
    const result = await service.startRun({ ...base, message: 'x', provider }).result;
    expect(lookup.executed).toEqual([]);
    expect(result.steps[0]).toMatchObject({ callId: 'c1', tool: 'use_tool' });
    expect(toolItems(provider.requests[1]!.trajectory)[0]).toMatchObject({
      callId: 'c1',
      name: 'use_tool',
      isError: true,
    });
  });

  it('LOOP-16: on-demand reads called through use_tool join one concurrent read group', async () => {
    let active = 0;
    let peak = 0;
    const hold = deferred<void>();
    const mk = (name: string) =>
      fakeTool(name, {
        execute: async () => {
          active += 1;
          peak = Math.max(peak, active);
          await hold.promise;
          active -= 1;
          return { content: name };
        },
      });
    const provider = new FakeProvider([
      calls(use('c1', 'lookup_a', {}), use('c2', 'lookup_b', {})),
      reply('done'),
    ]);
    const { service } = await setup([mk('lookup_a'), mk('lookup_b')]);
    const done = service.startRun({ ...base, message: 'x', provider }).result;
    await flush();
    expect(active).toBe(2);
    hold.resolve();
    const result = await done;
    expect(peak).toBe(2);
    expect(result.steps.map((s) => [s.callId, s.tool, s.outcome])).toEqual([
      ['c1', 'lookup_a', 'ok'],
      ['c2', 'lookup_b', 'ok'],
    ]);
  });

  const sender = () =>
    fakeTool('send_email', {
      readOnly: false,
      approval: (a) => ({ kind: 'send', summary: `send to ${a.value ?? ''}` }),
    });

  it('APPR: an approval-needing inner tool opens a card of its own kind', async () => {
    const send = sender();
    const provider = new FakeProvider([calls(use('c1', 'send_email', { value: 'bob' })), reply('ok')]);
    const { service } = await setup([send]);
    const started = service.startRun({ ...base, message: 'x', provider });
    await flush();
    expect(service.listCards()).toEqual([
      expect.objectContaining({ callId: 'c1', kind: 'send', summary: 'send to bob' }),
    ]);
    service.answerCard({ callId: 'c1', kind: 'send', option: 'once', surface: 'window' });
    const result = await started.result;
    expect(send.executed).toEqual(['c1']);
    expect(result.steps[0]).toMatchObject({ callId: 'c1', tool: 'send_email', outcome: 'ok' });
    expect(service.runs.listActions({ runId: started.runId })).toEqual([
      expect.objectContaining({ callId: 'c1', tool: 'send_email', kind: 'send', state: 'confirmed' }),
    ]);
  });

  it('APPR-017: headless refuses the inner tool through use_tool, recorded under its real name', async () => {
    const send = sender();
    const provider = new FakeProvider([calls(use('c1', 'send_email', { value: 'bob' })), reply('ok')]);
    const { service } = await setup([send]);
    const result = await service.startRun({ ...base, attended: false, message: 'x', provider }).result;
    expect(service.listCards()).toEqual([]);
    expect(send.executed).toEqual([]);
    expect(result.steps[0]).toMatchObject({
      callId: 'c1',
      tool: 'send_email',
      outcome: 'refused_unattended',
    });
    expect(result.refused).toEqual([
      { callId: 'c1', tool: 'send_email', kind: 'send', summary: 'send to bob' },
    ]);
  });
});
