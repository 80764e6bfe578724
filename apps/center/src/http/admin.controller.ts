// Server administration with the admin bearer (CTR-9): members, roles, lock, unlock, enrollment.
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { type IssuedTicket, type RosterEntry } from '@arslan/center-domain';
import { CENTER_CONTEXT, type CenterContext } from './center-context';
import { AdminRoute } from './route-policy';
import {
  CreateMemberBody,
  EmptyBody,
  EnrollmentBody,
  MemberName,
  parse,
  SetRoleBody,
  VaultId,
} from './validation';
import { ApiDoc } from '../openapi/api-doc';
import * as S from '../openapi/api-schemas';
import * as V from './validation';

@Controller('v1/admin')
export class AdminController {
  constructor(@Inject(CENTER_CONTEXT) private readonly ctx: CenterContext) {}

  @Post('members')
  @AdminRoute()
  @ApiDoc({
    operationId: 'createMember',
    summary: 'Create a member; its credential is shown once',
    body: V.CreateMemberBody,
    response: S.CreatedMember,
    status: 201,
  })
  createMember(@Body() body: unknown): Promise<{ name: string; credential: string }> {
    return this.ctx.members.create(parse(CreateMemberBody, body).name);
  }

  @Delete('members/:name')
  @AdminRoute()
  @ApiDoc({
    operationId: 'removeMember',
    summary: 'Delete a member; invalidates their grants (GRANT-15)',
    response: S.Invalidated,
  })
  removeMember(@Param('name') name: string): Promise<{ invalidated: number }> {
    return this.ctx.members.remove(parse(MemberName, name, 'member name'));
  }

  @Get('vaults/:vault/members')
  @AdminRoute()
  @ApiDoc({ operationId: 'listVaultMembers', summary: 'Members and roles of a vault', response: S.Roster })
  async roster(@Param('vault') vault: string): Promise<{ members: RosterEntry[] }> {
    return { members: await this.ctx.members.roster(parse(VaultId, vault, 'vault')) };
  }

  @Put('vaults/:vault/members/:name')
  @AdminRoute()
  @ApiDoc({
    operationId: 'setMemberRole',
    summary: 'Set a role; invalidates grants above the new cap (GRANT-15)',
    body: V.SetRoleBody,
    response: S.Invalidated,
  })
  setRole(
    @Param('vault') vault: string,
    @Param('name') name: string,
    @Body() body: unknown,
  ): Promise<{ invalidated: number }> {
    return this.ctx.members.setRole(
      parse(VaultId, vault, 'vault'),
      parse(MemberName, name, 'member name'),
      parse(SetRoleBody, body).role,
    );
  }

  @Delete('vaults/:vault/members/:name')
  @AdminRoute()
  @ApiDoc({
    operationId: 'removeVaultMember',
    summary: 'Remove a member from a vault (GRANT-15)',
    response: S.Invalidated,
  })
  removeFromVault(
    @Param('vault') vault: string,
    @Param('name') name: string,
  ): Promise<{ invalidated: number }> {
    return this.ctx.members.removeFromVault(
      parse(VaultId, vault, 'vault'),
      parse(MemberName, name, 'member name'),
    );
  }

  @Post('lock')
  @AdminRoute()
  @HttpCode(200)
  @ApiDoc({
    operationId: 'lock',
    summary: 'Suspend every content credential (GRANT-12)',
    body: S.NoBody,
    response: S.LockState,
  })
  lock(@Body() body: unknown): { locked: boolean } {
    parse(EmptyBody, body);
    this.ctx.lock.locked = true;
    return { locked: true };
  }

  @Post('unlock')
  @AdminRoute()
  @HttpCode(200)
  @ApiDoc({
    operationId: 'unlock',
    summary: 'Resume content credentials',
    body: S.NoBody,
    response: S.LockState,
  })
  unlock(@Body() body: unknown): { locked: boolean } {
    parse(EmptyBody, body);
    this.ctx.lock.locked = false;
    return { locked: false };
  }

  @Get('status')
  @AdminRoute()
  @ApiDoc({ operationId: 'status', summary: 'Mode, lock state and database', response: S.Status })
  status(): { mode: string; locked: boolean; database: string } {
    return { mode: this.ctx.config.mode, locked: this.ctx.lock.locked, database: this.ctx.store.provider };
  }

  @Post('sweep')
  @AdminRoute()
  @HttpCode(200)
  @ApiDoc({
    operationId: 'sweep',
    summary: 'Run the expiry purge now (GRANT-13, REQ-10, REQ-11)',
    body: S.NoBody,
    response: S.Sweep,
  })
  sweep(@Body() body: unknown): Promise<object> {
    parse(EmptyBody, body);
    return this.ctx.maintenance.sweep();
  }

  @Post('tickets/enrollment')
  @AdminRoute()
  @ApiDoc({
    operationId: 'issueEnrollmentTicket',
    summary: 'Single-use enrollment ticket (CTR-3)',
    body: V.EnrollmentBody,
    response: S.IssuedTicket,
    status: 201,
  })
  enrollment(@Body() body: unknown): Promise<IssuedTicket> {
    const b = parse(EnrollmentBody, body);
    return this.ctx.tickets.enrollment(b.vault, b.member, b.minutes);
  }
}
