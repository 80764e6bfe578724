// The default embedder and `rag ask` model built from `[rag]` (RAG-16, EGRESS-3..9). Both remote
// clients get the configured proxy (EGRESS-5): `[rag] proxy`, or the URL in the variable named by
// `proxy_env`, else the proxy environment variables; loopback endpoints never use one, and
// `no_proxy` applies to all of them (the shared egress client decides).
import { type Embedder } from '@arslan/retrieval';
import { IpcError } from '@arslan/protocol';
import {
  createLocalDirEmbedder,
  createRemoteEmbedder,
  createUseLiteEmbedder,
  resolveConfiguredProxy,
} from '@arslan/retrieval-node';
import { type RagChatModel, createOpenAiChatModel } from './openai-chat.model';
import { type GenerationConfig, type RagServiceConfig } from './rag-config';

type Env = Readonly<Record<string, string | undefined>>;

function proxyOption(config: RagServiceConfig, env: Env): { proxy?: string } {
  const proxy = resolveConfiguredProxy(
    {
      ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
      ...(config.proxyEnv !== undefined ? { proxyEnv: config.proxyEnv } : {}),
    },
    env,
  );
  return proxy === undefined ? {} : { proxy };
}

export function createConfiguredChatModel(
  generation: GenerationConfig,
  config: RagServiceConfig,
  env: Env = process.env,
): RagChatModel {
  return createOpenAiChatModel({
    baseUrl: generation.baseUrl,
    model: generation.model,
    ...(generation.apiKeyEnv ? { apiKeyEnv: generation.apiKeyEnv } : {}),
    env,
    ...proxyOption(config, env),
  });
}

export async function createConfiguredEmbedder(
  config: RagServiceConfig,
  env: Env = process.env,
): Promise<Embedder | null> {
  switch (config.embedder) {
    case 'none':
      return null;
    case 'use-lite':
      return createUseLiteEmbedder();
    case 'onnx':
      if (!config.localModelDir)
        throw new IpcError('bad_request', 'embedder = "onnx" needs rag.local_model_dir');
      // RAG-16: the EmbeddingGemma export layout runs as EmbeddingGemma, else a WordPiece model.
      return createLocalDirEmbedder(config.localModelDir);
    case 'remote': {
      const r = config.remote;
      if (!r) throw new IpcError('bad_request', 'embedder = "remote" needs [rag.remote]');
      return createRemoteEmbedder({
        baseUrl: r.baseUrl,
        model: r.model,
        dimensions: r.dimensions,
        ...(r.apiKeyEnv ? { apiKeyEnv: r.apiKeyEnv } : {}),
        env,
        ...proxyOption(config, env),
      });
    }
  }
}
