// End-to-end over real HTTP against a Center on SQLite (requirement IDs in test names).
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

describe('Center e2e on SQLite', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
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

describe('Center e2e on SQLite, saas mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', {
      overrides: { mode: 'saas', storePassword: 'correct horse battery staple' },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });
  saasSuite(() => h);
});
