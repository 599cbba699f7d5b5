/**
 * What the layers report to the metrics registry (docs/metrics.md): small interfaces, one per
 * layer, so that a service depends on the few calls it makes and never on prom-client. Each is
 * optional where it is taken: a service built without one (the CLI, a worker thread) reports
 * nothing.
 */

/** The HTTP layer: one call per answered request. */
export interface HttpMetrics {
  /**
   * A request answered with `status` after `seconds`. `route` is the route's pattern
   * (`/kg/v3/enhance/bulk/:jobId/status`), never the URL, so the label set stays bounded.
   */
  requestAnswered(method: string, route: string, status: number, seconds: number): void;
}

/** Which answer a matched request asked for. */
export type MatchKind = 'enhance' | 'combine';

/** What is charged for. */
export type ChargedOperation = 'enhance' | 'combine' | 'bulk' | 'reconcile';

/** Enhance and combine answers, and what they cost. */
export interface EnhanceMetrics {
  /**
   * A single enhance or combine answer: how many candidates it lists (`searchInfo`) and the best
   * one's calibrated score (`undefined` when there is none: no candidate, or an answer by id).
   */
  matchAnswered(kind: MatchKind, candidates: number, bestScore: number | undefined): void;
  /** Credits taken from a token (after the charge committed); 0 is not reported. */
  creditsCharged(operation: ChargedOperation, credits: number): void;
}

/** Bulk enhance jobs. */
export interface BulkMetrics extends Pick<EnhanceMetrics, 'creditsCharged'> {
  /** Results stored (committed) for records: `answered` of them fine, `failed` failed. */
  bulkRecordsStored(answered: number, failed: number): void;
}

/** Bulk extract jobs. */
export interface CrawlMetrics {
  /**
   * A page's outcome applied to its job: `processed`, `not_processed`, `process_failed`,
   * `fetch_failed`, `robots_disallowed`, or `retry` (fetched again later).
   */
  pageOutcome(outcome: string): void;
}

/** Outbound fetches. */
export interface FetchMetrics {
  /**
   * One fetch finished after `seconds`: `result` is `response` (any HTTP status) or the
   * `FetchError` code (`fetch_timeout`, `fetch_refused`, …); `purpose` says who fetched.
   */
  fetchFinished(purpose: string, result: string, seconds: number): void;
}

/** Everything, as the registry implements it. */
export interface Metrics extends HttpMetrics, EnhanceMetrics, BulkMetrics, CrawlMetrics, FetchMetrics {}
