// Contract tests: each adapter over real HTTP against the scripted provider server.
import {
  ProviderError,
  type ModelProvider,
  type ModelRequest,
  type ModelStreamEvent,
  type ToolSpec,
  type TrajectoryItem,
} from '../ports/model.port';
import { createModelProvider, type ProviderKind } from './create-provider';
import { RejectedParamMemory } from './rejected-params';
import type { ProviderOptions } from './streaming-provider';
import { ScriptedProviderServer, type RecordedRequest } from './testing/scripted-provider-server';

const KEY = 'sk-test-SECRET-0123456789abcdef';

const builtin: ToolSpec = {
  name: 'read_file',
  description: 'Read a file',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  source: 'builtin',
};
const mcpTool: ToolSpec = {
  name: 'mcp_github_search',
  description: 'Search GitHub',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      q: { type: 'string', format: 'uri-template', default: 'x' },
      limit: { type: ['integer', 'null'] },
    },
    required: ['q'],
    additionalProperties: false,
  },
  source: 'mcp',
};

function baseRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    system: 'You are Arslan.',
    trajectory: [{ role: 'user', text: 'hello' }],
    tools: [builtin, mcpTool],
    maxOutputTokens: 1024,
    temperature: 0.2,
    ...overrides,
  };
}

interface Run {
  events: ModelStreamEvent[];
  text: string;
}

async function run(provider: ModelProvider, request: ModelRequest, signal = new AbortController().signal) {
  const seen: Run = { events: [], text: '' };
  const response = await provider.stream(
    request,
    (event) => {
      seen.events.push(event);
      if (event.type === 'text') seen.text += event.delta;
    },
    signal,
  );
  return { response, ...seen };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

/** Per wire format: where things live in a recorded request body. */
const profiles: Record<
  ProviderKind,
  {
    temperature: (r: RecordedRequest) => unknown;
    maxTokens: (r: RecordedRequest) => unknown;
    toolSchemas: (r: RecordedRequest) => Record<string, unknown>[];
  }
> = {
  'openai-compatible': {
    temperature: (r) => r.body.temperature,
    maxTokens: (r) => r.body.max_tokens,
    toolSchemas: (r) => r.body.tools.map((t: { function: { parameters: unknown } }) => t.function.parameters),
  },
  anthropic: {
    temperature: (r) => r.body.temperature,
    maxTokens: (r) => r.body.max_tokens,
    toolSchemas: (r) => r.body.tools.map((t: { input_schema: unknown }) => t.input_schema),
  },
  gemini: {
    temperature: (r) => r.body.generationConfig.temperature,
    maxTokens: (r) => r.body.generationConfig.maxOutputTokens,
    toolSchemas: (r) =>
      r.body.tools[0].functionDeclarations.map((d: { parameters: unknown }) => d.parameters),
  },
};

const KINDS: ProviderKind[] = ['openai-compatible', 'anthropic', 'gemini'];

describe.each(KINDS)('%s adapter over HTTP', (kind) => {
  let server: ScriptedProviderServer;
  let memory: RejectedParamMemory;
  let ids = 0;
  const profile = profiles[kind];

  const make = (options: Partial<ProviderOptions> = {}): ModelProvider =>
    createModelProvider(kind, {
      baseUrl: server.baseUrlFor(kind),
      apiKey: KEY,
      paramMemory: memory,
      newCallId: () => `synth${ids++}`,
      ...options,
    });

  beforeAll(async () => {
    server = await ScriptedProviderServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    memory = new RejectedParamMemory();
    ids = 0;
  });
  afterEach(() => {
    expect(server.unscripted).toBe(0);
  });

  it('PROV-01/LOOP-14: streams text split at odd byte boundaries, CRLF, multi-line data and comments', async () => {
    server.enqueue({
      steps: [{ text: 'Héllo, ' }, { comment: 'keep-alive' }, { text: 'wörld — 世界' }, { text: '!' }],
      usage: { input: 12, output: 5 },
      chunkBytes: 3,
      crlf: true,
      multilineData: true,
    });
    const { response, events, text } = await run(make(), baseRequest());
    expect(response.text).toBe('Héllo, wörld — 世界!');
    expect(text).toBe(response.text);
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThanOrEqual(3);
    expect(response.stopReason).toBe('end');
    expect(response.toolCalls).toEqual([]);
  });

  it('PROV-01: assembles a tool call whose arguments arrive in many deltas', async () => {
    const args = { path: 'src/a "quoted".ts', lines: [1, 2, 3], nested: { ok: true } };
    server.enqueue({
      steps: [
        { toolCall: { name: 'read_file', args, id: kind === 'gemini' ? undefined : 'call_A', parts: 7 } },
      ],
      chunkBytes: 11,
    });
    const { response, events } = await run(make(), baseRequest());
    expect(response.stopReason).toBe('tool_calls');
    expect(response.toolCalls).toHaveLength(1);
    const [call] = response.toolCalls;
    expect(call!.name).toBe('read_file');
    expect(JSON.parse(call!.argumentsJson)).toEqual(args);
    expect(events).toContainEqual({ type: 'tool_call', id: call!.id, name: 'read_file' });
    // Gemini sends no ids unless it has them: the adapter synthesises a stable one.
    expect(call!.id).toBe(kind === 'gemini' ? 'gcall_synth0' : 'call_A');
  });

  it('PROV-01/LOOP-07: narration text plus several tool calls keep their order and ids', async () => {
    server.enqueue({
      steps: [
        { text: 'Let me look.' },
        { toolCall: { name: 'read_file', args: { path: 'a' } } },
        { toolCall: { name: 'mcp_github_search', args: { q: 'x' }, parts: 2 } },
        { toolCall: { name: 'read_file', args: { path: 'b' } } },
      ],
    });
    const { response, events } = await run(make(), baseRequest());
    expect(response.text).toBe('Let me look.');
    expect(response.toolCalls.map((c) => [c.name, JSON.parse(c.argumentsJson)])).toEqual([
      ['read_file', { path: 'a' }],
      ['mcp_github_search', { q: 'x' }],
      ['read_file', { path: 'b' }],
    ]);
    expect(new Set(response.toolCalls.map((c) => c.id)).size).toBe(3);
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { id: string }).id)).toEqual(
      response.toolCalls.map((c) => c.id),
    );
  });

  it('PROV-12/BUD-09: reports usage on the response and as an event', async () => {
    server.enqueue({ steps: [{ text: 'ok' }], usage: { input: 321, output: 45 } });
    const { response, events } = await run(make(), baseRequest());
    expect(response.usage).toEqual({ inputTokens: 321, outputTokens: 45 });
    expect(events[events.length - 1]).toEqual({
      type: 'usage',
      usage: { inputTokens: 321, outputTokens: 45 },
    });
    if (kind === 'openai-compatible')
      expect(server.lastRequest().body.stream_options).toEqual({ include_usage: true });
  });

  it('PROV-12: estimates usage when the endpoint reports none', async () => {
    server.enqueue({ steps: [{ text: 'abcdefgh' }] });
    const { response } = await run(make(), baseRequest());
    if (kind === 'anthropic') expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    else {
      expect(response.usage.outputTokens).toBe(2);
      expect(response.usage.inputTokens).toBeGreaterThan(0);
    }
  });

  it('LOOP-06: a batch cut off by the output limit reports max_tokens', async () => {
    server.enqueue({
      steps: [
        { toolCall: { name: 'read_file', args: { path: 'a' } } },
        { toolCall: { name: 'read_file', args: '{"pa' } },
      ].filter((s) => kind !== 'gemini' || !('toolCall' in s && typeof s.toolCall.args === 'string')),
      finish: 'max_tokens',
      usage: { input: 10, output: 1024 },
    });
    const { response } = await run(make(), baseRequest());
    expect(response.stopReason).toBe('max_tokens');
    expect(response.toolCalls.length).toBeGreaterThan(0);
  });

  it('LOOP-06: plain text truncated by the limit reports max_tokens', async () => {
    server.enqueue({ steps: [{ text: 'partial answ' }], finish: 'max_tokens' });
    const { response } = await run(make(), baseRequest());
    expect(response).toMatchObject({ text: 'partial answ', stopReason: 'max_tokens' });
  });

  it('PROV-07/LOOP-09: renders the trajectory natively and pairs results with their call ids (round trip)', async () => {
    server.enqueue({
      steps: [
        { text: 'Reading both.' },
        { toolCall: { name: 'read_file', args: { path: 'a' } } },
        { toolCall: { name: 'mcp_github_search', args: { q: 'z' } } },
      ],
    });
    const provider = make();
    const first = await run(provider, baseRequest());
    const [a, b] = first.response.toolCalls;
    const trajectory: TrajectoryItem[] = [
      { role: 'user', text: 'hello' },
      { role: 'assistant', text: first.response.text, toolCalls: first.response.toolCalls },
      // results arrive out of order: the renderer keeps each bound to its call id
      { role: 'tool', callId: b!.id, name: b!.name, content: 'no results', isError: true },
      { role: 'tool', callId: a!.id, name: a!.name, content: 'file A', isError: false },
      { role: 'user', text: 'and then?' },
    ];
    server.enqueue({ steps: [{ text: 'done' }] });
    await run(provider, baseRequest({ trajectory }));
    const body = server.lastRequest().body;

    if (kind === 'openai-compatible') {
      expect(body.messages).toEqual([
        { role: 'system', content: 'You are Arslan.' },
        { role: 'user', content: 'hello' },
        {
          role: 'assistant',
          content: 'Reading both.',
          tool_calls: [
            { id: a!.id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
            { id: b!.id, type: 'function', function: { name: 'mcp_github_search', arguments: '{"q":"z"}' } },
          ],
        },
        { role: 'tool', tool_call_id: b!.id, content: 'no results' },
        { role: 'tool', tool_call_id: a!.id, content: 'file A' },
        { role: 'user', content: 'and then?' },
      ]);
    } else if (kind === 'anthropic') {
      expect(body.system).toBe('You are Arslan.');
      expect(body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', id: a!.id, name: 'read_file', input: { path: 'a' } },
            { type: 'tool_use', id: b!.id, name: 'mcp_github_search', input: { q: 'z' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: b!.id, content: 'no results', is_error: true },
            { type: 'tool_result', tool_use_id: a!.id, content: 'file A' },
            { type: 'text', text: 'and then?' },
          ],
        },
      ]);
    } else {
      expect(a!.id).toMatch(/^gcall_/);
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are Arslan.' }] });
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: 'hello' }] },
        {
          role: 'model',
          parts: [
            { text: 'Reading both.' },
            { functionCall: { name: 'read_file', args: { path: 'a' } } },
            { functionCall: { name: 'mcp_github_search', args: { q: 'z' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            // mapped back by id to call order; synthetic ids are not sent to Gemini
            { functionResponse: { name: 'read_file', response: { output: 'file A' } } },
            { functionResponse: { name: 'mcp_github_search', response: { error: 'no results' } } },
            { text: 'and then?' },
          ],
        },
      ]);
    }
  });

  it('PROV-09: drops a rejected temperature, retries, and remembers it per model until restart', async () => {
    const rejectTemperature = (r: RecordedRequest) =>
      profile.temperature(r) !== undefined
        ? { status: 400, body: 'temperature is not supported for this model' }
        : { steps: [{ text: 'ok' }] };
    server.enqueue(...Array.from({ length: 5 }, () => rejectTemperature));
    const provider = make();
    const first = await run(provider, baseRequest());
    expect(first.response.text).toBe('ok');
    expect(server.requests.map((r) => profile.temperature(r))).toEqual([0.2, undefined]);
    expect(profile.maxTokens(server.lastRequest())).toBe(1024);

    // Remembered for this model: the next request goes without it at once, even from a new instance.
    await run(make(), baseRequest());
    expect(server.requests.map((r) => profile.temperature(r))).toEqual([0.2, undefined, undefined]);

    // Another model on the same endpoint still gets temperature.
    await run(provider, baseRequest({ model: 'other-model' }));
    expect(server.requests.slice(3).map((r) => profile.temperature(r))).toEqual([0.2, undefined]);

    // A restart (fresh memory) tries the parameter again.
    memory.clear();
    server.enqueue({ steps: [{ text: 'ok' }] });
    await run(provider, baseRequest());
    expect(profile.temperature(server.lastRequest())).toBe(0.2);
  });

  it('PROV-09: a rejected parameter named in the provider’s own error wording is dropped', async () => {
    const message =
      kind === 'gemini'
        ? 'Invalid JSON payload received. Unknown name "temperature" at \'generation_config\': Cannot find field.'
        : kind === 'anthropic'
          ? 'temperature: Extra inputs are not permitted'
          : "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.";
    server.enqueue({ status: 400, body: message }, { steps: [{ text: 'ok' }] });
    const { response } = await run(make(), baseRequest());
    expect(response.text).toBe('ok');
    expect(profile.temperature(server.lastRequest())).toBeUndefined();
  });

  it('PROV-09: a 400 that names no optional parameter is not retried (bad_request)', async () => {
    server.enqueue({ status: 400, body: 'messages: roles must alternate' });
    const error = await failure(run(make(), baseRequest({ tools: [] })));
    expect(error.kind).toBe('bad_request');
    expect(error.details.status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('PROV-10: MCP schemas are reshaped for the provider; built-in schemas are sent unchanged', async () => {
    server.enqueue({ steps: [{ text: 'ok' }] });
    await run(make(), baseRequest());
    const [builtinSchema, mcpSchema] = profile.toolSchemas(server.lastRequest());
    expect(builtinSchema).toEqual(builtin.inputSchema);
    expect(mcpSchema).not.toHaveProperty('$schema');
    expect(mcpSchema).toMatchObject({ type: 'object', required: ['q'] });
    if (kind === 'gemini') {
      expect(mcpSchema).toEqual({
        type: 'object',
        properties: { q: { type: 'string' }, limit: { type: 'integer', nullable: true } },
        required: ['q'],
      });
    }
  });

  it('PROV-11: a 400 identifying the rejected tool → rejected_tool with that tool', async () => {
    const message =
      kind === 'openai-compatible'
        ? "Invalid schema for function 'mcp_github_search': In context=('properties', 'q'), 'format' is not permitted."
        : kind === 'anthropic'
          ? 'tools.1.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12'
          : 'Invalid JSON payload received. Unknown name "exclusiveMinimum" at \'tools[0].function_declarations[1].parameters.properties[0].value\': Cannot find field.';
    server.enqueue({ status: 400, body: message });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('rejected_tool');
    expect(error.details.tool).toBe('mcp_github_search');
    expect(server.requests).toHaveLength(1);
  });

  it('PROV-11: a tool rejection that names no tool → rejected_tool with tool undefined', async () => {
    server.enqueue({ status: 400, body: 'One of the provided tool schemas is invalid.' });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('rejected_tool');
    expect(error.details.tool).toBeUndefined();
  });

  it('sends the key in the native header (never in the URL)', async () => {
    server.enqueue({ steps: [{ text: 'ok' }] });
    await run(make(), baseRequest());
    const { headers, path } = server.lastRequest();
    const expected = {
      'openai-compatible': 'authorization',
      anthropic: 'x-api-key',
      gemini: 'x-goog-api-key',
    }[kind];
    expect(headers[expected]).toBe(kind === 'openai-compatible' ? `Bearer ${KEY}` : KEY);
    expect(path).not.toContain(KEY);
    if (kind === 'anthropic') expect(headers['anthropic-version']).toBe('2023-06-01');
    if (kind === 'gemini') expect(path).toBe('/v1beta/models/test-model:streamGenerateContent?alt=sse');
  });

  it('401 → auth, and the error message never contains the API key', async () => {
    server.enqueue({ status: 401, body: `Incorrect API key provided: ${KEY}. Authorization: Bearer ${KEY}` });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('auth');
    expect(error.details.status).toBe(401);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('SECRET');
    expect(error.message).toContain('[redacted]');
  });

  it.each([429, 500, 503, 529])('LOOP-21: %i → transient, not retried inside the adapter', async (status) => {
    server.enqueue({ status, body: 'slow down' });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  it('LOOP-15: a stream cut after partial output → stream_broken with the partial response', async () => {
    server.enqueue({
      steps: [{ text: 'The answer is ' }, { text: 'forty' }, { cut: true }, { text: '-two' }],
    });
    const { events, partialText, error } = await (async () => {
      const seen: ModelStreamEvent[] = [];
      const e = await failure(
        make().stream(baseRequest(), (ev) => seen.push(ev), new AbortController().signal),
      );
      return { events: seen, partialText: e.details.partial?.text, error: e };
    })();
    expect(error.kind).toBe('stream_broken');
    expect(partialText).toBe('The answer is forty');
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('The answer is forty');
    expect(error.details.partial?.stopReason).toBe('other');
  });

  it('LOOP-15: a stream that ends without its end marker after output → stream_broken', async () => {
    server.enqueue({ steps: [{ text: 'half' }], finish: 'none' });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('stream_broken');
    expect(error.details.partial?.text).toBe('half');
  });

  it('LOOP-21: a stream cut before any output → transient', async () => {
    server.enqueue({ steps: [{ cut: true }] });
    const error = await failure(run(make(), baseRequest()));
    expect(error.kind).toBe('transient');
  });

  it('LOOP-21: an overload error event inside the stream → transient before output, stream_broken after', async () => {
    server.enqueue(
      {
        steps: [
          {
            streamError: {
              message: 'Overloaded',
              type: kind === 'gemini' ? 'UNAVAILABLE' : 'overloaded_error',
            },
          },
        ],
      },
      { steps: [{ text: 'so far' }, { streamError: { message: 'Overloaded', type: 'overloaded_error' } }] },
    );
    expect((await failure(run(make(), baseRequest()))).kind).toBe('transient');
    const broken = await failure(run(make(), baseRequest()));
    expect(broken.kind).toBe('stream_broken');
    expect(broken.details.partial?.text).toBe('so far');
  });

  it('CKPT-08: abort mid-stream → cancelled (with what was shown), abort before sending → cancelled', async () => {
    server.enqueue({ steps: [{ text: 'thinking' }, { stall: 'forever' }] });
    const controller = new AbortController();
    const pending = make().stream(
      baseRequest(),
      (event) => {
        if (event.type === 'text') setTimeout(() => controller.abort(), 10);
      },
      controller.signal,
    );
    const error = await failure(pending);
    expect(error.kind).toBe('cancelled');
    expect(error.details.partial?.text).toBe('thinking');

    const aborted = new AbortController();
    aborted.abort();
    expect((await failure(run(make(), baseRequest(), aborted.signal))).kind).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
  });

  it('LOOP-21: a stream going silent → timeout (idle timeout)', async () => {
    server.enqueue({ steps: [{ text: 'wait' }, { stall: 'forever' }] });
    const started = Date.now();
    const error = await failure(run(make({ idleTimeoutMs: 150 }), baseRequest()));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/idle/);
    expect(error.details.partial?.text).toBe('wait');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('LOOP-21: no response headers in time → timeout (request timeout)', async () => {
    server.enqueue({ steps: [{ text: 'late' }], headersDelayMs: 'forever' });
    const error = await failure(run(make({ requestTimeoutMs: 150 }), baseRequest()));
    expect(error.kind).toBe('timeout');
    expect(error.details.partial).toBeUndefined();
  });

  it('LOOP-21: connection refused → transient', async () => {
    const closed = await ScriptedProviderServer.start();
    const url = closed.baseUrlFor(kind);
    await closed.close();
    const error = await failure(run(make({ baseUrl: url }), baseRequest()));
    expect(error.kind).toBe('transient');
    expect(error.message).not.toContain(KEY);
  });

  it('PROV-02: works without an API key (local endpoint): no credential header sent', async () => {
    server.enqueue({ steps: [{ text: 'local' }] });
    const { response } = await run(make({ apiKey: undefined }), baseRequest());
    expect(response.text).toBe('local');
    const { headers } = server.lastRequest();
    expect(headers['authorization']).toBeUndefined();
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers['x-goog-api-key']).toBeUndefined();
  });
});

describe('OpenAI-compatible specifics', () => {
  let server: ScriptedProviderServer;
  beforeAll(async () => {
    server = await ScriptedProviderServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('PROV-09: renames max_tokens to max_completion_tokens when asked, remembered per (base URL, model)', async () => {
    const memory = new RejectedParamMemory();
    const provider = createModelProvider('openai-compatible', {
      baseUrl: server.baseUrlFor('openai'),
      paramMemory: memory,
    });
    server.enqueue(
      {
        status: 400,
        body: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      },
      { steps: [{ text: 'ok' }] },
      { steps: [{ text: 'ok' }] },
    );
    await run(provider, baseRequest({ model: 'o3' }));
    await run(provider, baseRequest({ model: 'o3' }));
    const [first, second, third] = server.requests;
    expect(first!.body.max_tokens).toBe(1024);
    expect(second!.body).not.toHaveProperty('max_tokens');
    expect(second!.body.max_completion_tokens).toBe(1024);
    expect(third!.body.max_completion_tokens).toBe(1024);
    expect(memory.get(server.baseUrlFor('openai'), 'o3').get('max_tokens')).toEqual({
      action: 'rename',
      to: 'max_completion_tokens',
    });
  });

  it('PROV-09: drop and rename combine; a second rejection of the same parameter is not looped on', async () => {
    const memory = new RejectedParamMemory();
    const provider = createModelProvider('openai-compatible', {
      baseUrl: server.baseUrlFor('openai'),
      paramMemory: memory,
    });
    server.enqueue(
      { status: 400, body: 'temperature is not supported for this model' },
      { status: 400, body: 'Use max_completion_tokens instead of max_tokens: max_tokens is unsupported' },
      { status: 400, body: 'stream_options is unsupported' },
      { steps: [{ text: 'ok' }] },
    );
    const { response } = await run(provider, baseRequest());
    expect(response.text).toBe('ok');
    const last = server.lastRequest().body;
    expect(last).not.toHaveProperty('temperature');
    expect(last).not.toHaveProperty('stream_options');
    expect(last.max_completion_tokens).toBe(1024);
  });

  it('tolerates tool-call deltas without index (local servers) and a missing [DONE]', async () => {
    const provider = createModelProvider('openai-compatible', {
      baseUrl: server.baseUrlFor('openai'),
      paramMemory: new RejectedParamMemory(),
    });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueue({
      steps: [
        {
          raw: chunk({ tool_calls: [{ id: 'x1', function: { name: 'read_file', arguments: '{"path":' } }] }),
        },
        { raw: chunk({ tool_calls: [{ function: { arguments: '"a"}' } }] }) },
        { raw: chunk({}, 'stop') },
      ],
      finish: 'none',
    });
    const { response } = await run(provider, baseRequest());
    expect(response.toolCalls).toEqual([{ id: 'x1', name: 'read_file', argumentsJson: '{"path":"a"}' }]);
    expect(response.stopReason).toBe('tool_calls');
  });
});

describe('Gemini specifics', () => {
  let server: ScriptedProviderServer;
  beforeAll(async () => {
    server = await ScriptedProviderServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('PROV-07: echoes provider ids and thought signatures back with their calls', async () => {
    const provider = createModelProvider('gemini', {
      baseUrl: server.baseUrlFor('gemini'),
      paramMemory: new RejectedParamMemory(),
    });
    server.enqueue({
      steps: [{ toolCall: { name: 'read_file', args: { path: 'a' }, id: 'g-1', thoughtSignature: 'sig==' } }],
    });
    const first = await run(provider, baseRequest());
    expect(first.response.toolCalls[0]!.id).toBe('g-1');
    server.enqueue({ steps: [{ text: 'done' }] });
    await run(
      provider,
      baseRequest({
        trajectory: [
          { role: 'user', text: 'hello' },
          { role: 'assistant', text: '', toolCalls: first.response.toolCalls },
          { role: 'tool', callId: 'g-1', name: 'read_file', content: 'A', isError: false },
        ],
      }),
    );
    expect(server.lastRequest().body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'g-1', name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'sig==' },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'g-1', name: 'read_file', response: { output: 'A' } } }],
      },
    ]);
  });
});
