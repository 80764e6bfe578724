// Contract suite, part 1: the core loop scenarios run once per provider wire format. Each drives
// the REAL runtime (createAgentRuntime → RunService → AgentRun, built-in tools, SQLite) over REAL
// HTTP against the scripted provider server (split tool-call deltas, usage chunks, end markers).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KINDS,
  contractSuite,
  notices,
  offeredToolsOf,
  openHarness,
  temperatureOf,
  text,
  toolCalls,
  toolResultsOf,
} from './contract-harness';
import type { Tool } from '../ports';
import { z } from 'zod';

const suite = contractSuite();

/** A fake MCP tool (the `mcp_` prefix makes it an MCP tool for PROV-10/11). */
const mcpTool: Tool<{ q: string }> = {
  name: 'mcp_fake_search',
  description: 'Search a fake MCP server.',
  schema: z.strictObject({ q: z.string() }),
  readOnly: true,
  resident: true,
  approval: () => null,
  execute: async () => ({ content: 'mcp result' }),
};

describe.each(KINDS)('contract over %s wire format', (kind) => {
  it('LOOP-14/PROV-01: a plain answer streams as text deltas and is delivered', async () => {
    suite.h = openHarness(suite.server, kind);
    suite.server.enqueue({ ...text('Hel', 'lo, wö', 'rld — 世界.'), chunkBytes: 7 });
    const run = suite.h.start({ message: 'say hello' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toBe('Hello, wörld — 世界.');
    const deltas = run.events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.join('')).toBe(result.answer);
    expect(result.usage.requests).toBe(1);
    expect(result.usage.inputTokens).toBe(20);
    expect(run.events.at(-1)).toMatchObject({ type: 'run_finished', status: 'succeeded' });
    expect(suite.h.runtime.service.runs.getRun(run.runId)?.status).toBe('succeeded');
  });

  it('LOOP-02/07/09: a split tool call runs the real read_file; its result is bound to the call id on the wire', async () => {
    suite.h = openHarness(suite.server, kind);
    writeFileSync(join(suite.h.workspace, 'notes.txt'), 'the secret word is pelican\n');
    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'notes.txt' }, id: 'call_read1' }]),
      text('The word is pelican.'),
    );
    const run = suite.h.start({ message: 'what does notes.txt say?' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toBe('The word is pelican.'); // narration is never the answer
    expect(run.events).toContainEqual(
      expect.objectContaining({ type: 'narration', text: 'Working on it. ' }),
    );
    expect(result.steps).toEqual([
      expect.objectContaining({ callId: 'call_read1', tool: 'read_file', outcome: 'ok' }),
    ]);
    const sent = toolResultsOf(suite.server.requests[1]!);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.id).toBe('call_read1');
    expect(sent[0]!.content).toContain('the secret word is pelican');
    expect(sent[0]!.isError).toBe(false);
    expect(suite.h.runtime.service.runs.listToolCalls(run.runId)).toEqual([
      expect.objectContaining({ callId: 'call_read1', tool: 'read_file', outcome: 'ok' }),
    ]);
  });

  it('LOOP-06: a batch cut off by max_tokens is never executed (the file is NOT written)', async () => {
    suite.h = openHarness(suite.server, kind);
    suite.server.enqueue(
      toolCalls(
        [{ name: 'write_file', args: { path: 'cut.txt', content: 'complete-looking' }, id: 'call_cut' }],
        {
          finish: 'max_tokens',
        },
      ),
      text('I will send a smaller change.'),
    );
    const run = suite.h.start({ message: 'write cut.txt', attended: false, allow: ['workspace_write'] });
    const result = await run.result;
    expect(existsSync(join(suite.h.workspace, 'cut.txt'))).toBe(false);
    expect(result.steps).toEqual([expect.objectContaining({ callId: 'call_cut', outcome: 'not_executed' })]);
    expect(notices(run.events)).toContain('truncated');
    const [fed] = toolResultsOf(suite.server.requests[1]!);
    expect(fed).toMatchObject({ id: 'call_cut' });
    expect(fed!.content).toMatch(/Not executed: your response was cut off/);
    expect(suite.h.runtime.service.runs.listActions({ runId: run.runId })).toEqual([]);
    expect(result.status).toBe('succeeded');
  });

  it('LOOP-04/TOOL: a tool error is fed back as an error result and the model recovers', async () => {
    suite.h = openHarness(suite.server, kind);
    writeFileSync(join(suite.h.workspace, 'real.txt'), 'found it');
    suite.server.enqueue(
      toolCalls([{ name: 'read_file', args: { path: 'missing.txt' }, id: 'call_e1' }]),
      toolCalls([{ name: 'read_file', args: { path: 'real.txt' }, id: 'call_e2' }]),
      text('real.txt says: found it'),
    );
    const run = suite.h.start({ message: 'read the file' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.steps.map((s) => [s.callId, s.outcome])).toEqual([
      ['call_e1', 'error'],
      ['call_e2', 'ok'],
    ]);
    const first = toolResultsOf(suite.server.requests[1]!)[0]!;
    expect(first.id).toBe('call_e1');
    expect(first.content).toMatch(/ENOENT|not found|no such|does not exist/i);
    const second = toolResultsOf(suite.server.requests[2]!);
    expect(second.map((r) => r.id)).toEqual(['call_e1', 'call_e2']);
    expect(second[1]!.content).toContain('found it');
  });

  // Gemini sends whole calls as JSON objects, so its malformed case is a non-object argument value.
  it('LOOP-04: malformed arguments (invalid JSON; Gemini: not an object) become an error result, never an execution', async () => {
    suite.h = openHarness(suite.server, kind);
    const raw = kind === 'gemini' ? '"just a string"' : '{"path": "bad.txt", "content": "x';
    suite.server.enqueue(
      toolCalls([{ name: 'write_file', args: raw, id: 'call_json' }]),
      text('Sorry, retrying later.'),
    );
    const run = suite.h.start({ message: 'write', attended: false, allow: ['workspace_write'] });
    const result = await run.result;
    expect(existsSync(join(suite.h.workspace, 'bad.txt'))).toBe(false);
    expect(result.steps).toEqual([
      expect.objectContaining({ callId: 'call_json', outcome: 'invalid_arguments' }),
    ]);
    const [fed] = toolResultsOf(suite.server.requests[1]!);
    expect(fed!.id).toBe('call_json');
    expect(fed!.content).toMatch(kind === 'gemini' ? /Invalid arguments for write_file/ : /not valid JSON/);
    expect(run.events).toContainEqual(
      expect.objectContaining({ type: 'tool_state', callId: 'call_json', state: 'rejected' }),
    );
    expect(suite.h.runtime.service.runs.listActions({ runId: run.runId })).toEqual([]);
  });

  it('LOOP-04: a schema violation (missing content) is rejected before approval and execution', async () => {
    suite.h = openHarness(suite.server, kind);
    suite.server.enqueue(
      toolCalls([{ name: 'write_file', args: { path: 'schema.txt', mode: 'x' }, id: 'call_schema' }]),
      text('I need to pass content.'),
    );
    const run = suite.h.start({ message: 'write' });
    const result = await run.result;
    expect(existsSync(join(suite.h.workspace, 'schema.txt'))).toBe(false);
    expect(suite.h.runtime.service.listCards()).toEqual([]);
    expect(run.events.some((e) => e.type === 'card_opened')).toBe(false);
    expect(result.steps[0]).toMatchObject({ callId: 'call_schema', outcome: 'invalid_arguments' });
    expect(toolResultsOf(suite.server.requests[1]!)[0]!.content).toMatch(
      /Invalid arguments for write_file: .*content/,
    );
  });

  it('PROV-09: a rejected temperature is dropped, the request retried, and remembered for the next run', async () => {
    suite.h = openHarness(suite.server, kind, { service: { temperature: 0.3 } });
    const rejecting = (r: Parameters<typeof temperatureOf>[0]) =>
      temperatureOf(r) !== undefined
        ? { status: 400, body: 'temperature is not supported for this model' }
        : text('ok');
    suite.server.enqueue(rejecting, rejecting, rejecting);
    const first = await suite.h.start({ message: 'one' }).result;
    expect(first.status).toBe('succeeded');
    expect(suite.server.requests.map(temperatureOf)).toEqual([0.3, undefined]);
    const second = await suite.h.start({ message: 'two' }).result;
    expect(second.status).toBe('succeeded');
    expect(suite.server.requests.map(temperatureOf)).toEqual([0.3, undefined, undefined]);
  });

  it('PROV-11: a tool the provider rejects is excluded for the rest of the reply', async () => {
    suite.h = openHarness(suite.server, kind, { extraTools: [mcpTool] });
    suite.server.enqueue(
      {
        status: 400,
        body: "Invalid schema for function 'mcp_fake_search': In context=('properties', 'q'), 'format' is not permitted.",
      },
      toolCalls([{ name: 'read_file', args: { path: 'nothing.txt' }, id: 'call_x1' }]),
      text('done'),
    );
    const run = suite.h.start({ message: 'search' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(offeredToolsOf(suite.server.requests[0]!)).toContain('mcp_fake_search');
    expect(offeredToolsOf(suite.server.requests[1]!)).not.toContain('mcp_fake_search');
    expect(offeredToolsOf(suite.server.requests[1]!)).toContain('read_file');
    expect(offeredToolsOf(suite.server.requests[2]!)).not.toContain('mcp_fake_search');
    expect(notices(run.events)).toContain('tool_excluded');
  });

  it('LOOP-21: a transient 429 is retried within budget and counted', async () => {
    suite.h = openHarness(suite.server, kind);
    suite.server.enqueue({ status: 429, body: 'rate limited, slow down' }, text('after retry'));
    const run = suite.h.start({ message: 'hi' });
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(result.answer).toBe('after retry');
    expect(suite.server.requests).toHaveLength(2);
    expect(notices(run.events)).toEqual(['retrying']);
    expect(result.usage.requests).toBe(2); // BUD-06: the failed attempt is charged
  });

  it('LOOP-15: a stream broken mid-answer keeps the text shown and says it was interrupted', async () => {
    suite.h = openHarness(suite.server, kind);
    suite.server.enqueue({
      steps: [{ text: 'Half of ' }, { text: 'an answer' }, { cut: true }],
      finish: 'none',
    });
    const run = suite.h.start({ message: 'explain' });
    const result = await run.result;
    expect(result.status).toBe('interrupted');
    expect(result.answer).toBe('Half of an answer');
    expect(notices(run.events)).toContain('stream_interrupted');
    expect(suite.server.requests).toHaveLength(1); // never silently restarted
    expect(suite.h.runtime.service.runs.getRun(run.runId)?.status).toBe('interrupted');
  });
});
