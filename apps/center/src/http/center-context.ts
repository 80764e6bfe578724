// Everything the HTTP layer needs, built once per Center instance (center-app.ts).
import {
  type Authenticator,
  type CenterStore,
  type GrantService,
  type HostedPairingService,
  type MaintenanceService,
  type MemberService,
  type RequestService,
  type SaasService,
  type TicketService,
} from '@arslan/center-domain';
import { type CenterConfig } from '../config';
import { type Metrics } from './metrics';

export const CENTER_CONTEXT = Symbol('CENTER_CONTEXT');

export interface CenterContext {
  readonly config: CenterConfig;
  readonly store: CenterStore;
  readonly auth: Authenticator;
  readonly grants: GrantService;
  readonly members: MemberService;
  readonly requests: RequestService;
  readonly tickets: TicketService;
  readonly maintenance: MaintenanceService;
  /** Present in saas mode only (CTR-5). */
  readonly saas: SaasService | null;
  /** Hosted device pairing by scan (SEAL-9); saas mode only, like the devices it pairs. */
  readonly pairing: HostedPairingService | null;
  readonly metrics: Metrics;
  /** GRANT-12: lock suspends grants without revoking them; in memory, so a restart unlocks. */
  readonly lock: { locked: boolean };
}

/** The context travels on the Fastify instance, so stateless passport strategies can find it. */
export function contextOf(request: unknown): CenterContext {
  const ctx = (request as { server?: { arslanCenter?: CenterContext } }).server?.arslanCenter;
  if (!ctx) throw new Error('Center context missing on the Fastify instance');
  return ctx;
}
