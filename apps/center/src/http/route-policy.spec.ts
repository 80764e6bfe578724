// Every route declares its policy: @Public(reason), @AdminRoute() or @ContentRoute(action),
// and admin/content routes carry their guard. Walks the Nest route metadata of every controller.
import 'reflect-metadata';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { CENTER_CONTROLLERS } from '../center-app';
import { AdminGuard, ContentGuard } from './auth.guards';
import { ROUTE_POLICY, type RoutePolicy } from './policy-metadata';

type Route = {
  controller: string;
  method: string;
  policy: RoutePolicy | undefined;
  guards: unknown[];
  path: string;
};

function routes(): Route[] {
  const out: Route[] = [];
  for (const controller of CENTER_CONTROLLERS) {
    const proto = controller.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const handler = proto[name] as object;
      if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
      out.push({
        controller: controller.name,
        method: name,
        path: `${String(Reflect.getMetadata(PATH_METADATA, controller))}/${String(Reflect.getMetadata(PATH_METADATA, handler))}`,
        policy: Reflect.getMetadata(ROUTE_POLICY, handler) as RoutePolicy | undefined,
        guards: (Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? [],
      });
    }
  }
  return out;
}

describe('route policy (CTR-9, CTR-10)', () => {
  const all = routes();

  it('finds the routes', () => {
    expect(all.length).toBeGreaterThanOrEqual(20);
  });

  it.each(all.map((r) => [`${r.controller}.${r.method} ${r.path}`, r] as const))(
    '%s declares a policy and its guard',
    (_n, r) => {
      expect(r.policy).toBeDefined();
      if (r.policy?.kind === 'admin') expect(r.guards).toEqual([AdminGuard]);
      if (r.policy?.kind === 'content') expect(r.guards).toEqual([ContentGuard]);
      if (r.policy?.kind === 'public') {
        expect(r.guards).toEqual([]);
        expect(r.policy.reason.length).toBeGreaterThan(0);
      }
    },
  );

  it('admin routes live under /v1/admin and content routes never do', () => {
    for (const r of all) {
      if (r.policy?.kind === 'admin') expect(r.path.startsWith('v1/admin/')).toBe(true);
      else expect(r.path.startsWith('v1/admin')).toBe(false);
    }
  });

  it('only probes, metrics and ticket redemption are public', () => {
    expect(
      all
        .filter((r) => r.policy?.kind === 'public')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['//livez', '//metrics', '//readyz', 'v1/tickets/redeem'].sort());
  });
});
