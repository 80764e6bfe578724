// One entry point for configuration-driven callers (CLI `--provider`, daemon settings).
import type { ModelProvider } from '../ports/model.port';
import { AnthropicProvider } from './anthropic.provider';
import { GeminiProvider } from './gemini.provider';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import type { ProviderOptions } from './streaming-provider';

export const PROVIDER_KINDS = ['openai-compatible', 'anthropic', 'gemini'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export const DEFAULT_BASE_URLS: Readonly<Record<ProviderKind, string>> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

export function createModelProvider(kind: ProviderKind, options: ProviderOptions): ModelProvider {
  switch (kind) {
    case 'openai-compatible':
      return new OpenAiCompatibleProvider(options);
    case 'anthropic':
      return new AnthropicProvider(options);
    case 'gemini':
      return new GeminiProvider(options);
  }
}
