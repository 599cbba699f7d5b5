/**
 * The process's metrics in Prometheus text format (docs/metrics.md), through prom-client: the
 * counters and histograms the layers report into (`port.ts`), the queue depths read from the
 * store at each scrape, and prom-client's process and Node metrics (memory, CPU, event-loop
 * delay, garbage collection).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ChargedOperation, MatchKind, Metrics } from './port.ts';
import { CounterSeries, HistogramSeries } from './series.ts';

/** How much work waits, read from the store when metrics are scraped. */
export interface QueueDepths {
  /** Bulk enhance jobs not finished (queued or in process). */
  readonly bulkJobs: number;
  /** Records of those jobs without a result yet. */
  readonly bulkRecords: number;
  /** Bulk extract jobs crawling. */
  readonly crawlJobs: number;
  /** URLs of those jobs not yet done in their round. */
  readonly crawlUrls: number;
}

/** Request latency buckets, seconds: from a cached enhance (ms) to a long download. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Fetch latency buckets, seconds, up to the fetcher's 30 s cap. */
const FETCH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Candidates listed per answer (`searchInfo` lists at least 5 when there are that many). */
const CANDIDATE_BUCKETS = [0, 1, 2, 3, 5, 10, 20, 50, 100];
/** Calibrated probabilities; finer at the top, where thresholds sit. */
const SCORE_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

const OPERATIONS: readonly ChargedOperation[] = ['enhance', 'combine', 'bulk', 'reconcile'];
const MATCH_KINDS: readonly MatchKind[] = ['enhance', 'combine'];

/** The series of one method and route pattern: its latency, and its count by status. */
interface RouteSeries {
  readonly latency: HistogramSeries;
  readonly byStatus: Map<number, CounterSeries>;
}

/** The registry of one process; it implements every reporting port. */
export class MetricsRegistry implements Metrics {
  readonly #registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #latency: Histogram<'method' | 'route'>;
  readonly #candidates: Histogram<'kind'>;
  readonly #bestScore: Histogram<'kind'>;
  readonly #credits: Counter<'operation'>;
  readonly #bulkRecords: Counter<'result'>;
  readonly #pages: Counter<'outcome'>;
  readonly #fetches: Histogram<'purpose' | 'result'>;
  readonly #depth: Record<keyof QueueDepths, Gauge>;
  readonly #depths: (() => Promise<QueueDepths>) | undefined;
  // The series each report updates, found once (series.ts): no label hashing per request.
  /** By method, then route pattern (bounded: patterns, never URLs). */
  readonly #routes = new Map<string, Map<string, RouteSeries>>();
  readonly #matchSeries = {} as Record<
    MatchKind,
    { candidates: HistogramSeries; bestScore: HistogramSeries }
  >;
  readonly #creditSeries = {} as Record<ChargedOperation, CounterSeries>;

  /** `depths`: read at each scrape (the gauges are left out without it). */
  constructor(options: { readonly depths?: () => Promise<QueueDepths> } = {}) {
    const registers = [this.#registry];
    this.#depths = options.depths;
    this.#requests = new Counter({
      name: 'quarry_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'quarry_http_request_duration_seconds',
      help: 'Time from a request to its answer, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#candidates = new Histogram({
      name: 'quarry_match_candidates',
      help: 'Candidates an enhance or combine answer lists (searchInfo)',
      labelNames: ['kind'],
      buckets: CANDIDATE_BUCKETS,
      registers,
    });
    this.#bestScore = new Histogram({
      name: 'quarry_match_best_score',
      help: "The best candidate's calibrated score in an enhance or combine answer",
      labelNames: ['kind'],
      buckets: SCORE_BUCKETS,
      registers,
    });
    this.#credits = new Counter({
      name: 'quarry_credits_charged_total',
      help: 'Credits taken from tokens, by operation',
      labelNames: ['operation'],
      registers,
    });
    this.#bulkRecords = new Counter({
      name: 'quarry_bulk_records_total',
      help: 'Bulk enhance records whose result was stored, answered or failed',
      labelNames: ['result'],
      registers,
    });
    this.#pages = new Counter({
      name: 'quarry_crawl_pages_total',
      help: 'Pages of bulk extract jobs, by outcome (retry: to be fetched again later)',
      labelNames: ['outcome'],
      registers,
    });
    this.#fetches = new Histogram({
      name: 'quarry_fetch_duration_seconds',
      help: 'Outbound fetches, redirects and body included, by purpose and result',
      labelNames: ['purpose', 'result'],
      buckets: FETCH_BUCKETS,
      registers,
    });
    this.#depth = {
      bulkJobs: this.#gauge('quarry_bulk_jobs_running', 'Bulk enhance jobs queued or in process'),
      bulkRecords: this.#gauge(
        'quarry_bulk_records_pending',
        'Records of running bulk jobs without a result',
      ),
      crawlJobs: this.#gauge('quarry_crawl_jobs_running', 'Bulk extract jobs crawling'),
      crawlUrls: this.#gauge('quarry_crawl_urls_pending', 'URLs of crawling jobs not yet done this round'),
    };
    for (const operation of OPERATIONS) {
      this.#credits.inc({ operation }, 0);
      this.#creditSeries[operation] = new CounterSeries(this.#credits, { operation });
    }
    for (const result of ['answered', 'failed']) this.#bulkRecords.inc({ result }, 0);
    for (const kind of MATCH_KINDS) {
      this.#candidates.zero({ kind });
      this.#bestScore.zero({ kind });
      this.#matchSeries[kind] = {
        candidates: new HistogramSeries(this.#candidates, { kind }),
        bestScore: new HistogramSeries(this.#bestScore, { kind }),
      };
    }
    // Memory, CPU, handles, event-loop delay (perf_hooks' histogram), heap spaces, GC.
    collectDefaultMetrics({ register: this.#registry, eventLoopMonitoringPrecision: 10 });
    // Gauges named like counters (promtool's lint refuses them); `nodejs_active_handles` and the
    // others, by type, say the same.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ])
      this.#registry.removeSingleMetric(name);
  }

  /** The content type of `text()` (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Every metric in Prometheus text format, queue depths read now. */
  async text(): Promise<string> {
    if (this.#depths) {
      const depths = await this.#depths();
      for (const key of Object.keys(this.#depth) as (keyof QueueDepths)[]) this.#depth[key].set(depths[key]);
    }
    return this.#registry.metrics();
  }

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const series = this.#routeSeries(method, route);
    let requests = series.byStatus.get(status);
    if (!requests) {
      requests = new CounterSeries(this.#requests, { method, route, status: String(status) });
      series.byStatus.set(status, requests);
    }
    requests.inc();
    series.latency.observe(seconds);
  }

  matchAnswered(kind: MatchKind, candidates: number, bestScore: number | undefined): void {
    const series = this.#matchSeries[kind];
    series.candidates.observe(candidates);
    if (bestScore !== undefined) series.bestScore.observe(bestScore);
  }

  creditsCharged(operation: ChargedOperation, credits: number): void {
    if (credits > 0) this.#creditSeries[operation].inc(credits);
  }

  bulkRecordsStored(answered: number, failed: number): void {
    if (answered > 0) this.#bulkRecords.inc({ result: 'answered' }, answered);
    if (failed > 0) this.#bulkRecords.inc({ result: 'failed' }, failed);
  }

  pageOutcome(outcome: string): void {
    this.#pages.inc({ outcome });
  }

  fetchFinished(purpose: string, result: string, seconds: number): void {
    this.#fetches.observe({ purpose, result }, seconds);
  }

  /** The series of `method` on `route`, made at its first request. */
  #routeSeries(method: string, route: string): RouteSeries {
    let byRoute = this.#routes.get(method);
    if (!byRoute) {
      byRoute = new Map();
      this.#routes.set(method, byRoute);
    }
    let series = byRoute.get(route);
    if (!series) {
      series = { latency: new HistogramSeries(this.#latency, { method, route }), byStatus: new Map() };
      byRoute.set(route, series);
    }
    return series;
  }

  #gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: this.#depths ? [this.#registry] : [] });
  }
}
