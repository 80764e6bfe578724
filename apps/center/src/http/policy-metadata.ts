// The metadata key and shape every route carries (see route-policy.ts).
import { type GrantAction } from '@arslan/policy';

export const ROUTE_POLICY = 'arslan:route-policy';

export type RoutePolicy =
  | { readonly kind: 'public'; readonly reason: string }
  | { readonly kind: 'admin' }
  | { readonly kind: 'content'; readonly action: GrantAction };
