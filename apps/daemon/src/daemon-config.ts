// The daemon's config file (CFG-1..6): the same schema as the CLI (@arslan/protocol), read and
// validated before the store is opened (CFG-2); relative paths resolve against the file (CFG-3).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AgentConfigToml, parseArslanConfig } from '@arslan/protocol';
import { DEFAULT_RAG_CONFIG, type RagServiceConfig, ragConfigFromToml } from '@arslan/vault-rag';

export interface DaemonConfig {
  path: string | null;
  rag: RagServiceConfig;
  /** `[agent]`: the provider and model of the local API's runs; null = none configured. */
  agent: AgentConfigToml | null;
}

/** Throws an Error with a message naming the file and the problem (never a value). */
export function loadDaemonConfig(path: string | undefined): DaemonConfig {
  if (path === undefined) return { path: null, rag: { ...DEFAULT_RAG_CONFIG }, agent: null };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`config ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const parsed = parseArslanConfig(text);
  if (!parsed.ok) throw new Error(`config ${path}: ${parsed.problem}`);
  return {
    path,
    rag: ragConfigFromToml(parsed.config.rag, dirname(path)),
    agent: parsed.config.agent ?? null,
  };
}
