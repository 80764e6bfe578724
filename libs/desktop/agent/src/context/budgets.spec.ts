import { contextBudgets, historyBudget } from './budgets';
import { describeContextWindow, isLocalEndpoint } from './context-window';
import { estimateTokens, historyTokens, toolResultTokens } from './token-estimate';

describe('context budgets', () => {
  it('CTX-02: 40% of a known window, clamped to [3,000, 24,000]', () => {
    expect(historyBudget({ kind: 'known', tokens: 20_000 })).toBe(8_000);
    expect(historyBudget({ kind: 'known', tokens: 4_000 })).toBe(3_000);
    expect(historyBudget({ kind: 'known', tokens: 200_000 })).toBe(24_000);
    expect(historyBudget({ kind: 'known', tokens: 60_000 })).toBe(24_000);
    expect(historyBudget({ kind: 'known', tokens: 59_999 })).toBe(23_999);
  });

  it('CTX-02: an unknown model counts as a 32,000 window, a local model as 8,192', () => {
    expect(historyBudget({ kind: 'unknown' })).toBe(12_800);
    expect(historyBudget({ kind: 'local' })).toBe(3_276);
  });

  it('PROV-13 / CTX-02: the window comes from the model table, else local or unknown', () => {
    expect(describeContextWindow('claude-sonnet-4-5-20250929')).toEqual({ kind: 'known', tokens: 200_000 });
    expect(describeContextWindow('gpt-4o', 'http://127.0.0.1:11434/v1')).toEqual({
      kind: 'known',
      tokens: 128_000,
    });
    expect(describeContextWindow('qwen2.5-coder:7b', 'http://localhost:11434/v1')).toEqual({ kind: 'local' });
    expect(describeContextWindow('qwen2.5-coder:7b', 'http://192.168.1.20:1234/v1')).toEqual({
      kind: 'local',
    });
    expect(describeContextWindow('mystery-model', 'https://api.example.com/v1')).toEqual({ kind: 'unknown' });
    expect(describeContextWindow('mystery-model')).toEqual({ kind: 'unknown' });
  });

  it('PROV-13: local endpoints are loopback, private ranges and .local hosts only', () => {
    for (const url of ['http://[::1]:8080', 'http://10.0.0.2', 'http://172.20.1.1', 'http://box.local:1234'])
      expect(isLocalEndpoint(url)).toBe(true);
    for (const url of ['https://api.openai.com/v1', 'http://172.32.0.1', 'http://8.8.8.8', 'not a url'])
      expect(isLocalEndpoint(url)).toBe(false);
  });

  it('CTX-03: system, tool schemas, tool results and the summary have their own budgets', () => {
    const b = contextBudgets({ kind: 'unknown' });
    expect(b).toEqual({
      window: 32_000,
      history: 12_800,
      foldThreshold: 9_600,
      recentTurns: 6_400,
      summary: 2_000,
      toolResults: 8_000,
      system: 1_600,
      toolSchemas: 3_200,
    });
    const local = contextBudgets({ kind: 'local' });
    expect(local.summary).toBe(819); // a quarter of the history budget when small
    expect(local.toolResults).toBe(2_048);
  });
});

describe('token estimate', () => {
  it('CTX-02: ASCII counts about 4 characters per token, other scripts 1 per code point', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('こんにちは')).toBe(5);
    expect(estimateTokens('😀')).toBe(1); // a surrogate pair is one code point
  });

  it('CTX-03: a tool result counts its framing as history and its content as materials', () => {
    const item = {
      role: 'tool' as const,
      callId: 'c1',
      name: 'read_file',
      content: 'x'.repeat(400),
      isError: false,
    };
    expect(historyTokens(item)).toBeLessThan(10);
    expect(toolResultTokens(item)).toBe(100);
    expect(toolResultTokens({ role: 'user', text: 'hello' })).toBe(0);
  });
});
