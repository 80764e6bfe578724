// Passport bearer strategies (passport-http-bearer) and the guards built on them.
// Strategies are stateless: they find the Center instance through request.server.
import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { scopeAllows } from '@arslan/policy';
import { CenterError, type ContentPrincipal, type Principal } from '@arslan/center-domain';
import { contextOf } from './center-context';
import { type RoutePolicy, ROUTE_POLICY } from './policy-metadata';

export const ADMIN_STRATEGY = 'arslan-admin';
export const CONTENT_STRATEGY = 'arslan-content';

export class AdminBearerStrategy extends PassportStrategy(Strategy, ADMIN_STRATEGY) {
  constructor() {
    super({ passReqToCallback: true });
  }

  async validate(request: unknown, token: string): Promise<Principal> {
    const ctx = contextOf(request);
    if (ctx.auth.isAdminToken(token)) return { kind: 'admin' };
    // A valid content credential is authenticated but not allowed here.
    await ctx.auth.content(token);
    throw new CenterError('admin_only', 'this route needs the admin bearer');
  }
}

export class ContentBearerStrategy extends PassportStrategy(Strategy, CONTENT_STRATEGY) {
  constructor() {
    super({ passReqToCallback: true });
  }

  validate(request: unknown, token: string): Promise<ContentPrincipal> {
    return contextOf(request).auth.content(token);
  }
}

let registered = false;
/** Registers both strategies with passport once per process (they hold no state). */
export function registerStrategies(): void {
  if (registered) return;
  new AdminBearerStrategy();
  new ContentBearerStrategy();
  registered = true;
}

function unauthenticated(err: unknown, user: unknown): never {
  if (err) throw err;
  void user;
  throw new CenterError('unauthenticated', 'a bearer token is required (Authorization: Bearer …)');
}

@Injectable()
export class AdminGuard extends AuthGuard(ADMIN_STRATEGY) {
  override handleRequest<T>(err: unknown, user: T): T {
    if (err || !user) unauthenticated(err, user);
    return user;
  }
}

@Injectable()
export class ContentGuard extends AuthGuard(CONTENT_STRATEGY) {
  override handleRequest<T>(err: unknown, user: T): T {
    if (err || !user) unauthenticated(err, user);
    return user;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const request = context
      .switchToHttp()
      .getRequest<{ user: ContentPrincipal; params?: Record<string, string> }>();
    const ctx = contextOf(request);
    // GRANT-12: while locked, grants (and member credentials) are suspended, not revoked.
    if (ctx.lock.locked) throw new CenterError('center_locked', 'the Center is locked');
    const policy = Reflect.getMetadata(ROUTE_POLICY, context.getHandler()) as RoutePolicy | undefined;
    if (policy?.kind !== 'content') throw new CenterError('forbidden', 'route has no content policy');
    const caller = request.user;
    if (caller.kind === 'grant') {
      const vault = request.params?.vault;
      if (vault !== undefined && vault !== caller.grant.vault) {
        throw new CenterError('insufficient_scope', 'the grant is for another vault');
      }
      if (!scopeAllows(caller.grant.scope, policy.action)) {
        throw new CenterError('insufficient_scope', `${caller.grant.scope} does not allow ${policy.action}`);
      }
    }
    return true;
  }
}
