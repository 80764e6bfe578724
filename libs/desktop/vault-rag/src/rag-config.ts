// The resolved `[rag]` settings (CFG-*, RAG-16, EGRESS-9) the RAG service runs with.
import { resolve } from 'node:path';
import { type RagConfigToml, type RagEmbedderKind } from '@arslan/protocol';

export interface RemoteEmbedderConfig {
  baseUrl: string;
  model: string;
  dimensions: number;
  /** Name of the environment variable holding the key (EGRESS-9); never the key itself. */
  apiKeyEnv?: string;
}

export interface GenerationConfig {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
}

export interface RagServiceConfig {
  /** Default `use-lite`; `none` = lexical search only (KNOW-03). */
  embedder: RagEmbedderKind;
  /** Absolute directory of verified ONNX model files (`embedder = "onnx"`). */
  localModelDir?: string;
  remote?: RemoteEmbedderConfig;
  generation?: GenerationConfig;
  /** EGRESS-5: explicit proxy URL (no credentials) for the remote embedder and the `rag ask` model. */
  proxy?: string;
  /** EGRESS-5: name of the environment variable holding the proxy URL (credentials allowed there). */
  proxyEnv?: string;
}

export const DEFAULT_RAG_CONFIG: Readonly<RagServiceConfig> = Object.freeze({ embedder: 'use-lite' });

/** `[rag]` of a validated config file; relative paths resolve against the file's directory (CFG-3). */
export function ragConfigFromToml(
  rag: RagConfigToml | undefined,
  configDir: string | null,
): RagServiceConfig {
  if (rag === undefined) return { ...DEFAULT_RAG_CONFIG };
  const base = configDir ?? process.cwd();
  return {
    embedder: rag.embedder ?? 'use-lite',
    ...(rag.proxy === undefined ? {} : { proxy: rag.proxy }),
    ...(rag.proxy_env === undefined ? {} : { proxyEnv: rag.proxy_env }),
    ...(rag.local_model_dir === undefined ? {} : { localModelDir: resolve(base, rag.local_model_dir) }),
    ...(rag.remote === undefined
      ? {}
      : {
          remote: {
            baseUrl: rag.remote.base_url,
            model: rag.remote.model,
            dimensions: rag.remote.dimensions,
            ...(rag.remote.api_key_env === undefined ? {} : { apiKeyEnv: rag.remote.api_key_env }),
          },
        }),
    ...(rag.generation === undefined
      ? {}
      : {
          generation: {
            baseUrl: rag.generation.base_url,
            model: rag.generation.model,
            ...(rag.generation.api_key_env === undefined ? {} : { apiKeyEnv: rag.generation.api_key_env }),
          },
        }),
  };
}
