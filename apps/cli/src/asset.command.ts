import { resolve } from 'node:path';
import { type VaultOpResults } from '@arslan/protocol';
import { UsageError } from './cli-errors';
import {
  type CommandContext,
  type CommandOutcome,
  boolFlag,
  checkArgs,
  positional,
  stringFlag,
  withSession,
} from './cli-context';
import { batchItems, readImportSource } from './import-items';
import { assetTable, historyTable } from './output-format';
import { readTextFile } from './read-text-file';
import { type TtyInput, promptHidden } from './tty-prompt';

/** A card's fields, links and secret labels after its body (MCP-11: markers literal, no values). */
function cardDetails(r: VaultOpResults['read']): string {
  const lines = ['--- fields ---', ...Object.entries(r.fields ?? {}).map(([k, v]) => `${k}: ${v}`)];
  if ((r.links ?? []).length > 0)
    lines.push('--- links ---', ...(r.links ?? []).map((l) => `${l.rel} -> ${l.to}`));
  if ((r.secret_labels ?? []).length > 0) lines.push(`--- secrets: ${(r.secret_labels ?? []).join(', ')}`);
  return lines.join('\n');
}

function vaultArg(ctx: CommandContext): { vault?: string } {
  const vault = stringFlag(ctx, 'vault');
  return vault === undefined ? {} : { vault };
}

/** --title plus exactly one body source: --body, --body-file, or stdin when it is not a terminal. */
async function titleAndBody(ctx: CommandContext): Promise<{ title: string; body: string }> {
  const title = stringFlag(ctx, 'title');
  if (title === undefined) throw new UsageError(`\`${ctx.args.command?.name}\` needs --title`);
  const body = stringFlag(ctx, 'body');
  const bodyFile = stringFlag(ctx, 'body-file');
  if (body !== undefined && bodyFile !== undefined)
    throw new UsageError('give --body or --body-file, not both');
  if (body !== undefined) return { title, body };
  if (bodyFile !== undefined) {
    const path = resolve(ctx.io.cwd, bodyFile);
    return { title, body: readTextFile(path, `--body-file ${path}`) };
  }
  if (ctx.io.isTTY) throw new UsageError('give --body, --body-file, or pipe the body on stdin');
  return { title, body: await ctx.reader.readAll() };
}

function revisionText(verb: string, r: { asset_id: string; revision_id: string }): string {
  return `${verb} ${r.asset_id} revision ${r.revision_id}`;
}

/** CRED-1 / IPC-17: a credential value never comes from argv or a file: a hidden prompt or stdin. */
async function credentialBody(ctx: CommandContext): Promise<{ title: string; body: string }> {
  const title = stringFlag(ctx, 'title');
  if (title === undefined) throw new UsageError('`write` needs --title');
  if (stringFlag(ctx, 'body') !== undefined || stringFlag(ctx, 'body-file') !== undefined)
    throw new UsageError('--credential reads the value from stdin only (no --body, no --body-file)');
  const tty = ctx.io.stdin;
  let body: string;
  if (ctx.io.isTTY) {
    if (typeof tty.setRawMode !== 'function') throw new UsageError('no terminal to ask for the credential');
    body = await promptHidden(tty as TtyInput, ctx.io.stderr, 'Credential value: ');
  } else {
    // One trailing newline (from `echo` or a file) is not part of the value.
    body = (await ctx.reader.readAll()).replace(/\r?\n$/, '');
  }
  if (body === '') throw new UsageError('the credential value is empty');
  return { title, body };
}

export async function writeCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const asset = stringFlag(ctx, 'asset');
  const isPrivate = boolFlag(ctx, 'private');
  const isCredential = boolFlag(ctx, 'credential');
  if (isPrivate && isCredential) throw new UsageError('give --private or --credential, not both');
  const kind = isCredential ? 'credential' : isPrivate ? 'private' : undefined;
  const args = checkArgs('write', {
    ...vaultArg(ctx),
    ...(asset === undefined ? {} : { asset_id: asset }),
    ...(isCredential ? await credentialBody(ctx) : await titleAndBody(ctx)),
    ...(kind === undefined ? {} : { kind }),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('write', args);
    return { json: result, text: revisionText('wrote', result) };
  });
}

export function readCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const revision = stringFlag(ctx, 'revision');
  const args = checkArgs('read', {
    ...vaultArg(ctx),
    asset_id: positional(ctx, 'id'),
    ...(revision === undefined ? {} : { revision_id: revision }),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('read', args);
    if (result.state !== 'live' && !ctx.args.global.json) {
      ctx.io.stderr.write(
        `memories: note: ${result.asset_id} is ${result.state} (${result.heads.length} heads)\n`,
      );
    }
    const body = result.body.endsWith('\n') ? result.body.slice(0, -1) : result.body;
    return { json: result, text: result.kind === 'card' ? `${body}\n${cardDetails(result)}` : body };
  });
}

export function listCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('list', {
    ...vaultArg(ctx),
    ...(boolFlag(ctx, 'all') ? { include_deleted: true } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('list', args);
    return { json: result, text: assetTable(result.assets) };
  });
}

export function historyCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('history', { ...vaultArg(ctx), asset_id: positional(ctx, 'id') });
  return withSession(ctx, async (s) => {
    const result = await s.call('history', args);
    return { json: result, text: historyTable(result.revisions) };
  });
}

export function diffCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('diff', {
    ...vaultArg(ctx),
    asset_id: positional(ctx, 'id'),
    from: positional(ctx, 'from'),
    to: positional(ctx, 'to'),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('diff', args);
    return { json: result, text: result.diff.endsWith('\n') ? result.diff.slice(0, -1) : result.diff };
  });
}

export function deleteCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('delete', { ...vaultArg(ctx), asset_id: positional(ctx, 'id') });
  return withSession(ctx, async (s) => {
    const result = await s.call('delete', args);
    return { json: result, text: revisionText('deleted', result) };
  });
}

export async function resolveCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('resolve', {
    ...vaultArg(ctx),
    asset_id: positional(ctx, 'id'),
    ...(await titleAndBody(ctx)),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('resolve', args);
    return { json: result, text: revisionText('resolved', result) };
  });
}

/** Parses and checks every item first, then sends batches; a failed batch reports what was already imported. */
export function importCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const items = readImportSource(resolve(ctx.io.cwd, positional(ctx, 'path')));
  const batches = batchItems(items).map((batch) => checkArgs('import', { ...vaultArg(ctx), items: batch }));
  return withSession(ctx, async (s) => {
    const imported: VaultOpResults['import']['imported'] = [];
    let vault = ctx.args.flags['vault'] as string | undefined;
    for (const batch of batches) {
      try {
        const result = await s.call('import', batch);
        vault = result.vault;
        imported.push(...result.imported);
      } catch (error) {
        if (imported.length > 0 && error instanceof Error) {
          error.message = `${error.message} (${imported.length} of ${items.length} items were imported before this failure)`;
        }
        throw error;
      }
    }
    return {
      json: { vault: vault ?? null, imported },
      text: `imported ${imported.length} memories into vault ${vault ?? '-'} (${batches.length} request${batches.length === 1 ? '' : 's'})`,
    };
  });
}
