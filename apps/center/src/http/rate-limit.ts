// Per-client fixed-window rate limit (no @fastify/rate-limit in the pinned set) and the
// request metrics hook. Health probes are exempt from the limit.
import { type FastifyInstance } from 'fastify';
import { type Metrics } from './metrics';

const EXEMPT = new Set(['/livez', '/readyz', '/metrics']);

export function installRateLimit(
  fastify: FastifyInstance,
  limit: { max: number; windowMs: number },
  metrics: Metrics,
): void {
  let windowStart = Date.now();
  let counts = new Map<string, number>();
  fastify.addHook('onRequest', (request, reply, done) => {
    (request as { startedAt?: bigint }).startedAt = process.hrtime.bigint();
    if (EXEMPT.has(request.url)) return done();
    const now = Date.now();
    if (now - windowStart >= limit.windowMs) {
      windowStart = now;
      counts = new Map();
    }
    const key = request.ip;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > limit.max) {
      const retry = Math.ceil((windowStart + limit.windowMs - now) / 1000);
      void reply
        .status(429)
        .header('retry-after', String(retry))
        .send({
          error: { code: 'rate_limited', message: `at most ${limit.max} requests per ${limit.windowMs} ms` },
        });
      return;
    }
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const started = (request as { startedAt?: bigint }).startedAt;
    const seconds = started ? Number(process.hrtime.bigint() - started) / 1e9 : 0;
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, seconds);
    done();
  });
}
