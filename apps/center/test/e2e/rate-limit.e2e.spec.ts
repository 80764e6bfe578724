// Request rate limit: over the window's budget → 429 rate_limited; probes stay exempt.
import { startHarness, type Harness } from '../support/center-harness';

describe('rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { overrides: { rateLimit: { max: 5, windowMs: 60_000 } } });
  });
  afterAll(() => h.stop());

  it('the sixth request in a window gets 429 with a typed error; /livez is exempt', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.call('GET', '/v1/vaults/v/whoami')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await h.call('GET', '/v1/admin/status');
    expect(limited.body).toEqual({
      error: { code: 'rate_limited', message: 'at most 5 requests per 60000 ms' },
    });
    expect((await h.call('GET', '/livez')).status).toBe(200);
  });
});
