import { contextWindowOf, costUsd, normalizeModelName, priceOf } from './pricing';

describe('prices and context windows (PROV-12/13, BUD-11/12)', () => {
  it('knows a few well-known models, with dated and routed names', () => {
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual({ inputPerMTok: 3, outputPerMTok: 15 });
    expect(priceOf('openai/gpt-4o-mini')).toEqual({ inputPerMTok: 0.15, outputPerMTok: 0.6 });
    expect(priceOf('gpt-4o-2024-08-06')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 10 });
    expect(priceOf('models/gemini-2.5-flash')).toEqual({ inputPerMTok: 0.3, outputPerMTok: 2.5 });
    expect(normalizeModelName('Claude-3-5-Haiku-Latest')).toBe('claude-3-5-haiku');
  });

  it('BUD-12: unknown and local models are unpriced and add nothing', () => {
    expect(priceOf('llama3.1:8b')).toBeUndefined();
    expect(priceOf('gpt-5-pro')).toBeUndefined();
    expect(costUsd({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, priceOf('qwen2.5-coder'))).toBe(0);
  });

  it('BUD-11: computes dollars per response', () => {
    expect(
      costUsd({ inputTokens: 1_000_000, outputTokens: 200_000 }, priceOf('claude-sonnet-4-5')),
    ).toBeCloseTo(6);
    expect(
      costUsd({ inputTokens: 1200, outputTokens: 300 }, { inputPerMTok: 2, outputPerMTok: 8 }),
    ).toBeCloseTo(0.0048);
  });

  it('PROV-13: exposes the context window or reports it unknown', () => {
    expect(contextWindowOf('claude-opus-4-1')).toBe(200_000);
    expect(contextWindowOf('my-local-model')).toBeUndefined();
  });
});
