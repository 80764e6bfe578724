// The Center's end-to-end suites against one database: ticket mode (every guard, grant, request,
// ticket, input and audit rule) and saas mode, each on its own running Center over real HTTP.
import { startHarness, type Harness } from '../support/center-harness';
import { saasSuite } from './saas-suite';
import {
  auditSuite,
  authSuite,
  grantLimitSuite,
  grantSuite,
  inputSuite,
  requestSuite,
  ticketSuite,
} from './center-suites';

type Database = Parameters<typeof startHarness>[0];

export function centerE2e(db: Database, label: string): void {
  describe(`Center e2e on ${label}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(db);
    }, 60_000);
    afterAll(async () => {
      await h?.stop();
    });
    const get = (): Harness => h;
    authSuite(get);
    grantSuite(get);
    requestSuite(get);
    ticketSuite(get);
    inputSuite(get);
    describe('limits', () => grantLimitSuite(get));
    auditSuite(get);
  });

  describe(`Center e2e on ${label}, saas mode`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(db, {
        overrides: { mode: 'saas', storePassword: 'correct horse battery staple' },
      });
    }, 60_000);
    afterAll(async () => {
      await h?.stop();
    });
    saasSuite(() => h);
  });
}
