// `memories card write|link|graph` (MCP-5 ops from the terminal). Secret values come from a hidden
// prompt or one stdin line per `--secret LABEL`, never from argv (IPC-17, CRED-1).
import { resolve } from 'node:path';
import { CARD_LABEL_PATTERN, type VaultOpArgs } from '@arslan/protocol';
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
import { table } from './output-format';
import { readTextFile } from './read-text-file';
import { type TtyInput, promptHidden } from './tty-prompt';

function vaultArg(ctx: CommandContext): { vault?: string } {
  const vault = stringFlag(ctx, 'vault');
  return vault === undefined ? {} : { vault };
}

export function listFlag(ctx: CommandContext, name: string): string[] {
  const value = ctx.args.flags[name];
  return Array.isArray(value) ? value : [];
}

/** `--field k=v` (repeatable); `k=` clears the field on update (OTP-9). */
function fieldsArg(ctx: CommandContext): { fields?: Record<string, string> } {
  const given = listFlag(ctx, 'field');
  if (given.length === 0) return {};
  const fields = new Map<string, string>();
  for (const entry of given) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--field needs NAME=VALUE, got ${JSON.stringify(entry.slice(0, 40))}`);
    const name = entry.slice(0, eq);
    if (fields.has(name)) throw new UsageError(`--field ${name} given more than once`);
    fields.set(name, entry.slice(eq + 1));
  }
  return { fields: Object.fromEntries(fields) };
}

/** One value per label: a hidden TTY prompt each, or one stdin line each (in --secret order). */
async function secretValues(ctx: CommandContext, labels: readonly string[]): Promise<Record<string, string>> {
  const values = new Map<string, string>();
  const tty = ctx.io.stdin;
  for (const label of labels) {
    let value: string | null;
    if (ctx.io.isTTY) {
      if (typeof tty.setRawMode !== 'function')
        throw new UsageError('no terminal to ask for the secret value');
      value = await promptHidden(tty as TtyInput, ctx.io.stderr, `Secret ${label}: `);
    } else {
      value = await ctx.reader.readLine();
      if (value === null)
        throw new UsageError(`--secret: expected ${labels.length} line(s) on stdin (missing: ${label})`);
    }
    values.set(label, value);
  }
  return Object.fromEntries(values);
}

/** --body, or --body-file F (`-`: the rest of stdin, after the secret lines). Absent: keep / empty. */
async function cardBody(ctx: CommandContext): Promise<{ body?: string }> {
  const body = stringFlag(ctx, 'body');
  const bodyFile = stringFlag(ctx, 'body-file');
  if (body !== undefined && bodyFile !== undefined)
    throw new UsageError('give --body or --body-file, not both');
  if (body !== undefined) return { body };
  if (bodyFile === undefined) return {};
  if (bodyFile === '-') {
    if (ctx.io.isTTY) throw new UsageError('--body-file - needs the body piped on stdin');
    return { body: await ctx.reader.readAll() };
  }
  const path = resolve(ctx.io.cwd, bodyFile);
  return { body: readTextFile(path, `--body-file ${path}`) };
}

export async function cardWriteCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const title = stringFlag(ctx, 'title');
  if (title === undefined) throw new UsageError('`card write` needs --title');
  const asset = stringFlag(ctx, 'asset');
  const labels = listFlag(ctx, 'secret');
  const base = {
    ...vaultArg(ctx),
    ...(asset === undefined ? {} : { card_id: asset }),
    title,
    ...fieldsArg(ctx),
  };
  // Labels (and the other args) are checked before any secret is typed; values first, then a piped body.
  for (const [i, label] of labels.entries()) {
    if (!CARD_LABEL_PATTERN.test(label))
      throw new UsageError(
        '--secret takes a LABEL (1-64 of a-z 0-9 _ . -); the value is prompted, never given in argv',
      );
    if (labels.indexOf(label) !== i) throw new UsageError(`--secret ${label} given more than once`);
  }
  checkArgs('card_write', base);
  const secrets = labels.length > 0 ? { secrets: await secretValues(ctx, labels) } : {};
  const args: VaultOpArgs<'card_write'> = checkArgs('card_write', {
    ...base,
    ...(await cardBody(ctx)),
    ...secrets,
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('card_write', args);
    return { json: result, text: `wrote card ${result.card_id} revision ${result.revision_id}` };
  });
}

export function cardLinkCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const rel = stringFlag(ctx, 'rel');
  if (rel === undefined) throw new UsageError('`card link` needs --rel');
  const args = checkArgs('card_link', {
    ...vaultArg(ctx),
    from: positional(ctx, 'from'),
    to: positional(ctx, 'to'),
    rel,
    ...(boolFlag(ctx, 'remove') ? { remove: true } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('card_link', args);
    const verb = args.remove ? 'unlinked' : 'linked';
    const text = result.changed
      ? `${verb} ${result.from} -[${result.rel}]-> ${result.to} (revision ${result.revision_id})`
      : `unchanged: ${result.from} -[${result.rel}]-> ${result.to} ${args.remove ? 'was not' : 'already'} linked`;
    return { json: result, text };
  });
}

export function cardGraphCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const depthText = stringFlag(ctx, 'depth');
  let depth: number | undefined;
  if (depthText !== undefined) {
    if (!/^[0-9]+$/.test(depthText)) throw new UsageError('--depth: a number 1-3');
    depth = Number(depthText);
  }
  const args = checkArgs('card_graph', {
    ...vaultArg(ctx),
    card_id: positional(ctx, 'id'),
    ...(depth === undefined ? {} : { depth }),
  });
  return withSession(ctx, async (s) => {
    const g = await s.call('card_graph', args);
    const titles = new Map(g.nodes.map((n) => [n.card_id, n.title]));
    const nodes = table(
      ['CARD ID', 'TITLE'],
      g.nodes.map((n) => [n.card_id, oneLine(n.title)]),
    );
    const edges =
      g.edges.length === 0
        ? 'no links'
        : g.edges
            .map(
              (e) =>
                `${oneLine(titles.get(e.from) ?? e.from)} -[${e.rel}]-> ${oneLine(titles.get(e.to) ?? e.to)}`,
            )
            .join('\n');
    const note = g.truncated ? '\n(truncated: too many cards)' : '';
    return { json: g, text: `${nodes}\n\n${edges}${note}` };
  });
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}
