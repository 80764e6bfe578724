// `memories mcp …` (MCP-1..4, GRANT-*, REQ-*): terminal grant management and the stdio MCP server.
// The capability token goes only into the grant file (mode 0600, created exclusively) and never
// to the terminal, argv, logs or errors (MCP-1, GRANT-10).
import { closeSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type GrantSummary,
  IpcError,
  type McpToolName,
  type RequestSummary,
  type VaultOpResults,
} from '@arslan/protocol';
import { centerTicket } from './center-ticket';
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
import type { DaemonSession } from './daemon-connector';
import {
  createGrantFile,
  discardGrantFile,
  GRANT_FILE_KIND,
  readGrantFile,
  writeGrantFile,
} from './mcp/grant-file';
import { BoundedStdioTransport } from './mcp/bounded-stdio.transport';
import { createVaultMcpServer } from './mcp/vault-mcp.server';
import { table } from './output-format';

type Scope = 'read' | 'read_write' | 'read_write_delete';

function minutesFlag(ctx: CommandContext, required: boolean): number | undefined {
  const raw = stringFlag(ctx, 'minutes');
  if (raw === undefined) {
    if (required) throw new UsageError('--minutes N is required (1-60)');
    return undefined;
  }
  if (!/^[0-9]{1,2}$/.test(raw) || Number(raw) < 1 || Number(raw) > 60)
    throw new UsageError('--minutes must be a whole number from 1 to 60 (GRANT-5)');
  return Number(raw);
}

function scopeFlag(ctx: CommandContext): Scope | undefined {
  const scope = stringFlag(ctx, 'scope');
  if (scope === undefined) return undefined;
  if (scope !== 'read' && scope !== 'read_write' && scope !== 'read_write_delete')
    throw new UsageError('--scope must be read, read_write or read_write_delete');
  return scope;
}

const when = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function grantRows(grants: readonly GrantSummary[]): string {
  if (grants.length === 0) return 'no active grants';
  return table(
    ['GRANT ID', 'VAULT', 'SCOPE', 'DEPTH', 'PARENT', 'EXPIRES'],
    grants.map((g) => [
      g.grant_id,
      g.vault,
      g.scope,
      String(g.depth),
      g.parent_id ?? '-',
      when(g.expires_at),
    ]),
  );
}

function requestRows(requests: readonly RequestSummary[]): string {
  if (requests.length === 0) return 'no requests';
  return table(
    ['REQUEST ID', 'VAULT', 'SCOPE', 'MINUTES', 'STATE', 'REASON'],
    requests.map((r) => [r.request_id, r.vault, r.scope, String(r.minutes), r.state, r.reason.slice(0, 60)]),
  );
}

/** `mcp grant --vault V --minutes N [--write] [--scope S] --out FILE` */
export async function mcpGrantCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const out = stringFlag(ctx, 'out');
  if (out === undefined)
    throw new UsageError('--out FILE is required: the grant is written only to a file (MCP-1)');
  const vault = stringFlag(ctx, 'vault');
  if (vault === undefined) throw new UsageError('--vault V is required');
  const explicit = scopeFlag(ctx);
  if (explicit !== undefined && boolFlag(ctx, 'write'))
    throw new UsageError('give --write or --scope, not both');
  const scope: Scope = explicit ?? (boolFlag(ctx, 'write') ? 'read_write' : 'read');
  const ticket = centerTicket(ctx);
  const args = checkArgs('mcp_grant_issue', {
    vault,
    minutes: minutesFlag(ctx, true) as number,
    scope,
    ...(ticket !== undefined ? { center_ticket: ticket } : {}),
  });
  const path = resolve(ctx.io.cwd, out);
  // The file exists (empty, 0600) before the grant does: a path we cannot write never gets a grant.
  const fd = createGrantFile(path);
  let issued: VaultOpResults['mcp_grant_issue'];
  try {
    issued = await withSession(ctx, (s) => s.call('mcp_grant_issue', args));
    const { token, ...summary } = issued;
    writeGrantFile(fd, {
      v: 1,
      kind: GRANT_FILE_KIND,
      token,
      grant_id: summary.grant_id,
      vault: summary.vault,
      scope: summary.scope,
      expires_at: summary.expires_at,
      data_dir: ctx.dataDir,
    });
  } catch (error) {
    discardGrantFile(fd, path);
    throw error;
  }
  closeSync(fd);
  const { token: _token, ...summary } = issued;
  return {
    json: { ...summary, file: path },
    text: `grant ${summary.grant_id} (${summary.scope}, vault ${summary.vault}) expires ${when(summary.expires_at)}\nwritten to ${path} (mode 0600)`,
  };
}

export function mcpListCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const vault = stringFlag(ctx, 'vault');
  const args = checkArgs('mcp_grant_list', vault === undefined ? {} : { vault });
  return withSession(ctx, async (s) => {
    const result = await s.call('mcp_grant_list', args);
    return { json: result, text: grantRows(result.grants) };
  });
}

export function mcpRevokeCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const args = checkArgs('mcp_grant_revoke', { grant_id: positional(ctx, 'grant') });
  return withSession(ctx, async (s) => {
    const result = await s.call('mcp_grant_revoke', args);
    return { json: result, text: `revoked ${result.revoked.length} grant(s): ${result.revoked.join(', ')}` };
  });
}

export function mcpRequestsCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const vault = stringFlag(ctx, 'vault');
  const args = checkArgs('mcp_request_list', vault === undefined ? {} : { vault });
  return withSession(ctx, async (s) => {
    const result = await s.call('mcp_request_list', args);
    return { json: result, text: requestRows(result.requests) };
  });
}

function decideCommand(decision: 'approve' | 'deny') {
  return (ctx: CommandContext): Promise<CommandOutcome> => {
    const scope = decision === 'approve' ? scopeFlag(ctx) : undefined;
    const minutes = decision === 'approve' ? minutesFlag(ctx, false) : undefined;
    const args = checkArgs('mcp_request_decide', {
      request_id: positional(ctx, 'request'),
      decision,
      ...(scope ? { scope } : {}),
      ...(minutes ? { minutes } : {}),
    });
    return withSession(ctx, async (s) => {
      const result = await s.call('mcp_request_decide', args);
      return {
        json: result,
        text: `request ${result.request_id} ${result.state} (${result.scope}, ${result.minutes} min)`,
      };
    });
  };
}

export const mcpApproveCommand = decideCommand('approve');
export const mcpDenyCommand = decideCommand('deny');

/**
 * `mcp serve --grant-file FILE`: serves MCP on this process's stdin/stdout until stdin ends.
 * Nothing but protocol traffic goes to stdout; the daemon is reached over its local socket.
 */
export async function mcpServeCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const file = stringFlag(ctx, 'grant-file');
  if (file === undefined) throw new UsageError('--grant-file FILE is required');
  const grant = readGrantFile(resolve(ctx.io.cwd, file));
  const dataDir = ctx.args.global.data !== undefined ? ctx.dataDir : grant.data_dir;
  let session: DaemonSession | undefined;
  const connect = async (): Promise<DaemonSession> => (session ??= await ctx.deps.connector.connect(dataDir));
  const forward = async (tool: McpToolName, args: Record<string, unknown>) => {
    const call = async () =>
      (await connect()).call('mcp_call', { token: grant.token, tool, arguments: args });
    try {
      return await call();
    } catch (error) {
      if (error instanceof IpcError) throw error;
      // The daemon closed an idle connection or restarted: one fresh connection, then give up.
      await Promise.resolve(session?.close()).catch(() => undefined);
      session = undefined;
      return call();
    }
  };
  const server = createVaultMcpServer(forward, '1.0.0');
  const transport = new BoundedStdioTransport(
    ctx.io.stdin,
    ctx.io.stdout as unknown as NodeJS.WritableStream,
  );
  // Set before connect: the SDK keeps this handler and chains its own after it.
  const closed = new Promise<void>((done) => (transport.onclose = done));
  await server.connect(transport);
  await closed;
  await Promise.resolve(session?.close()).catch(() => undefined);
  return { json: null, text: '', silent: true };
}
