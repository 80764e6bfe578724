import { detectRejectedTool, redact } from './errors';
import { detectRejectedParam, RejectedParamMemory } from './rejected-params';

describe('PROV-09 detection', () => {
  const sent = ['temperature', 'max_tokens', 'stream_options'];
  it.each([
    ['temperature is not supported for this model', { param: 'temperature' }],
    ["Unsupported parameter: 'temperature' is not supported with this model.", { param: 'temperature' }],
    ['`temperature` is deprecated for this model.', { param: 'temperature' }],
    [
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      { param: 'max_tokens', renameTo: 'max_completion_tokens' },
    ],
    ['Unrecognized request argument supplied: stream_options', { param: 'stream_options' }],
  ])('%s', (message, expected) => {
    expect(detectRejectedParam(message, sent)).toEqual(expected);
  });

  it('matches camelCase wire names against snake_case wording (Gemini)', () => {
    expect(
      detectRejectedParam('Unknown name "max_output_tokens" at generation_config', ['maxOutputTokens']),
    ).toEqual({
      param: 'maxOutputTokens',
    });
  });

  it('ignores messages that do not reject a parameter we sent', () => {
    expect(
      detectRejectedParam('max_tokens: 100000 > 64000, which is the maximum allowed', sent),
    ).toBeUndefined();
    expect(detectRejectedParam('top_p is not supported', sent)).toBeUndefined();
  });

  it('remembers per (base URL, model), ignoring a trailing slash', () => {
    const memory = new RejectedParamMemory();
    memory.record('http://x/v1/', 'm', 'temperature', { action: 'drop' });
    expect(memory.get('http://x/v1', 'm').get('temperature')).toEqual({ action: 'drop' });
    expect(memory.get('http://x/v1', 'other').size).toBe(0);
    expect(memory.get('http://y/v1', 'm').size).toBe(0);
  });
});

describe('PROV-11 detection and redaction', () => {
  const tools = [
    { name: 'read_file', description: '', inputSchema: {}, source: 'builtin' as const },
    { name: 'mcp_a', description: '', inputSchema: {}, source: 'mcp' as const },
    { name: 'mcp_a_b', description: '', inputSchema: {}, source: 'mcp' as const },
  ];
  it('identifies by name (longest) or index, else undefined; non-tool errors are not tool errors', () => {
    expect(detectRejectedTool("Invalid schema for function 'mcp_a_b': bad", tools)).toEqual({
      tool: 'mcp_a_b',
    });
    expect(detectRejectedTool('tools.1.custom.input_schema: invalid', tools)).toEqual({ tool: 'mcp_a' });
    expect(detectRejectedTool("at 'tools[0].function_declarations[2].parameters'", tools)).toEqual({
      tool: 'mcp_a_b',
    });
    expect(detectRejectedTool('a tool schema is invalid', tools)).toEqual({ tool: undefined });
    expect(detectRejectedTool('messages.2: tool_use ids must be unique', tools)).toBeUndefined();
    expect(detectRejectedTool('invalid schema', [])).toBeUndefined();
  });

  it('redacts the key and key-like strings', () => {
    const out = redact('key=abcd1234efgh sk-proj-aaaaaaaaaaaa AIzaSyA0123456789012345678901 Bearer tok', [
      'abcd1234efgh',
    ]);
    expect(out).not.toMatch(/abcd1234efgh|sk-proj|AIzaSy|tok\b/);
  });
});
