import fs from 'node:fs';
import path from 'node:path';
import { TokenService } from './accounts/index.ts';
import {
  BulkExports,
  BulkService,
  createEnhancePool,
  createWebhookPost,
  withWebEvidence,
} from './bulk/index.ts';
import type { Config } from './config.ts';
import {
  CrawlService,
  type CrawlTuning,
  createProcessPoliteness,
  preciseNow,
  GraphIngest,
  type PageExtractor,
  ServicePageExtractor,
  SharedHostPoliteness,
  type ProcessPoliteness,
  ThreadOutcomeSink,
} from './crawl/index.ts';
import { createEnhanceThreads, EnhanceService, type EnhanceThreads } from './enhance/index.ts';
import {
  CustomApiService,
  createFetcher,
  ExtractionService,
  ExtractionThreads,
  type Fetcher,
  observedFetcher,
} from './extract/index.ts';
import { type App, buildApp } from './http/index.ts';
import { createLogger, type Logger } from './logging.ts';
import { type CandidateSource, createMatcher } from './match/index.ts';
import { type Metrics, MetricsRegistry, type QueueDepths } from './metrics/index.ts';
import { createVocabularyShareData, VocabularyShare } from './threads/index.ts';
import { builtInPageReader, PoliteOriginFetcher, RefreshService } from './refresh/index.ts';
import { LaggingVersionSource, SearchService, SearxngProvider, WebEnhancer } from './search/index.ts';
import {
  openStorage,
  type Storage,
  type StoreLocator,
  startStoreMaintenance,
  storeLocator,
} from './storage/index.ts';

/** The services of one Quarry process, wired together. */
export interface Services {
  readonly tokens: TokenService;
  readonly enhance: EnhanceService;
  /** The threads that answer single enhance requests (`config.enhanceThreads`; none when 0). */
  readonly enhanceThreads: EnhanceThreads | undefined;
  /** Bulk enhance jobs; its runner starts with `createRuntime`, not with `openServices`. */
  readonly bulk: BulkService;
  /** Downloads and coverage reports of bulk jobs. */
  readonly bulkExports: BulkExports;
  /** Outbound fetches on callers' behalf (private networks refused unless configured). */
  readonly fetcher: Fetcher;
  readonly customApis: CustomApiService;
  readonly extraction: ExtractionService;
  /** The threads every extraction runs in (`/v3/<api>`, previews, crawls, refresh, search). */
  readonly extractionThreads: ExtractionThreads;
  /**
   * Extraction of fetched pages, in the extraction threads with their time budget, shared by
   * bulk extract jobs, refresh and search.
   */
  readonly pageExtractor: PageExtractor;
  /** Refresh (docs/api.md#refresh-and-search). */
  readonly refresh: RefreshService;
  /** Search; `undefined` when no provider is configured (`QUARRY_SEARCH_URL`). */
  readonly search: SearchService | undefined;
  /** The fetcher of refresh and search pages (closed with the services). */
  readonly webFetcher: Fetcher;
  /**
   * The one politeness per host and robots.txt cache of the process: crawls, refresh and search
   * fetch through it, so a crawl and a refresh of one host keep one delay.
   */
  readonly politeness: ProcessPoliteness;
}

/** Body cap of a page fetched by refresh or search (a page about one entity is far smaller). */
const WEB_PAGE_MAX_BYTES = 2 * 1024 * 1024;

/** A composed Quarry: store, services and HTTP app. `close()` releases everything. */
export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly storage: Storage;
  readonly services: Services;
  readonly app: App;
  /** This process's metrics (`GET /metrics`, docs/metrics.md). */
  readonly metrics: MetricsRegistry;
  /** Bulk extract jobs; processing starts with `listen()` (or `crawl.start()`) and stops on `close()`. */
  readonly crawl: CrawlService;
  /** Starts listening; resolves with the address once `/healthz` can answer. */
  listen(): Promise<string>;
  /**
   * Works on jobs without serving HTTP (`quarry worker`): bulk jobs already run from
   * `createRuntime`; this starts the bulk extract jobs' scheduler.
   */
  work(): Promise<void>;
  close(): Promise<void>;
}

/** Where the configured deployment keeps its store: what every thread opens. */
export function configuredStore(config: Config): StoreLocator {
  return storeLocator({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    sqliteMmapMiB: config.sqliteMmapMiB,
  });
}

/** Opens the configured store and builds the services, without listening. */
export function openServices(
  config: Config,
  logger?: Logger,
  options: Pick<RuntimeOptions, 'extraction'> & {
    readonly exclusive?: boolean;
    /** Where the services report (docs/metrics.md); default: nowhere. */
    readonly metrics?: Metrics;
  } = {},
): { storage: Storage; services: Services } {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const store = configuredStore(config);
  // A process that runs jobs holds the embedded store's lock (`OpenStorageOptions.exclusive`).
  const storage = openStorage(store, { exclusive: options.exclusive });
  const bulkLogger = logger ?? createLogger({ level: 'silent' });
  const tokens = new TokenService(storage.tokens);
  // One copy of the matcher's vocabularies for the main thread and the bulk worker threads.
  const vocabularies = new VocabularyShare(createVocabularyShareData());
  const enhanceThreads =
    config.enhanceThreads > 0
      ? createEnhanceThreads({
          store,
          threads: config.enhanceThreads,
          vocabularies: () => vocabularies.handoff(),
          onCrash: (error) => bulkLogger.error({ err: error }, 'an enhance thread died; replaced'),
        })
      : undefined;
  const addressPolicy = {
    allowPrivateNetwork: config.allowPrivateNetwork,
    allowedAddresses: config.allowedAddresses,
  };
  const fetcher = createFetcher(addressPolicy);
  // Several processes on one store: hosts' turns are taken there (crawl, refresh and search alike).
  const { metrics } = options;
  const politeness = createProcessPoliteness({
    fetcher: observedFetcher(fetcher, metrics, 'robots'),
    politeness: storage.hostTurns
      ? new SharedHostPoliteness({
          turns: storage.hostTurns,
          onError: (error) => bulkLogger.warn({ err: error }, 'ending a host turn failed'),
          now: preciseNow,
        })
      : undefined,
  });
  const extracting = openExtraction(
    config,
    storage,
    observedFetcher(fetcher, metrics, 'extract'),
    bulkLogger,
    options,
  );
  const matcher = createMatcher(storage.entities, { share: vocabularies });
  const web = openWebEvidence(config, storage, addressPolicy, extracting.pageExtractor, politeness, metrics);
  const enhance = new EnhanceService({
    entities: storage.entities,
    matcher,
    tokens,
    credits: config.credits,
    readSnapshot: (fn) => storage.readSnapshot(fn),
    threads: enhanceThreads,
    metrics,
    web: (enhancer) =>
      new WebEnhancer({
        enhancer,
        entities: storage.entities,
        rescorer: web.rescorer,
        refresh: web.refresh,
        search: web.search,
      }),
  });
  const bulking = openBulk(config, {
    storage,
    store,
    enhance,
    vocabularies,
    fetcher,
    logger: bulkLogger,
    metrics,
  });
  const services: Services = {
    tokens,
    enhance,
    enhanceThreads,
    ...bulking,
    fetcher,
    ...extracting,
    refresh: web.refresh,
    search: web.search,
    webFetcher: web.webFetcher,
    politeness,
  };
  return { storage, services };
}

/** Custom APIs and extraction: every page is parsed and extracted in threads, never here. */
function openExtraction(
  config: Config,
  storage: Storage,
  fetcher: Fetcher,
  logger: Logger,
  options: Pick<RuntimeOptions, 'extraction'>,
): Pick<Services, 'customApis' | 'extraction' | 'extractionThreads' | 'pageExtractor'> {
  const customApis = new CustomApiService(storage.customApis);
  // Started on first use.
  const extractionThreads = new ExtractionThreads({
    size: Math.max(1, config.workerThreads),
    budgetMs: options.extraction?.budgetMs,
    onReplace: (reason) => logger.warn({ reason }, 'an extraction thread was replaced'),
  });
  const extraction = new ExtractionService({ fetcher, customApis, threads: extractionThreads });
  return { customApis, extractionThreads, extraction, pageExtractor: new ServicePageExtractor(extraction) };
}

/**
 * Refresh and search: pages through a fetcher of their own (a smaller body cap), polite per host
 * under the process's one politeness (`politeness`, the crawl's too), and the rescoring of an answer
 * with their evidence.
 */
function openWebEvidence(
  config: Config,
  storage: Storage,
  addressPolicy: {
    readonly allowPrivateNetwork: boolean;
    readonly allowedAddresses: Config['allowedAddresses'];
  },
  pageExtractor: Services['pageExtractor'],
  politeness: ProcessPoliteness,
  metrics: Metrics | undefined,
): {
  readonly webFetcher: Fetcher;
  readonly refresh: RefreshService;
  readonly search: SearchService | undefined;
  readonly rescorer: () => ReturnType<typeof createMatcher>;
} {
  const webFetcher = createFetcher({ ...addressPolicy, maxBodyBytes: WEB_PAGE_MAX_BYTES });
  const originFetcher = new PoliteOriginFetcher({
    fetcher: observedFetcher(webFetcher, metrics, 'web'),
    politeness,
    crawlDelayMs: config.web.crawlDelayMs,
  });
  const reader = builtInPageReader(pageExtractor);
  const refresh = new RefreshService({
    entities: storage.entities,
    fetches: storage.originFetches,
    fetcher: originFetcher,
    reader,
    maxAgeMs: config.web.refreshMaxAgeMs,
  });
  // Refresh and search match on this thread, per answer, over vocabularies that lag the graph by
  // up to 30 s (LaggingVersionSource) kept in a share of their own.
  const webVocabularies = new VocabularyShare(createVocabularyShareData());
  const webCandidates = new LaggingVersionSource(storage.entities);
  const matcherOver = (source: CandidateSource) => createMatcher(source, { share: webVocabularies });
  const search = config.web.searchUrl
    ? new SearchService({
        provider: new SearxngProvider({ url: config.web.searchUrl }),
        fetcher: originFetcher,
        reader,
        fetches: storage.originFetches,
        entities: storage.entities,
        candidates: webCandidates,
        matcherOver,
      })
    : undefined;
  return { webFetcher, refresh, search, rescorer: () => matcherOver(webCandidates) };
}

/** Bulk enhance jobs and their downloads. */
function openBulk(
  config: Config,
  deps: {
    readonly storage: Storage;
    readonly store: StoreLocator;
    readonly enhance: EnhanceService;
    readonly vocabularies: VocabularyShare;
    readonly fetcher: Fetcher;
    readonly logger: Logger;
    readonly metrics: Metrics | undefined;
  },
): Pick<Services, 'bulk' | 'bulkExports'> {
  const { storage, store, enhance, vocabularies, logger, metrics } = deps;
  const bulk = new BulkService({
    store: storage.bulkJobs,
    transaction: (fn) => storage.transaction(fn),
    workQueue: storage.workQueue,
    credits: config.credits,
    limits: config.limits,
    logger,
    // Records of jobs with refresh or search are completed on this thread after the workers.
    createExecutor: () => {
      const pool = createEnhancePool({
        store,
        threads: config.workerThreads,
        vocabularies: () => vocabularies.handoff(),
      });
      return enhance.web ? withWebEvidence(pool, enhance.web) : pool;
    },
    webhookPost: createWebhookPost(deps.fetcher),
    allowPrivateNetwork: config.allowPrivateNetwork,
    retentionMs: config.bulkRetentionMs,
    metrics,
  });
  const bulkExports = new BulkExports({
    service: bulk,
    store: storage.bulkJobs,
    storeLocator: store,
    directory: path.join(config.dataDir, 'bulk-exports'),
    logger,
  });
  return { bulk, bulkExports };
}

/** Options of a runtime beyond the configuration (tests shorten the crawl's waits). */
export interface RuntimeOptions {
  readonly crawl?: CrawlTuning;
  /** Extraction threads: the time budget of one page, ms (default 10 s). */
  readonly extraction?: { readonly budgetMs?: number };
}

/**
 * Bulk extract jobs: pages are fetched in this thread, extracted in the extraction threads
 * (shared with `/v3/<api>`, which goes first) and written (objects with their counters, one
 * transaction) by a writer thread, or in this thread when `workerThreads` is 0.
 */
function createCrawlService(
  config: Config,
  logger: Logger,
  storage: Storage,
  services: Services,
  tuning: CrawlTuning | undefined,
  metrics: Metrics,
): CrawlService {
  const extractor = services.pageExtractor;
  const sink =
    config.workerThreads > 0
      ? new ThreadOutcomeSink({
          store: configuredStore(config),
          logLevel: config.logLevel,
          logger,
        })
      : undefined;
  return new CrawlService({
    storage,
    fetcher: observedFetcher(services.fetcher, metrics, 'crawl'),
    webhookPost: createWebhookPost(services.fetcher),
    extractor,
    // In this thread when there is no writer thread (which builds its own).
    ingester: sink ? undefined : new GraphIngest(storage.entities),
    sink,
    // The process's politeness (hosts' turns in the store when several processes share it) and
    // robots.txt cache, shared with refresh and search.
    politeness: services.politeness.politeness,
    robots: services.politeness.robots,
    // Several processes on one store: each looks for the jobs the others created or controlled.
    shared: storage.hostTurns !== undefined,
    logger,
    addressPolicy: {
      allowPrivateNetwork: config.allowPrivateNetwork,
      allowedAddresses: config.allowedAddresses,
    },
    tuning,
    metrics,
  });
}

/** How much work waits, for the metrics (read at each scrape). */
async function queueDepths(services: Services, crawl: CrawlService): Promise<QueueDepths> {
  const [bulk, crawling] = await Promise.all([services.bulk.pendingWork(), crawl.pendingWork()]);
  return {
    bulkJobs: bulk.jobs,
    bulkRecords: bulk.records,
    crawlJobs: crawling.jobs,
    crawlUrls: crawling.urls,
  };
}

/** The composition root: config → storage → services → app. */
export async function createRuntime(
  config: Config,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const metrics = new MetricsRegistry({ depths: () => queueDepths(services, crawl) });
  const { storage, services } = openServices(config, logger, { ...options, exclusive: true, metrics });
  const crawl = createCrawlService(config, logger, storage, services, options.crawl, metrics);
  const app = await buildApp({ config, logger, storage, ...services, crawl, metrics });
  // Checkpoints off the main thread: bulk jobs write results at tens of MB/s.
  const checkpointer = startStoreMaintenance(configuredStore(config), {
    onFailure: (error) =>
      logger.warn({ err: error }, 'the WAL checkpointing thread failed: commits checkpoint by themselves'),
  });
  // Resumes the bulk jobs a stop or crash interrupted.
  await services.bulk.start();
  await services.bulkExports.resume();
  let closed = false;
  return {
    config,
    logger,
    storage,
    services,
    app,
    metrics,
    crawl,
    async listen() {
      // Ready means ready to answer fast: the first enhance would otherwise load the vocabularies.
      const warming = performance.now();
      services.enhance.enhancer.warmUp();
      logger.info({ ms: Math.round(performance.now() - warming) }, 'matcher vocabularies loaded');
      services.enhanceThreads?.start();
      const address = await app.listen({ port: config.port, host: config.host });
      // Unfinished jobs resume (after a restart or a crash) once the server answers.
      await crawl.start();
      return address;
    },
    async work() {
      await crawl.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await crawl.close();
      await app.close();
      await services.bulkExports.close();
      await services.bulk.close();
      await services.enhanceThreads?.close();
      await services.extractionThreads.close();
      await checkpointer.stop();
      await services.pageExtractor.close();
      await services.fetcher.close();
      await services.webFetcher.close();
      await storage.close();
    },
  };
}
