// GRANT-13, REQ-10, REQ-11: purge at load time and on a periodic, unref'd timer.
import { GRANTS_LOCK } from './grant.service';
import { type CenterStore, type Clock } from './ports';
import { REQUEST_EXPIRY_MS, REQUEST_PURGE_MS } from './request.service';

export interface SweepResult {
  readonly grantsPurged: number;
  readonly requestsExpired: number;
  readonly requestsPurged: number;
  readonly ticketsPurged: number;
}

export class MaintenanceService {
  constructor(
    private readonly store: CenterStore,
    private readonly clock: Clock,
  ) {}

  sweep(): Promise<SweepResult> {
    const now = this.clock.now();
    return this.store.write([GRANTS_LOCK], async (repos) => {
      let grantsPurged = await repos.deleteExpiredGrants(now);
      for (let n = await repos.deleteOrphanGrants(); n > 0; n = await repos.deleteOrphanGrants())
        grantsPurged += n;
      const requestsExpired = await repos.expirePending(now - REQUEST_EXPIRY_MS, now);
      const requestsPurged = await repos.purgeRequests(now - REQUEST_PURGE_MS);
      const ticketsPurged = await repos.deleteExpiredTickets(now);
      return { grantsPurged, requestsExpired, requestsPurged, ticketsPurged };
    });
  }

  /** Starts the periodic sweep; the timer never keeps the process alive. */
  every(ms: number, onError: (e: unknown) => void): () => void {
    const timer = setInterval(() => void this.sweep().catch(onError), ms);
    timer.unref();
    return () => clearInterval(timer);
  }
}
