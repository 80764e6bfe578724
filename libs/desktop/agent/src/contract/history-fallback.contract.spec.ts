// Contract suite, PROV-08: an endpoint that rejects native tool history. Drives the REAL runtime
// over REAL HTTP against the scripted server, once per wire format: the rejected request is
// resent with the history flattened, later steps of the same turn stay flattened, and the next
// turn starts native again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderKind } from '../providers/create-provider';
import { type RecordedRequest, type ScriptedReply } from '../providers/testing/scripted-provider-server';
import {
  KINDS,
  contractSuite,
  offeredToolsOf,
  openHarness,
  text,
  toolCalls,
  toolResultsOf,
} from './contract-harness';

jest.setTimeout(20_000);

const suite = contractSuite();

/** What each format's endpoints say when they do not take native tool history. */
const REJECTION: Record<ProviderKind, string> = {
  'openai-compatible': "Invalid 'messages[3].role': role 'tool' is not supported by this model",
  anthropic:
    "messages.1.content.1: Input tag 'tool_use' found using 'type' does not match any of the expected tags: 'text', 'image'",
  gemini:
    'Invalid JSON payload received. Unknown name "functionCall" at \'contents[1].parts[1]\': Cannot find field.',
};

/** Any native tool-call or tool-result element in the request body. */
function hasNativeHistory(request: RecordedRequest): boolean {
  if (toolResultsOf(request).length > 0) return true;
  const wire = JSON.stringify(request.body);
  return /"tool_calls"|"type":"tool_use"|"functionCall"/.test(wire);
}

const wireText = (request: RecordedRequest): string => JSON.stringify(request.body);

/** A strict legacy endpoint: native history → 400, flattened → the given reply. */
const strict =
  (kind: ProviderKind, reply: ScriptedReply) =>
  (request: RecordedRequest): ScriptedReply =>
    hasNativeHistory(request) ? { status: 400, body: REJECTION[kind] } : reply;

describe.each(KINDS)('PROV-08 over %s wire format', (kind) => {
  it('PROV-08: a rejected native history is resent flattened and stays flattened for the rest of the turn', async () => {
    suite.h = openHarness(suite.server, kind);
    writeFileSync(join(suite.h.workspace, 'notes.txt'), 'alpha notes');
    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'notes.txt' }, id: 'call_r1' }]),
      // Each request takes one entry: the rejected native request, then its flattened resend.
      strict(kind, toolCalls([{ name: 'list_dir', args: { path: '.' }, id: 'call_l2' }])),
      strict(kind, toolCalls([{ name: 'list_dir', args: { path: '.' }, id: 'call_l2' }])),
      // A native request here would be rejected and find no entry for a resend.
      strict(kind, text('All read.')),
    );
    const run = suite.h.start({ message: 'read the notes' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toBe('All read.');
    const [first, rejected, retried, later] = suite.server.requests;
    expect(suite.server.requests).toHaveLength(4);
    expect(hasNativeHistory(first!)).toBe(false);
    expect(hasNativeHistory(rejected!)).toBe(true);
    // The retry: same turn, history as marked text, the tools still offered for native calls.
    expect(hasNativeHistory(retried!)).toBe(false);
    expect(wireText(retried!)).toContain('[tool call id=call_r1 name=read_file]');
    expect(wireText(retried!)).toContain('[tool result id=call_r1 name=read_file status=ok]');
    expect(wireText(retried!)).toContain('alpha notes');
    expect(offeredToolsOf(retried!)).toEqual(offeredToolsOf(rejected!));
    // A later step of the same turn goes flattened straight away (no second rejection).
    expect(hasNativeHistory(later!)).toBe(false);
    expect(wireText(later!)).toContain('[tool result id=call_l2 name=list_dir status=ok]');
    expect(wireText(later!)).toContain('notes.txt');
  });

  it('PROV-08: the fallback is per turn — the next turn sends native history again', async () => {
    suite.h = openHarness(suite.server, kind);
    writeFileSync(join(suite.h.workspace, 'a.txt'), 'aaa');
    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'a.txt' }, id: 'call_a1' }]),
      strict(kind, text('first done')),
      strict(kind, text('first done')),
    );
    const first = suite.h.start({ message: 'one' });
    expect((await first.result).status).toBe('succeeded');
    expect(suite.server.requests).toHaveLength(3);

    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'a.txt' }, id: 'call_b1' }]),
      text('second done'),
    );
    const second = await suite.h.start({ message: 'two', conversationId: first.conversationId }).result;
    expect(second.status).toBe('succeeded');
    const nextTurn = suite.server.requests[4]!;
    expect(hasNativeHistory(nextTurn)).toBe(true);
    expect(toolResultsOf(nextTurn)).toHaveLength(1);
    expect(wireText(nextTurn)).not.toContain('[tool result');
  });
});
