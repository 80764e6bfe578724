// Every route declares exactly one policy: @Public(), @AdminRoute() or @ContentRoute(action).
// apps/center/src/http/route-policy.spec.ts walks the Nest route metadata and fails on any
// route without one.
import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { type GrantAction } from '@arslan/policy';
import { type ContentPrincipal } from '@arslan/center-domain';
import { AdminGuard, ContentGuard } from './auth.guards';
import { ROUTE_POLICY, type RoutePolicy } from './policy-metadata';

/** No credential needed; `reason` says why (health probes, a ticket that is its own credential). */
export const Public = (reason: string): MethodDecorator =>
  applyDecorators(SetMetadata(ROUTE_POLICY, { kind: 'public', reason } satisfies RoutePolicy));

/** The admin bearer only (CTR-9): members, lock, unlock, enrollment. */
export const AdminRoute = (): MethodDecorator =>
  applyDecorators(SetMetadata(ROUTE_POLICY, { kind: 'admin' } satisfies RoutePolicy), UseGuards(AdminGuard));

/** Member credential or grant token; a grant must be for the route's vault and cover `action`. */
export const ContentRoute = (action: GrantAction): MethodDecorator =>
  applyDecorators(
    SetMetadata(ROUTE_POLICY, { kind: 'content', action } satisfies RoutePolicy),
    UseGuards(ContentGuard),
  );

/** The authenticated content caller. */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext): ContentPrincipal => {
  return ctx.switchToHttp().getRequest<{ user: ContentPrincipal }>().user;
});
