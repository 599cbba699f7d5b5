import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import type { BulkExports, BulkService } from '../bulk/index.ts';
import type { Config } from '../config.ts';
import type { CrawlService } from '../crawl/index.ts';
import type { EnhanceService } from '../enhance/index.ts';
import type { CustomApiService, ExtractionService } from '../extract/index.ts';
import { ReconcileService } from '../reconcile/index.ts';
import type { MetricsRegistry } from '../metrics/index.ts';
import type { Storage } from '../storage/index.ts';
import { answerClientError, installBodyIdleTimeout } from './client-errors.ts';
import { answerFrameworkError, installErrorMapping } from './error-mapping.ts';
import { installJsonBodyParser } from './json-body.ts';
import { bulkRoutes } from './routes-bulk.ts';
import { consoleRoutes } from './routes-console.ts';
import { crawlRoutes } from './routes-crawl.ts';
import { customRoutes } from './routes-custom.ts';
import { enhanceRoutes } from './routes-enhance.ts';
import { extractRoutes } from './routes-extract.ts';
import { reconcileRoutes } from './routes-reconcile.ts';
import { healthRoutes } from './routes-health.ts';
import { metricsRoutes } from './routes-metrics.ts';
import { newRequestId, requestLoggerFactory } from './request-logger.ts';
import { installUnreadBodyGuard } from './unread-body.ts';
import { validatorCompiler } from './validation.ts';

/** Everything the HTTP layer needs, built by the composition root (`runtime.ts`). */
export interface AppDeps {
  readonly config: Config;
  readonly logger: FastifyBaseLogger;
  readonly storage: Storage;
  readonly tokens: TokenService;
  readonly enhance: EnhanceService;
  readonly bulk: BulkService;
  readonly bulkExports: BulkExports;
  readonly extraction: ExtractionService;
  readonly customApis: CustomApiService;
  readonly crawl: CrawlService;
  /** The process's metrics: every request is counted, and `GET /metrics` serves them. */
  readonly metrics: MetricsRegistry;
}

export type App = FastifyInstance;

/**
 * Builds the Fastify app without listening: `main`/`runtime` listens, tests use `inject()`.
 * Validation coerces query strings (text on the wire) but never JSON bodies (`validation.ts`).
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { timeouts } = deps.config;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: deps.config.limits.enhanceBodyBytes,
    // One structured line per request is written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // `request.log` makes its pino child only when used (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    requestIdHeader: 'x-request-id',
    genReqId: newRequestId,
    ajv: {
      customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false },
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Slow clients: Node answers 408 (through clientErrorHandler) when the headers or the whole
  // request take longer than this, checked every second (set before listening) rather than 30.
  Object.assign(app.server, {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs || 1_000),
  });

  app.setValidatorCompiler(validatorCompiler);
  installErrorMapping(app);
  installUnreadBodyGuard(app);
  installJsonBodyParser(app);
  installBodyIdleTimeout(app, deps.config.timeouts.bodyIdleMs);
  // A callback hook, not an async one: no promise per request for what is synchronous.
  app.addHook('onResponse', (request, reply, done) => {
    // Read once: Fastify builds the whole `routeOptions` object at each read.
    const pattern = request.routeOptions.url;
    const elapsed = reply.elapsedTime;
    // Through the server's logger, the request id first: the line `request.log` would write,
    // without making the request's pino child (request-logger.ts).
    deps.logger.info(
      {
        reqId: request.id,
        method: request.method,
        url: pattern ?? request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(elapsed * 100) / 100,
      },
      'request',
    );
    // The route's pattern, never the URL: a label per job id or 404 path would grow unbounded.
    deps.metrics.requestAnswered(request.method, pattern ?? 'unmatched', reply.statusCode, elapsed / 1000);
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Quarry',
        version: '3.0.0',
        description:
          'Self-hostable knowledge graph: enhance (area A), Custom API rules (area B), bulk extract jobs (area C).',
      },
      components: {
        securitySchemes: {
          tokenscheme: { type: 'apiKey', in: 'query', name: 'token' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(healthRoutes, { storage: deps.storage });
  await app.register(metricsRoutes, { metrics: deps.metrics, token: deps.config.metricsToken });
  await app.register(enhanceRoutes, deps);
  await app.register(bulkRoutes, deps);
  await app.register(customRoutes, {
    customApis: deps.customApis,
    extraction: deps.extraction,
    tokens: deps.tokens,
  });
  await app.register(extractRoutes, { extraction: deps.extraction, tokens: deps.tokens });
  await app.register(crawlRoutes, { config: deps.config, tokens: deps.tokens, crawl: deps.crawl });
  const reconcile = new ReconcileService({
    enhance: deps.enhance,
    entities: deps.storage.entities,
    credits: deps.config.credits,
    maxSize: deps.config.limits.maxSize,
  });
  await app.register(reconcileRoutes, { config: deps.config, tokens: deps.tokens, reconcile });
  await app.register(consoleRoutes);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
