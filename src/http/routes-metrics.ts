import { timingSafeEqual } from 'node:crypto';
import { InvalidTokenError, MissingTokenError } from '../errors.ts';
import type { MetricsRegistry } from '../metrics/index.ts';
import { tokenSecretOf } from './auth.ts';
import type { RoutePlugin } from './route-scope.ts';

/** What the metrics route needs. */
export interface MetricsRouteOptions {
  readonly metrics: MetricsRegistry;
  /** The secret a scraper must send (`QUARRY_METRICS_TOKEN`); `undefined`: open. */
  readonly token: string | undefined;
}

/** Compares secrets in constant time (a scraper's secret must not leak by timing). */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics`: the process's metrics in Prometheus text format (docs/metrics.md). Open, as
 * Prometheus scrapes without credentials by default, unless `QUARRY_METRICS_TOKEN` is set
 * (DECISIONS §12): then a request must send that secret as `Authorization: Bearer` (what
 * Prometheus's `authorization` setting sends) or `token`, else 401. API tokens do not open it:
 * the metrics describe every token's traffic.
 */
export const metricsRoutes: RoutePlugin<MetricsRouteOptions> = async (app, options) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Operating'],
        summary: 'Metrics in Prometheus text format (docs/metrics.md)',
        produces: ['text/plain'],
      },
    },
    async (request, reply) => {
      if (options.token !== undefined) {
        const secret = tokenSecretOf(request);
        if (secret === undefined) throw new MissingTokenError();
        if (!sameSecret(secret, options.token)) throw new InvalidTokenError();
      }
      const text = await options.metrics.text();
      return reply.type(options.metrics.contentType).send(text);
    },
  );
};
