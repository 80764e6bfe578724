// The hosted content surface: grants, permission requests, tickets. Member credentials
// (depth 0) or grant tokens; the admin bearer gets 401 here (CTR-9).
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  CenterError,
  type ContentPrincipal,
  type IssuedGrant,
  type IssuedTicket,
  type PairingOffer,
  type PublicGrant,
  type PublicRequest,
  type RedeemedTicket,
  type SaasService,
} from '@arslan/center-domain';
import { assertUnreachable } from '@arslan/util';
import { CENTER_CONTEXT, type CenterContext } from './center-context';
import { Caller, ContentRoute, Public } from './route-policy';
import {
  CreateRequestBody,
  EmptyBody,
  Id,
  IssueGrantBody,
  McpTicketBody,
  PairingOfferBody,
  PairingScanBody,
  parse,
  RedeemBody,
  rejectRoleRequest,
  isRpcOp,
  RPC_PARAMS,
  RpcBody,
  type RpcOp,
  UnlockTicketBody,
  VaultId,
} from './validation';
import { ApiDoc } from '../openapi/api-doc';
import * as S from '../openapi/api-schemas';
import * as V from './validation';

@Controller('v1')
export class ContentController {
  constructor(@Inject(CENTER_CONTEXT) private readonly ctx: CenterContext) {}

  @Get('vaults/:vault/whoami')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'whoami',
    summary: 'The calling credential (a grant-authorised read)',
    response: S.Whoami,
  })
  whoami(@Caller() caller: ContentPrincipal, @Param('vault') vault: string): object {
    parse(VaultId, vault, 'vault');
    return caller.kind === 'member'
      ? { kind: 'member', name: caller.member.name, depth: 0 }
      : {
          kind: 'grant',
          name: caller.grant.subject,
          scope: caller.grant.scope,
          depth: caller.grant.depth,
          grant: caller.grant.id,
        };
  }

  @Post('vaults/:vault/grants')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'issueGrant',
    summary: 'Issue a grant; the token is shown once (GRANT-1..10)',
    body: V.IssueGrantBody,
    response: S.IssuedGrant,
    status: 201,
  })
  issueGrant(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
    @Body() body: unknown,
  ): Promise<IssuedGrant> {
    const b = parse(IssueGrantBody, body);
    return this.ctx.grants.issue(caller, parse(VaultId, vault, 'vault'), {
      to: b.to,
      minutes: b.minutes,
      ...(b.scope ? { scope: b.scope } : {}),
    });
  }

  @Get('vaults/:vault/grants')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'listGrants',
    summary: 'Grants visible to the caller (never tokens)',
    response: S.GrantList,
  })
  async listGrants(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
  ): Promise<{ grants: PublicGrant[] }> {
    return { grants: await this.ctx.grants.list(caller, parse(VaultId, vault, 'vault')) };
  }

  @Delete('vaults/:vault/grants/:id')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'revokeGrant',
    summary: 'Revoke a grant and its descendants (GRANT-14)',
    response: S.Revoked,
  })
  async revokeGrant(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
    @Param('id') id: string,
  ): Promise<{ revoked: string[] }> {
    return {
      revoked: await this.ctx.grants.revoke(caller, parse(VaultId, vault, 'vault'), parse(Id, id, 'id')),
    };
  }

  @Post('vaults/:vault/requests')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'createRequest',
    summary: 'Create a scope request (REQ-1, REQ-6, REQ-9)',
    body: V.CreateRequestBody,
    response: S.PublicRequest,
    status: 201,
  })
  createRequest(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
    @Body() body: unknown,
  ): Promise<PublicRequest> {
    rejectRoleRequest(body);
    const b = parse(CreateRequestBody, body);
    return this.ctx.requests.create(caller, parse(VaultId, vault, 'vault'), {
      minutes: b.minutes,
      ...(b.scope ? { scope: b.scope } : {}),
    });
  }

  @Get('vaults/:vault/requests')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'listRequests',
    summary: 'Permission requests visible to the caller',
    response: S.RequestList,
  })
  async listRequests(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
  ): Promise<{ requests: PublicRequest[] }> {
    return { requests: await this.ctx.requests.list(caller, parse(VaultId, vault, 'vault')) };
  }

  @Post('vaults/:vault/requests/:id/approve')
  @ContentRoute('read')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'approveRequest',
    summary: 'Approve: records bounds, no token (REQ-2, REQ-7, REQ-8)',
    body: S.NoBody,
    response: S.PublicRequest,
  })
  approve(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<PublicRequest> {
    parse(EmptyBody, body);
    return this.ctx.requests.approve(c, parse(VaultId, v, 'vault'), parse(Id, id, 'id'));
  }

  @Post('vaults/:vault/requests/:id/deny')
  @ContentRoute('read')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'denyRequest',
    summary: 'Deny a pending request (REQ-7, REQ-8)',
    body: S.NoBody,
    response: S.PublicRequest,
  })
  deny(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<PublicRequest> {
    parse(EmptyBody, body);
    return this.ctx.requests.deny(c, parse(VaultId, v, 'vault'), parse(Id, id, 'id'));
  }

  @Post('vaults/:vault/requests/:id/cancel')
  @ContentRoute('read')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'cancelRequest',
    summary: 'The requester withdraws a pending request',
    body: S.NoBody,
    response: S.PublicRequest,
  })
  cancel(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<PublicRequest> {
    parse(EmptyBody, body);
    return this.ctx.requests.cancel(c, parse(VaultId, v, 'vault'), parse(Id, id, 'id'));
  }

  @Post('vaults/:vault/requests/:id/claim')
  @ContentRoute('read')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'claimRequest',
    summary: 'Claim once; the token is shown once (REQ-3)',
    body: S.NoBody,
    response: S.IssuedGrant,
  })
  claim(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<IssuedGrant> {
    parse(EmptyBody, body);
    return this.ctx.requests.claim(c, parse(VaultId, v, 'vault'), parse(Id, id, 'id'));
  }

  @Post('vaults/:vault/tickets/unlock')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'issueUnlockTicket',
    summary: 'Reusable unlock ticket, local password unlock only (CTR-4)',
    body: V.UnlockTicketBody,
    response: S.IssuedTicket,
    status: 201,
  })
  unlockTicket(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Body() body: unknown,
  ): Promise<IssuedTicket> {
    return this.ctx.tickets.unlock(c, parse(VaultId, v, 'vault'), parse(UnlockTicketBody, body).minutes);
  }

  @Post('vaults/:vault/tickets/mcp-grant')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'issueMcpGrantTicket',
    summary: 'Single-use MCP-grant ticket (CTR-3)',
    body: V.McpTicketBody,
    response: S.IssuedTicket,
    status: 201,
  })
  mcpTicket(
    @Caller() c: ContentPrincipal,
    @Param('vault') v: string,
    @Body() body: unknown,
  ): Promise<IssuedTicket> {
    const b = parse(McpTicketBody, body);
    return this.ctx.tickets.mcpGrant(c, parse(VaultId, v, 'vault'), {
      minutes: b.minutes,
      ...(b.scope ? { scope: b.scope } : {}),
    });
  }

  @Post('tickets/redeem')
  @Public('the ticket in the body is its own credential')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'redeemTicket',
    summary: 'Redeem a ticket (single-use kinds are consumed)',
    body: V.RedeemBody,
    response: S.RedeemedTicket,
  })
  redeem(@Body() body: unknown): Promise<RedeemedTicket> {
    const { ticket, kind, vault } = parse(RedeemBody, body);
    return this.ctx.tickets.redeem(ticket, { ...(kind ? { kind } : {}), ...(vault ? { vault } : {}) });
  }

  /** SEAL-9: the new device gets a single-use pairing code and a QR payload to show. */
  @Post('vaults/:vault/devices/pairing-offer')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'offerDevicePairing',
    summary: 'Hosted pairing: a QR payload for a new device (SEAL-9; member credential)',
    body: V.PairingOfferBody,
    response: S.PairingOffer,
    status: 201,
  })
  pairingOffer(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
    @Body() body: unknown,
  ): Promise<PairingOffer> {
    const b = parse(PairingOfferBody, body);
    return this.pairing().offer(caller, parse(VaultId, vault, 'vault'), b);
  }

  /** SEAL-9: a paired device submits the scanned payload with its own authorisation (SEAL-5). */
  @Post('vaults/:vault/devices/pairing-scan')
  @ContentRoute('read')
  @ApiDoc({
    operationId: 'scanDevicePairing',
    summary: 'Hosted pairing: a paired device authorises the scanned device (SEAL-5, SEAL-9)',
    body: V.PairingScanBody,
    response: S.PairedDevice,
    status: 201,
  })
  pairingScan(
    @Caller() caller: ContentPrincipal,
    @Param('vault') vault: string,
    @Body() body: unknown,
  ): Promise<{ id: string; member: string }> {
    const b = parse(PairingScanBody, body);
    return this.pairing().scan(caller, parse(VaultId, vault, 'vault'), b);
  }

  private pairing() {
    if (!this.ctx.pairing)
      throw new CenterError('unsupported_operation', 'ticket mode pairs no hosted devices (CTR-3)');
    return this.ctx.pairing;
  }

  /** CTR-7/CTR-8: the content RPC. Unsupported operations fail here; there is no fallback. */
  @Post('rpc')
  @ContentRoute('read')
  @HttpCode(200)
  @ApiDoc({
    operationId: 'rpc',
    summary: 'Content RPC (saas mode; CTR-7, CTR-8)',
    body: V.RpcBody,
    response: S.RpcResult,
  })
  rpc(@Caller() caller: ContentPrincipal, @Body() body: unknown): Promise<unknown> {
    const b = parse(RpcBody, body);
    if (caller.kind === 'grant' && caller.grant.vault !== b.vault) {
      throw new CenterError('insufficient_scope', 'the grant is for another vault');
    }
    const saas = this.ctx.saas;
    if (!saas) {
      throw new CenterError(
        'unsupported_operation',
        'ticket mode holds no content: content stays on devices (CTR-3)',
      );
    }
    if (!isRpcOp(b.op))
      throw new CenterError(
        'unsupported_operation',
        `operation ${b.op} is not supported by this Center (CTR-8)`,
      );
    return dispatchRpc(saas, caller, b.vault, b.op, b.params ?? {});
  }
}

function dispatchRpc(
  saas: SaasService,
  caller: ContentPrincipal,
  vault: string,
  op: RpcOp,
  raw: unknown,
): Promise<unknown> {
  switch (op) {
    case 'card.put':
      return saas.putCard(caller, vault, stripUndefined(parse(RPC_PARAMS[op], raw, 'params')));
    case 'card.get': {
      const p = parse(RPC_PARAMS[op], raw, 'params');
      return saas.getCard(caller, vault, p.id, p.device);
    }
    case 'card.list':
      parse(RPC_PARAMS[op], raw, 'params');
      return saas.listCards(caller, vault).then((cards) => ({ cards }));
    case 'card.delete':
      return saas.deleteCard(caller, vault, parse(RPC_PARAMS[op], raw, 'params').id);
    case 'card.set_e2e': {
      const p = parse(RPC_PARAMS[op], raw, 'params');
      return saas.setE2e(caller, vault, p.id, p.e2e);
    }
    case 'device.add':
      return saas.addDevice(caller, vault, parse(RPC_PARAMS[op], raw, 'params'));
    case 'device.list':
      parse(RPC_PARAMS[op], raw, 'params');
      return saas.listDevices(caller, vault).then((devices) => ({ devices }));
    case 'device.revoke':
      return saas.revokeDevice(caller, vault, parse(RPC_PARAMS[op], raw, 'params').id);
    default:
      return assertUnreachable(op, 'rpc op');
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
