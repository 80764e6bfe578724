// Retrieval commands (RAG-*): `search`, `retrieve`, `rag index|status|search|ask` go to the daemon;
// `rag model-install` runs in this process (RAG-18) and writes verified files to <data dir>/models.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  IPC_EXIT_CODES,
  type RetrievedChunk,
  type VaultOpResults,
  parseArslanConfig,
} from '@arslan/protocol';
import {
  MODEL_MANIFESTS,
  type ModelManifest,
  type ModelSource,
  installModel,
  isEmbedderError,
  resolveConfiguredProxy,
} from '@arslan/retrieval-node';
import { LocalCommandError, UsageError } from './cli-errors';
import {
  type CommandContext,
  type CommandOutcome,
  checkArgs,
  positional,
  stringFlag,
  withSession,
} from './cli-context';
import { table } from './output-format';

type Mode = 'any' | 'all' | 'phrase';
type Kind = 'lexical' | 'vector' | 'hybrid';

function common(ctx: CommandContext): { vault?: string; mode?: Mode; limit?: number } {
  const vault = stringFlag(ctx, 'vault');
  const mode = stringFlag(ctx, 'mode');
  const limit = stringFlag(ctx, 'limit');
  if (mode !== undefined && mode !== 'any' && mode !== 'all' && mode !== 'phrase')
    throw new UsageError('--mode must be any, all or phrase');
  let n: number | undefined;
  if (limit !== undefined) {
    if (!/^[0-9]{1,3}$/.test(limit)) throw new UsageError('--limit must be an integer from 1 to 50');
    n = Number(limit);
  }
  return {
    ...(vault === undefined ? {} : { vault }),
    ...(mode === undefined ? {} : { mode }),
    ...(n === undefined ? {} : { limit: n }),
  };
}

function searchArgs(ctx: CommandContext): {
  vault?: string;
  mode?: Mode;
  limit?: number;
  kind?: Kind;
  query: string;
} {
  const kind = stringFlag(ctx, 'kind');
  if (kind !== undefined && kind !== 'lexical' && kind !== 'vector' && kind !== 'hybrid')
    throw new UsageError('--kind must be lexical, vector or hybrid');
  return { ...common(ctx), ...(kind === undefined ? {} : { kind }), query: positional(ctx, 'query') };
}

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = [...flat];
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`;
}

function chunkText(chunks: readonly RetrievedChunk[]): string {
  if (chunks.length === 0) return 'no matches';
  return chunks
    .map(
      (c) =>
        `${c.citation} ${oneLine(c.title, 60)} (${c.asset_id} rev ${c.revision_id.slice(0, 12)}, bytes ${c.byte_start}-${c.byte_end}, score ${c.score.toFixed(3)})\n    ${oneLine(c.text)}`,
    )
    .join('\n');
}

function statusText(s: VaultOpResults['rag_status']): string {
  return [
    `vault:        ${s.vault}`,
    `indexed:      ${s.indexed ? 'yes' : 'no'}`,
    `chunks:       ${s.chunks}`,
    `text bytes:   ${s.text_bytes}`,
    `vector bytes: ${s.vector_bytes}`,
    `embedder:     ${s.embedder ?? 'none (lexical only)'}`,
    `cached vaults: ${s.cached_vaults}`,
  ].join('\n');
}

export function searchCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('search', searchArgs(ctx));
  return withSession(ctx, async (s) => {
    const result = await s.call('search', args);
    const text =
      result.hits.length === 0
        ? 'no matches'
        : table(
            ['ASSET ID', 'SCORE', 'TITLE', 'SNIPPET'],
            result.hits.map((h) => [
              h.asset_id,
              h.score.toFixed(3),
              oneLine(h.title, 40),
              oneLine(h.snippet, 80),
            ]),
          );
    return { json: result, text };
  });
}

function chunkCommand(op: 'retrieve' | 'rag_search') {
  return (ctx: CommandContext): Promise<CommandOutcome> => {
    const args = checkArgs(op, searchArgs(ctx));
    return withSession(ctx, async (s) => {
      const result = await s.call(op, args);
      return { json: result, text: chunkText(result.chunks) };
    });
  };
}

export const retrieveCommand = chunkCommand('retrieve');
export const ragSearchCommand = chunkCommand('rag_search');

export function ragIndexCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const vault = stringFlag(ctx, 'vault');
  const args = checkArgs('rag_index', vault === undefined ? {} : { vault });
  return withSession(ctx, async (s) => {
    const result = await s.call('rag_index', args);
    return { json: result, text: statusText(result) };
  });
}

export function ragStatusCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const vault = stringFlag(ctx, 'vault');
  const args = checkArgs('rag_status', vault === undefined ? {} : { vault });
  return withSession(ctx, async (s) => {
    const result = await s.call('rag_status', args);
    return { json: result, text: statusText(result) };
  });
}

export function ragAskCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('rag_ask', { ...common(ctx), question: positional(ctx, 'question') });
  return withSession(ctx, async (s) => {
    const result = await s.call('rag_ask', args);
    const text =
      result.status === 'insufficient_evidence'
        ? 'insufficient evidence: no memory answers this question (the model was not asked)'
        : `${result.answer}\n\nsources:\n${chunkText(result.citations)}`;
    return { json: result, text };
  });
}

/** EGRESS-5: `[rag] proxy` / `proxy_env` of the config file that was read (already validated). */
function configuredProxy(ctx: CommandContext): { proxy?: string } {
  if (!ctx.configPath) return {};
  const parsed = parseArslanConfig(readFileSync(ctx.configPath, 'utf8'));
  const rag = parsed.ok ? parsed.config.rag : undefined;
  const proxy = resolveConfiguredProxy({
    ...(rag?.proxy !== undefined ? { proxy: rag.proxy } : {}),
    ...(rag?.proxy_env !== undefined ? { proxyEnv: rag.proxy_env } : {}),
  });
  return proxy === undefined ? {} : { proxy };
}

/** RAG-18: verify every file's SHA-256 against the pinned manifest, then publish; refuses an unpinned manifest. */
export async function ragModelInstallCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const name = stringFlag(ctx, 'model') ?? 'embeddinggemma-300m-q4';
  if (!Object.hasOwn(MODEL_MANIFESTS, name))
    throw new UsageError(`unknown model ${name}; known: ${Object.keys(MODEL_MANIFESTS).join(', ')}`);
  const manifest = (MODEL_MANIFESTS as Record<string, ModelManifest>)[name] as ModelManifest;
  const fromDir = stringFlag(ctx, 'from');
  const from: ModelSource =
    fromDir !== undefined
      ? { localDir: resolve(ctx.io.cwd, fromDir) }
      : {
          baseUrl: `https://huggingface.co/${manifest.repository}/resolve/${manifest.revision ?? 'unpinned'}`,
        };
  const targetDir = join(ctx.dataDir, 'models');
  try {
    const result = await installModel({ manifest, from, targetDir, ...configuredProxy(ctx) });
    return {
      json: { model: name, dir: result.dir, reused: result.reused, fetched: result.fetched },
      text: result.reused
        ? `model ${name} already installed and verified in ${result.dir}`
        : `installed ${name} (${result.fetched.length} files verified) into ${result.dir}`,
    };
  } catch (error) {
    if (isEmbedderError(error)) {
      const hint =
        error.code === 'manifest_unpinned'
          ? ' (this build ships no pinned revision or SHA-256 for the model, so nothing can be verified or installed)'
          : '';
      throw new LocalCommandError(error.code, `${error.message}${hint}`, IPC_EXIT_CODES.model_failed);
    }
    throw error;
  }
}
