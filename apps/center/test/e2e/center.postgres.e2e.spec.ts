// End-to-end over real HTTP against a Center on PostgreSQL (127.0.0.1:5432, a fresh database
// per run, dropped afterwards).
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

describe('Center e2e on PostgreSQL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('postgresql');
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

describe('Center e2e on PostgreSQL, saas mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('postgresql', {
      overrides: { mode: 'saas', storePassword: 'correct horse battery staple' },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });
  saasSuite(() => h);
});
