// APPR-017 fail-closed matrix over the REAL path: context (interactive / headless / scheduled) ×
// every ActionKind. One fake tool per kind is registered through `extraTools`; the model asks for
// it over HTTP in the wire format of a rotating provider. Headless and scheduled runs never
// execute and never create a card (not even with an earlier "Always" grant, nor — scheduled —
// with `allow`); interactive runs open a card of that kind bound to the call id.
import { z } from 'zod';
import { ACTION_KINDS, type ActionKind, type Tool } from '../ports';
import {
  KINDS,
  contractSuite,
  openHarness,
  text,
  toolCalls,
  toolResultsOf,
  waitFor,
} from './contract-harness';

const suite = contractSuite();

const executed: string[] = [];

function kindTool(kind: ActionKind): Tool<{ target: string }> {
  return {
    name: `act_${kind}`,
    description: `Performs a ${kind} action (contract fake).`,
    schema: z.strictObject({ target: z.string() }),
    readOnly: false,
    resident: true,
    approval: (args) => ({ kind, summary: `${kind} ${args.target}` }),
    async execute(args) {
      executed.push(`${kind}:${args.target}`);
      return { content: `did ${kind} on ${args.target}` };
    },
  };
}

const CONTEXTS = [
  { name: 'interactive', attended: true, scheduled: false },
  { name: 'headless', attended: false, scheduled: false },
  { name: 'scheduled', attended: false, scheduled: true },
] as const;

beforeEach(() => {
  executed.length = 0;
});

describe.each(CONTEXTS)('APPR-017 fail-closed matrix (real path): $name', (ctx) => {
  it.each(ACTION_KINDS.map((kind, i) => [kind, KINDS[i % KINDS.length]!] as const))(
    '%s over %s',
    async (kind, providerKind) => {
      suite.h = openHarness(suite.server, providerKind, { extraTools: ACTION_KINDS.map(kindTool) });
      const callId = `call_${kind}`;
      suite.server.enqueue(
        toolCalls([{ name: `act_${kind}`, args: { target: 'x' }, id: callId }]),
        text('Reported what happened.'),
      );
      if (ctx.name !== 'interactive') {
        // An earlier "Always" grant must never be applied to a run nobody can answer for.
        suite.h.runtime.service.approvals.addGrant('always', {
          kind,
          subject: `${kind} x`,
          conversationId: null,
          taskId: null,
        });
      }
      const run = suite.h.start({
        message: `do the ${kind} thing`,
        attended: ctx.attended,
        scheduled: ctx.scheduled,
        // Scheduled runs ignore --allow: nobody could have given it.
        ...(ctx.name === 'scheduled' ? { allow: [kind] } : {}),
      });
      if (ctx.name === 'interactive') {
        await waitFor(() => suite.h!.runtime.service.listCards().length === 1, 'the card');
        expect(suite.h.runtime.service.listCards()).toEqual([
          expect.objectContaining({ callId, kind, runId: run.runId, summary: `${kind} x` }),
        ]);
        expect(executed).toEqual([]); // nothing runs while the card waits
        suite.h.runtime.service.answerCard({ callId, kind, option: 'no', surface: 'window' });
        const result = await run.result;
        expect(result.steps).toEqual([expect.objectContaining({ callId, outcome: 'denied' })]);
        expect(run.events).toContainEqual(
          expect.objectContaining({ type: 'card_opened', card: expect.objectContaining({ callId, kind }) }),
        );
      } else {
        const result = await run.result;
        expect(run.events.some((e) => e.type === 'card_opened')).toBe(false);
        expect(suite.h.runtime.service.listCards()).toEqual([]);
        expect(result.steps).toEqual([expect.objectContaining({ callId, outcome: 'refused_unattended' })]);
        expect(result.refused).toEqual([{ callId, tool: `act_${kind}`, kind, summary: `${kind} x` }]);
        expect(suite.h.runtime.service.listInbox()).toEqual([expect.objectContaining({ callId, kind })]);
        const fed = toolResultsOf(suite.server.requests[1]!)[0]!;
        expect(fed.id).toBe(callId);
        expect(fed.content).toMatch(/Refused: this step needs .* approval and nobody can answer/);
      }
      expect(executed).toEqual([]);
      expect(suite.h.runtime.service.runs.listActions({ runId: run.runId })).toEqual([]);
    },
  );
});
