// pino (Fastify's logger) with the Center's redaction paths never prints bearer tokens, credentials,
// tickets or secrets, even when a log call is handed them.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { LOG_REDACT_PATHS } from './center-app';

describe('log redaction', () => {
  it('censors authorization headers and token/credential/ticket/secret fields', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = Fastify({
      logger: { level: 'info', stream, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } },
    });
    app.log.info({ req: { headers: { authorization: 'Bearer acg_SECRET1' } } }, 'request');
    app.log.info({ token: 'acg_SECRET2', credential: 'acm_SECRET3', ticket: 'act_SECRET4' }, 'issued');
    app.log.info(
      { body: { token: 'acg_SECRET5', secret: 'pin-SECRET6', storePassword: 'SECRET7' } },
      'nested',
    );
    await app.close();
    const out = lines.join('');
    expect(out).not.toMatch(/SECRET\d/);
    expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
  });
});
