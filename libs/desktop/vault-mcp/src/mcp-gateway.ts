// The daemon side of `memories mcp serve` (MCP-6..14): every call carries its capability; the
// capability is checked (known, unexpired, unrevoked, not suspended by lock, vault, scope, kind)
// before anything is dispatched. It never consults terminal elevation (MCP-7).
import type { GrantVaultContext, VaultService } from '@arslan/desktop-vault';
import { roleCap, scopeAllows, scopeAtMost } from '@arslan/policy';
import {
  type GrantSummary,
  IpcError,
  type IssuedGrant,
  MCP_TOOL_SCHEMAS,
  type McpToolArgs,
  type McpToolName,
  type RequestSummary,
  describeIssues,
} from '@arslan/protocol';
import type { RagService } from '@arslan/vault-rag';
import type { GrantRecord, GrantRegistry, RequestRecord } from './grant-registry';
import { TOOL_ACTION, TOOL_KINDS } from './mcp-access';

export interface McpGatewayDeps {
  service: VaultService;
  registry: GrantRegistry;
  rag?: RagService;
}

export function grantSummary(record: GrantRecord): GrantSummary {
  return {
    grant_id: record.id,
    vault: record.vaultName,
    scope: record.scope,
    depth: record.depth,
    parent_id: record.parentId,
    issuer: record.issuer,
    subject: record.subject,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
}

export function issuedGrant(issued: { record: GrantRecord; token: string }): IssuedGrant {
  return { ...grantSummary(issued.record), token: issued.token };
}

export function requestSummary(request: RequestRecord): RequestSummary {
  const { entry } = request;
  return {
    request_id: entry.id,
    vault: entry.vault,
    scope: request.approved?.scope ?? entry.scope,
    minutes: request.approved?.minutes ?? entry.minutes,
    reason: entry.reason,
    requester_grant: entry.requester_grant,
    subject: entry.subject,
    state: request.state,
    created_at: entry.created_at,
    updated_at: request.updatedAt,
  };
}

export class McpGateway {
  constructor(private readonly deps: McpGatewayDeps) {}

  /** Loads the grant table for the current unlock (MCP-9) or refuses while locked. */
  ensureGrants(): GrantRegistry {
    const { service, registry } = this.deps;
    const state = service.state();
    if (!state.initialized) throw new IpcError('not_initialized', 'no vault store yet');
    if (!state.unlocked)
      throw new IpcError('locked', 'the vault is locked; grants are suspended until unlock');
    const generation = service.unlockGeneration();
    if (registry.loadedGeneration() !== generation) registry.load(generation);
    return registry;
  }

  async call(
    token: string,
    tool: McpToolName,
    rawArgs: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const registry = this.ensureGrants();
    const grant = registry.authenticate(token);
    const schema = MCP_TOOL_SCHEMAS[tool];
    const parsed = schema.safeParse(rawArgs);
    if (!parsed.success)
      throw new IpcError(
        'bad_request',
        `invalid arguments for ${tool}: ${describeIssues(parsed.error.issues)}`,
      );
    const args = parsed.data as McpToolArgs<McpToolName> & { vault: string };
    const context = this.coveredVault(grant, args.vault);
    // GRANT-15: a grant whose issuer or holder lost the membership (or the role) it needs is dead.
    const roles = new Map(context.members.map((m) => [m.name, m.role]));
    for (const name of [grant.issuer, grant.subject]) {
      const role = roles.get(name);
      if (!role || !scopeAtMost(grant.scope, roleCap(role)))
        throw new IpcError('unauthorized', 'the grant was invalidated by a membership change (GRANT-15)');
    }
    if (!scopeAllows(grant.scope, TOOL_ACTION[tool]))
      throw new IpcError('forbidden', `a ${grant.scope} grant cannot ${TOOL_ACTION[tool]} (${tool})`);
    const kinds = TOOL_KINDS[tool];
    if (kinds) this.requireKind(args as { vault: string; asset_id?: string }, kinds, tool);
    return this.dispatch(tool, args, grant, context);
  }

  /** MCP-6: the named vault must be the grant's vault (by id: a re-created name is another vault). */
  private coveredVault(grant: GrantRecord, vault: string): GrantVaultContext {
    const { service } = this.deps;
    const known = service.state().vaults.find((v) => v.name === vault);
    if (!known || known.vault_id !== grant.vault)
      throw new IpcError('forbidden', `this grant does not cover vault ${vault}`);
    return service.grantContext(vault);
  }

  private requireKind(
    args: { vault: string; asset_id?: string },
    kinds: readonly string[],
    tool: McpToolName,
  ): void {
    if (args.asset_id === undefined) return; // a new memory
    const kind = this.deps.service.assetKind(args.vault, args.asset_id);
    if (!kinds.includes(kind))
      throw new IpcError('forbidden', `${tool} cannot act on a ${kind} asset over MCP`);
  }

  private rag(): RagService {
    if (!this.deps.rag) throw new IpcError('bad_request', 'retrieval is not enabled in this daemon');
    return this.deps.rag;
  }

  private async dispatch(
    tool: McpToolName,
    a: McpToolArgs<McpToolName> & { vault: string },
    grant: GrantRecord,
    context: GrantVaultContext,
  ): Promise<Record<string, unknown>> {
    const { service, registry } = this.deps;
    switch (tool) {
      case 'memory_search':
        return this.rag().search(a as McpToolArgs<'memory_search'>);
      case 'memory_retrieve':
        return this.rag().retrieve('retrieve', a as McpToolArgs<'memory_retrieve'>);
      case 'memory_ask':
        return this.rag().ask(a as McpToolArgs<'memory_ask'>);
      case 'memory_read':
      case 'memory_read_revision':
        return { ...service.read(a as McpToolArgs<'memory_read_revision'>) };
      case 'memory_history':
        return service.history(a as McpToolArgs<'memory_history'>);
      case 'memory_diff':
        return service.diff(a as McpToolArgs<'memory_diff'>);
      case 'memory_write':
        return service.write({ ...(a as McpToolArgs<'memory_write'>), kind: 'memory' });
      case 'memory_delete':
        return service.delete(a as McpToolArgs<'memory_delete'>);
      case 'card_write':
        return service.cardWrite(a as McpToolArgs<'card_write'>, 'mcp');
      case 'card_link':
        return service.cardLink(a as McpToolArgs<'card_link'>);
      case 'card_graph':
        return service.cardGraph(a as McpToolArgs<'card_graph'>);
      case 'grant_issue': {
        const { minutes, scope } = a as McpToolArgs<'grant_issue'>;
        const issued = registry.issue({ context, scope: scope ?? 'read', minutes, parent: grant });
        this.audit('grant.issue', issued.record, 'mcp');
        return { ...issuedGrant(issued) };
      }
      case 'grant_list':
        return { grants: registry.list({ within: grant }).map(grantSummary) };
      case 'grant_revoke': {
        const revoked = registry.revoke((a as McpToolArgs<'grant_revoke'>).grant_id, grant);
        this.deps.service.recordEvent('grant.revoke', { grants: revoked, surface: 'mcp' });
        return { revoked };
      }
      case 'grant_request': {
        const { scope, minutes, reason } = a as McpToolArgs<'grant_request'>;
        return { ...requestSummary(registry.request(grant, { scope, minutes, reason: reason ?? '' })) };
      }
      case 'grant_claim': {
        const issued = registry.claim(grant, (a as McpToolArgs<'grant_claim'>).request_id, context);
        this.audit('grant.claim', issued.record, 'mcp');
        return { ...issuedGrant(issued) };
      }
      default:
        throw new IpcError('unknown_op', 'unknown tool');
    }
  }

  /** AUD-5: ids and bounds only, never a token or its digest. */
  audit(kind: string, record: GrantRecord, surface: 'mcp' | 'terminal'): void {
    this.deps.service.recordEvent(kind, {
      grant: record.id,
      vault: record.vaultName,
      scope: record.scope,
      depth: record.depth,
      parent: record.parentId,
      expires_at: record.expiresAt,
      surface,
    });
  }
}
