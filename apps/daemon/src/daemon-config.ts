// The daemon's config file (CFG-1..6): the same schema as the CLI (@arslan/protocol), read and
// validated before the store is opened (CFG-2); relative paths resolve against the file (CFG-3).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AgentConfigToml, parseArslanConfig } from '@arslan/protocol';
import { DEFAULT_RAG_CONFIG, type RagServiceConfig, ragConfigFromToml } from '@arslan/vault-rag';
import { type ResolvedCenter, resolveCenters } from './daemon-centers';

export interface DaemonConfig {
  path: string | null;
  rag: RagServiceConfig;
  /** `[agent]`: the provider and model of the local API's runs; null = none configured. */
  agent: AgentConfigToml | null;
  /** `[[centers]]` with credentials resolved (CTR-1..8); empty = a standalone daemon. */
  centers: ResolvedCenter[];
}

/** Throws an Error with a message naming the file and the problem (never a value). */
export function loadDaemonConfig(
  path: string | undefined,
  readEnv: (name: string) => string | undefined = (name) => process.env[name],
): DaemonConfig {
  if (path === undefined) return { path: null, rag: { ...DEFAULT_RAG_CONFIG }, agent: null, centers: [] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`config ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const parsed = parseArslanConfig(text);
  if (!parsed.ok) throw new Error(`config ${path}: ${parsed.problem}`);
  let centers: ResolvedCenter[];
  try {
    centers = resolveCenters(parsed.config.centers, dirname(path), readEnv);
  } catch (error) {
    throw new Error(`config ${path}: ${(error as Error).message}`);
  }
  return {
    path,
    rag: ragConfigFromToml(parsed.config.rag, dirname(path)),
    agent: parsed.config.agent ?? null,
    centers,
  };
}
