/**
 * Storage ports: what each capability needs from persistence, named for what it holds.
 * Services depend only on these interfaces; SQL lives in the adapters (`sqlite/`, `postgres/`).
 * Every adapter runs the same contract suite (`test/storage-contract*.ts`).
 *
 * Two shapes, chosen by who calls (measured in `bench/port-shape.ts`, docs/architecture.md#storage-ports):
 * - Ports the event loop calls — tokens and credits, bulk jobs, rule sets, bulk extract jobs,
 *   `Storage.transaction` — return promises. A PostgreSQL round trip is ~0.2 ms; taken
 *   synchronously on the HTTP thread it would stall every request behind it (200 concurrent
 *   charges through a blocking bridge: ~400 charges/s and a 0.7-2.6 s event-loop delay p99,
 *   against ~1,600/s and 4-6 ms asynchronously). The embedded store answers them at once.
 * - `EntityStore` and `Storage.readSnapshot` stay synchronous: the matcher reads the graph
 *   dozens of times per query from worker threads (enhance, bulk, extraction, the crawl
 *   writer) and the command line, where blocking costs no one else. The PostgreSQL adapter
 *   serves them over a blocking bridge (`postgres/sync-bridge.ts`).
 */
import type { Entity, EntityType } from '../kg/index.ts';

// ---------------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------------

/** A token as stored: the secret itself is never stored, only its SHA-256. */
export interface TokenRecord {
  /** Stable public identifier of the token (owner id of everything it creates). */
  readonly id: string;
  readonly label: string | null;
  /** Remaining credits; `null` means unlimited. Never negative. */
  readonly credits: number | null;
  readonly createdAt: number;
}

export interface TokenStore {
  /** Stores a new token by the SHA-256 hex of its secret. */
  create(input: {
    id: string;
    secretHash: string;
    label?: string;
    credits: number | null;
  }): Promise<TokenRecord>;
  /** Finds a token by the SHA-256 hex of its secret; `undefined` when unknown. */
  findBySecretHash(secretHash: string): Promise<TokenRecord | undefined>;
  findById(id: string): Promise<TokenRecord | undefined>;
  /**
   * Atomically takes `amount` credits when the balance covers it (always for unlimited tokens).
   * Returns false, changing nothing, when it does not. `amount` 0 always succeeds.
   */
  charge(id: string, amount: number): Promise<boolean>;
  /** Gives credits back (after a failed operation that was charged). */
  refund(id: string, amount: number): Promise<void>;
  list(): Promise<TokenRecord[]>;
}

// ---------------------------------------------------------------------------------------------
// Knowledge graph
// ---------------------------------------------------------------------------------------------

/** An entity as written by an import: canonical document, per-source ledger and match data. */
export interface EntityWrite {
  readonly id: string;
  readonly type: EntityType;
  /** Canonical entity (what enhance returns), including `nonCanonicalFacts` when any. */
  readonly doc: Entity;
  /** Per-source statements (kg/fact-ledger), JSON-serialisable; `null` for a single source. */
  readonly ledger: unknown;
  /** Match profile (match/), JSON-serialisable, read back by the scorer. */
  readonly profile: unknown;
  /** Retrieval keys (match/): exact keys and name tokens, each prefixed by its kind. */
  readonly keys: readonly string[];
}

/**
 * An `EntityWrite` whose fields are already JSON: what a bulk import prepares off the main thread
 * so that nothing is serialised twice. `json.doc`, `json.profile`, `json.keys` (and any further
 * field of the match index) are `JSON.stringify` of the corresponding `EntityWrite` field;
 * `json.ledger` is `null` when the ledger is.
 */
export interface SerializedEntityWrite {
  readonly id: string;
  readonly type: EntityType;
  readonly json: {
    readonly doc: string;
    readonly ledger: string | null;
    readonly profile: string;
    readonly keys: string;
    readonly [indexField: string]: string | null;
  };
}

/** A stored entity read back. `ref` is the store's compact internal handle. */
export interface StoredEntity {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  readonly doc: Entity;
  readonly ledger: unknown;
}

/** A stored entity with the retrieval keys stored with it (`EntityStore.entitiesAfter`). */
export interface StoredEntityWithKeys extends StoredEntity {
  readonly keys: readonly string[];
}

/** What the scorer reads for one candidate. */
export interface CandidateProfile {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  readonly profile: unknown;
  /**
   * Characters of the profile's stored JSON, when the source has the text (both stores): the
   * caching source estimates the parsed profile's size from it instead of walking `profile`.
   * Undefined (e.g. a search's overlay of fetched entities): estimated from the parsed profile.
   */
  readonly profileTextLength?: number;
}

export interface EntityCounts {
  readonly organizations: number;
  readonly persons: number;
}

/** Options of `EntityStore.writeBatch`. */
export interface WriteBatchOptions {
  /**
   * Bulk loading: index the retrieval keys of the written entities later, in key order, when
   * `indexPendingKeys()` runs (much faster for large imports). Until then the entities are
   * readable by id but not found by key. Stale keys of replaced entities are removed at once.
   */
  readonly deferKeys?: boolean;
}

export interface EntityStore {
  /**
   * Inserts or replaces entities by id, atomically as one batch: the previous keys of a
   * replaced entity are removed. Bumps the graph version.
   */
  writeBatch(entities: readonly (EntityWrite | SerializedEntityWrite)[], options?: WriteBatchOptions): void;
  /**
   * Runs `fn` holding the store's write lock, as one transaction: what `fn` reads is what it
   * writes over (no other writer commits in between), and its writes commit together or, when it
   * throws, not at all. Writes inside it join it. For read-merge-write cycles (imports).
   */
  exclusively<T>(fn: () => T): T;
  /**
   * Indexes the keys of every entity written with `deferKeys` (by any process, also one that
   * crashed before indexing). Idempotent; returns how many entities it indexed (0 when none).
   */
  indexPendingKeys(): number;
  /**
   * `indexPendingKeys`, leaving the calling thread free while it runs where the adapter can (the
   * embedded store runs the pass on a thread and connection of its own): a progress display or
   * a server's requests go on meanwhile. Resolves with how many entities it indexed.
   */
  indexPendingKeysOffThread(): Promise<number>;
  /**
   * How many entities wait for `indexPendingKeys` (written with `deferKeys` by an import that
   * stopped or skipped its key pass): readable by id, not yet found by key. A count: instant
   * when none wait, ~0.15 s for 390k waiting on a cold SQLite store.
   */
  pendingKeyCount(): number;
  /** The stored entities among `ids` (absent ids are left out), keyed by id: one query per call. */
  getByIds(ids: readonly string[]): Map<string, StoredEntity>;
  getById(id: string): StoredEntity | undefined;
  getByRefs(refs: readonly number[]): StoredEntity[];
  /**
   * The stored entities whose ref is above `afterRef`, in ref order, at most `limit`, each with
   * the retrieval keys stored with it (as last written): a pass over the whole graph reads it
   * chunk by chunk (re-keying a store whose keys an older build computed, `reindexKeys`).
   */
  entitiesAfter(afterRef: number, limit: number): StoredEntityWithKeys[];
  /** Number of entities carrying each key, counting at most `cap` (cheap for frequent keys). */
  keyCounts(keys: readonly string[], cap: number): Map<string, number>;
  /** Entity refs carrying `key`, at most `limit`, in ref order. */
  refsForKey(key: string, limit: number): number[];
  /**
   * Refs for several keys at once: each key maps to at most `limitPerKey` refs in ref order;
   * keys nobody carries map to an empty array.
   */
  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]>;
  /**
   * Every key starting with `prefix` and the number of entities carrying it: the term
   * vocabulary of a kind of key (e.g. name tokens), for weighting and typo tolerance. Reads the
   * whole key range: callers cache it per `version()`.
   */
  termCounts(prefix: string): Map<string, number>;
  profiles(refs: readonly number[]): CandidateProfile[];
  counts(): EntityCounts;
  /** Version string of the graph: changes whenever an import writes. */
  version(): string;
}

// ---------------------------------------------------------------------------------------------
// Bulk enhance jobs
// ---------------------------------------------------------------------------------------------

/**
 * Life cycle of a bulk enhance job as stored. `SUBMITTING` (records still arriving) and
 * `DELETING` (data being purged) are internal: such jobs are invisible to every reader method
 * except the ones that name them. The others are the public `status` values.
 */
export type BulkJobState =
  | 'SUBMITTING'
  | 'NOT_STARTED'
  | 'IN_PROCESS'
  | 'COMPLETE'
  | 'COMPLETE_WITH_FAILURES'
  | 'STOPPED'
  | 'DELETING';

/** Webhook delivery bookkeeping of a job (`null` on a job without `webhookurl`). */
export interface BulkWebhookState {
  /** `pending` until delivered or given up (`failed`). */
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  /** When the next attempt is due (epoch ms); `null` once delivered or failed. */
  readonly nextAt: number | null;
  /** Why the last attempt failed, if it did. */
  readonly lastError: string | null;
}

/**
 * Pages refresh and search read for a job's records (docs/api.md#bulk-job-status): fetched (a
 * page read), failed (gone, refused, disallowed, unreachable), fresh (not fetched again).
 */
export interface BulkPageCounts {
  readonly fetched: number;
  readonly failed: number;
  readonly fresh: number;
}

/** A bulk enhance job as stored. Times are epoch milliseconds. */
export interface BulkJobRow {
  readonly id: string;
  readonly tokenId: string;
  readonly name: string;
  /** Job-level enhance options (size, threshold, refresh, ...), JSON-serialisable. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly webhookUrl: string | null;
  readonly state: BulkJobState;
  readonly message: string;
  /** Records submitted. */
  readonly total: number;
  /** Records with a result (paid, unpaid or failed). */
  readonly completed: number;
  /** Records whose result is a failure (e.g. could not be paid). */
  readonly failed: number;
  /** Sum of `hits` over the results. */
  readonly hits: number;
  /** Bytes of the results as JSON Lines (each result plus its newline). */
  readonly resultBytes: number;
  readonly submitTime: number;
  readonly startTime: number | null;
  readonly completedTime: number | null;
  /** Estimated seconds until the job completes; `null` when unknown or finished. */
  readonly estimateSec: number | null;
  readonly webhook: BulkWebhookState | null;
  /** Pages refresh and search read for the job's results (sums of the results' `pages`). */
  readonly pages: BulkPageCounts;
}

/** What a new job is created with (it starts `SUBMITTING`, with no records). */
export interface NewBulkJob {
  readonly id: string;
  readonly tokenId: string;
  readonly name: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly webhookUrl: string | null;
  readonly submitTime: number;
}

/** One submitted record: its 0-based position and its query as JSON text. */
export interface BulkRecord {
  readonly index: number;
  readonly query: string;
}

/**
 * One record's result: the enhance response as JSON text, kept in two parts so that exports
 * that need no `searchInfo` (columnar formats) parse half as much.
 */
export interface BulkResult {
  readonly index: number;
  /** Matched entities in the response. */
  readonly hits: number;
  /** True when the result reports a failure (e.g. the record could not be paid). */
  readonly failed: boolean;
  /** The response without `searchInfo` (a JSON object's text). */
  readonly response: string;
  /** The response's `searchInfo` (a JSON object's text); it goes last in the full response. */
  readonly searchInfo: string;
  /**
   * The response's summary (`export/result-summary.ts`: the query and, per match, the scores and
   * the entity's id, name and type; JSON or a compact text, which the store keeps as it is:
   * no JSON type), stored when given. Read back only by `results` with
   * `summary: true`; absent for results stored without one (before the summaries existed).
   */
  readonly summary?: string;
  /**
   * Given when storing: pages refresh and search read for the record, added to the job's
   * `pages` by `saveResults`. Not stored with the result.
   */
  readonly pages?: BulkPageCounts;
  /**
   * Given when storing: matched entities web work was done for, charged the refresh price
   * (docs/api.md#credits). Not stored.
   */
  readonly premium?: number;
}

/** Fields of a job that the runner and the service change. */
export type BulkJobPatch = Partial<
  Pick<BulkJobRow, 'state' | 'message' | 'startTime' | 'completedTime' | 'estimateSec' | 'webhook'>
>;

/** Status of a coverage report or of an export file (the public report status values). */
export type BulkReportStatus = 'NOT_STARTED' | 'IN_PROCESS' | 'COMPLETE' | 'ERROR_FINALIZING';

/**
 * A coverage report with the export it belongs to: one per job and distinct export parameters
 * (`key`). The export file itself may or may not be kept (`exportStatus`).
 */
export interface BulkReportRow {
  readonly id: string;
  readonly jobId: string;
  /** Canonical form of the export parameters; unique per job. */
  readonly key: string;
  readonly format: string;
  readonly spec: string;
  readonly exportFile: string;
  readonly separator: string;
  readonly filter: string;
  readonly status: BulkReportStatus;
  /** `NOT_STARTED` when the export file was never requested (report only). */
  readonly exportStatus: BulkReportStatus;
  readonly exportBytes: number | null;
  readonly error: string | null;
  readonly createdAt: number;
}

export type NewBulkReport = Omit<BulkReportRow, 'exportBytes' | 'error'>;

export type BulkReportPatch = Partial<
  Pick<BulkReportRow, 'status' | 'exportStatus' | 'exportBytes' | 'error'>
>;

export interface BulkJobStore {
  /** Creates a job in state `SUBMITTING`. */
  create(job: NewBulkJob): Promise<BulkJobRow>;
  /** Appends records (positions `firstIndex`, `firstIndex + 1`, ...) to a `SUBMITTING` job. */
  appendRecords(jobId: string, firstIndex: number, queries: readonly string[]): Promise<void>;
  /** Ends submission: `SUBMITTING` → `NOT_STARTED` with `total` records. */
  publish(jobId: string, total: number): Promise<BulkJobRow>;
  /** A visible job (neither `SUBMITTING` nor `DELETING`); `undefined` otherwise. */
  get(jobId: string): Promise<BulkJobRow | undefined>;
  /** The visible jobs of a token, newest first. */
  listForToken(tokenId: string): Promise<BulkJobRow[]>;
  /** Jobs in any of `states` (internal states included), oldest first. */
  listByState(states: readonly BulkJobState[]): Promise<BulkJobRow[]>;
  /** Visible jobs finished (`completedTime`) before `before`, oldest first, at most `limit`. */
  listFinishedBefore(before: number, limit: number): Promise<BulkJobRow[]>;
  /**
   * Changes fields of a job; returns the updated row, `undefined` if absent. With `ifState`, only
   * while the job's state is one of them (else nothing changes and it returns `undefined`): state
   * transitions that must not overwrite a concurrent stop or delete.
   */
  update(
    jobId: string,
    patch: BulkJobPatch,
    ifState?: readonly BulkJobState[],
  ): Promise<BulkJobRow | undefined>;
  /**
   * Replaces the job's webhook state with `to` only while it is still `from` (as stored): of
   * processes starting a delivery at once, one succeeds. Returns whether it changed.
   */
  replaceWebhook(jobId: string, from: BulkWebhookState, to: BulkWebhookState): Promise<boolean>;
  /**
   * Inside a transaction: the job if it is being worked on (`NOT_STARTED` or `IN_PROCESS`),
   * locked so that no other transaction changes it (a stop, a delete, another batch's commit)
   * until this one ends; `undefined` otherwise. Results are committed under it: a stop that
   * answered has no result stored after it.
   */
  lockRunning(jobId: string): Promise<BulkJobRow | undefined>;
  /**
   * Records without a result, from position `fromIndex` on, in order, at most `limit`.
   * After a crash these are exactly the records still to process.
   */
  pendingRecords(jobId: string, fromIndex: number, limit: number): Promise<BulkRecord[]>;
  /**
   * Stores results and adds them to the job's counters (`completed`, `failed`, `hits`,
   * `resultBytes`, the JSON Lines size of the full responses). A record has at most one result: storing a second one throws (nothing of
   * the call is kept when it runs inside `Storage.transaction`).
   */
  saveResults(jobId: string, results: readonly BulkResult[]): Promise<void>;
  /** The result of one record, `undefined` while it has none. */
  result(jobId: string, index: number): Promise<BulkResult | undefined>;
  /**
   * Stored results from position `fromIndex` on, in order, at most `limit`. With
   * `searchInfo: false` the `searchInfo` part is not read (it is the empty string): columnar
   * exports never need it. With `summary: true` (`searchInfo` is not read then either) a result stored with a
   * summary has it in `summary` and `response` is the empty string, not read; one stored without
   * has its `response` and no `summary`.
   */
  results(
    jobId: string,
    fromIndex: number,
    limit: number,
    options?: { searchInfo?: boolean; summary?: boolean },
  ): Promise<BulkResult[]>;
  /**
   * Deletes up to `limit` records and results of a job; when none are left, deletes the job
   * and its reports too and returns true. Idempotent.
   */
  purge(jobId: string, limit: number): Promise<boolean>;
  /**
   * Adds a report, `key` being unique per job: when the job already has a report of that key
   * (added concurrently, by this process or another), returns that one and adds nothing.
   */
  addReport(report: NewBulkReport): Promise<BulkReportRow>;
  updateReport(reportId: string, patch: BulkReportPatch): Promise<BulkReportRow | undefined>;
  /** Reports of a job, oldest first. */
  reports(jobId: string): Promise<BulkReportRow[]>;
  report(jobId: string, reportId: string): Promise<BulkReportRow | undefined>;
  reportByKey(jobId: string, key: string): Promise<BulkReportRow | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Custom APIs (extraction rule sets)
// ---------------------------------------------------------------------------------------------

/** A stored Custom API rule set. Identity: (`tokenId`, `api`, `urlPattern`), exact strings. */
export interface CustomApiRecord {
  /** Opaque id returned in `hashes`; kept across updates of the same (api, urlPattern) pair. */
  readonly hash: string;
  readonly tokenId: string;
  /** `/api/<name>`. */
  readonly api: string;
  readonly urlPattern: string;
  /** The normalised rule set (JSON object), as the extraction module defines it. */
  readonly ruleset: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A rule set to write; `hash` is used only when the pair is new. */
export interface CustomApiWrite {
  readonly api: string;
  readonly urlPattern: string;
  readonly hash: string;
  readonly ruleset: Readonly<Record<string, unknown>>;
}

export interface CustomApiStore {
  /**
   * Creates the token's rule set for (`api`, `urlPattern`) with `input.hash`, or, when that
   * pair exists, replaces its rule set wholesale and keeps its hash. Returns the stored record.
   */
  save(tokenId: string, input: CustomApiWrite): Promise<CustomApiRecord>;
  /**
   * Atomically replaces all of the token's rule sets by `inputs` (in that order). A pair that
   * existed before keeps its hash and creation time. Returns the stored records in order.
   */
  replaceAll(tokenId: string, inputs: readonly CustomApiWrite[]): Promise<CustomApiRecord[]>;
  /** The token's rule sets in creation order (replace-all order for replaced sets). */
  list(tokenId: string): Promise<CustomApiRecord[]>;
  /** The token's rule sets whose `api` is one of `apis`, in creation order. */
  listByApi(tokenId: string, apis: readonly string[]): Promise<CustomApiRecord[]>;
  /** Deletes the token's rule set for the pair; the deleted record, or `undefined` when absent. */
  delete(tokenId: string, api: string, urlPattern: string): Promise<CustomApiRecord | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Bulk extract jobs (area C)
// ---------------------------------------------------------------------------------------------

/** The settings of a bulk extract job as validated at creation (`crawl/job-settings.ts`). */
export interface CrawlJobSettings {
  /** The `apiUrl` as submitted. */
  readonly apiUrl: string;
  /** Extraction API name taken from `apiUrl` (`article`, a Custom API name, ...). */
  readonly api: string;
  /** Request headers sent with every page fetch. */
  readonly customHeaders: Readonly<Record<string, string>>;
  /** URL POSTed the job record at the end of each round; `''` for none. */
  readonly notifyWebhook: string;
  /** Shown in the job record as submitted; Quarry sends no e-mail. `''` for none. */
  readonly notifyEmail: string;
  readonly obeyRobots: boolean;
  /** Days between round starts; 0 = no repeat. */
  readonly repeat: number;
  /** Rounds at most: 0 or 1 = one round, -1 = unlimited (with `repeat`). */
  readonly maxRounds: number;
  /** `||`-separated substrings; a page is processed when its URL contains one. `''` = every page. */
  readonly pageProcessPattern: string;
  /** Seconds between two fetch starts on one host (at least; robots.txt may ask for more). */
  readonly crawlDelay: number;
  /** Merge extracted Organization and Person objects into the knowledge graph. */
  readonly kgIngest: boolean;
  /** Scheme, host and port the job was created through: base of its download links. */
  readonly publicBaseUrl: string;
}

/** The counters of a job record (docs/api.md#counters). */
export interface CrawlJobCounters {
  readonly pageCrawlAttempts: number;
  readonly pageCrawlSuccesses: number;
  readonly pageCrawlSuccessesThisRound: number;
  readonly pageProcessAttempts: number;
  readonly pageProcessSuccesses: number;
  readonly pageProcessSuccessesThisRound: number;
  readonly objectsFound: number;
  readonly roundsCompleted: number;
}

/** A job as stored. Times are epoch milliseconds. */
export interface StoredCrawlJob {
  readonly id: number;
  readonly tokenId: string;
  readonly name: string;
  readonly settings: CrawlJobSettings;
  /** `jobStatus.status` code (crawl/job-status.ts). */
  readonly status: number;
  /** The status that resume (or the end of maintenance) restores; `null` when not held. */
  readonly resumeStatus: number | null;
  readonly createdAt: number;
  /** When the job last reached a final status; `null` while it has not. */
  readonly completedAt: number | null;
  readonly roundStartedAt: number | null;
  /** When the next round starts (status 4); `null` otherwise. */
  readonly nextRoundAt: number | null;
  /** Valid, distinct URLs in the frontier. */
  readonly urlCount: number;
  readonly counters: CrawlJobCounters;
  readonly sentDoneNotification: boolean;
}

/** A submitted URL: `host` is the politeness key (`URL.host`); `invalid` explains a rejected one. */
export type NewCrawlUrl =
  | { readonly url: string; readonly host: string; readonly invalid?: undefined }
  | { readonly url: string; readonly host?: undefined; readonly invalid: string };

/** The fields of a job that state transitions change. Absent fields are left as they are. */
export interface CrawlJobPatch {
  readonly status?: number;
  readonly resumeStatus?: number | null;
  readonly completedAt?: number | null;
  readonly nextRoundAt?: number | null;
  readonly roundStartedAt?: number | null;
  readonly sentDoneNotification?: boolean;
  /** Added to `roundsCompleted`. */
  readonly addRoundsCompleted?: number;
}

/** A URL taken from the frontier by the scheduler. */
export interface ClaimedUrl {
  readonly jobId: number;
  readonly seq: number;
  readonly hostId: number;
  readonly url: string;
  /** Crawl attempts already made on it in this round. */
  readonly attempts: number;
  /** The claim id: outcomes and releases only apply while it still holds. */
  readonly claim: number;
}

/** How a URL ended in a round (`type=urls` download). */
export type CrawlUrlOutcome =
  | 'processed'
  | 'not_processed'
  | 'process_failed'
  | 'fetch_failed'
  | 'robots_disallowed'
  | 'invalid_url';

/**
 * The result of working on one claimed URL, applied atomically with its counter increments and
 * objects. `retry` puts the URL back in the frontier until `notBefore`.
 */
export interface CrawlPageOutcome {
  readonly jobId: number;
  readonly seq: number;
  readonly claim: number;
  readonly kind: 'retry' | 'done';
  /** Crawl attempts made (added to the URL and to `pageCrawlAttempts`). */
  readonly crawlAttempts: number;
  /** A 2xx page was fetched. */
  readonly crawled: boolean;
  /** Extraction ran on the page. */
  readonly processAttempted: boolean;
  /** Extraction succeeded. */
  readonly processed: boolean;
  /** Extracted objects, each serialised as JSON. */
  readonly objects: readonly string[];
  /** Set when `kind` is `done`. */
  readonly outcome?: CrawlUrlOutcome;
  readonly httpStatus?: number;
  readonly error?: string;
  readonly finalUrl?: string;
  /** Set when `kind` is `retry`: not claimed again before this time. */
  readonly notBefore?: number;
  readonly at: number;
}

/** One line of the per-URL report. */
export interface CrawlUrlReport {
  readonly seq: number;
  readonly url: string;
  readonly state: 'pending' | 'in_progress' | 'done';
  readonly outcome: CrawlUrlOutcome | null;
  readonly httpStatus: number | null;
  readonly attempts: number;
  readonly error: string | null;
  readonly finalUrl: string | null;
  readonly objects: number;
  readonly finishedAt: number | null;
}

/**
 * How long a webhook handed out by `dueWebhooks` stays claimed by its process, ms: six times
 * a delivery's request timeout, so a live process always finishes first.
 */
export const CRAWL_WEBHOOK_LEASE_MS = 60_000;

/** A webhook delivery waiting in the outbox. */
export interface CrawlWebhook {
  readonly id: number;
  readonly jobId: number;
  readonly url: string;
  /** The request body (JSON). */
  readonly payload: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Deliveries tried so far. */
  readonly attempts: number;
  readonly nextAttemptAt: number;
}

/**
 * Bulk extract jobs, their frontier, extracted objects and webhook outbox. Every method is one
 * atomic step; `Storage.transaction` groups several. Job ids are the store's; names are unique
 * per token.
 */
export interface CrawlJobStore {
  /**
   * Creates a job with its URLs (in submitted order, `seq` 0-based) and their hosts.
   * Returns `undefined`, storing nothing, when the token already has a job of that name.
   */
  createJob(input: {
    tokenId: string;
    name: string;
    settings: CrawlJobSettings;
    status: number;
    resumeStatus: number | null;
    urls: readonly NewCrawlUrl[];
    now: number;
  }): Promise<StoredCrawlJob | undefined>;
  findJob(tokenId: string, name: string): Promise<StoredCrawlJob | undefined>;
  getJob(id: number): Promise<StoredCrawlJob | undefined>;
  /** The token's jobs, oldest first. */
  listJobs(tokenId: string): Promise<StoredCrawlJob[]>;
  /** Every job whose status is one of `statuses`, oldest first. */
  jobsWithStatus(statuses: readonly number[]): Promise<StoredCrawlJob[]>;
  /**
   * Applies `patch`; when `ifStatus` is given, only while the job's status is one of them.
   * Returns whether the job changed.
   */
  updateJob(id: number, patch: CrawlJobPatch, ifStatus?: readonly number[]): Promise<boolean>;
  /**
   * Starts a new round: every valid URL back to pending with no attempts, the this-round
   * counters at zero, `roundStartedAt = now`, no next round, notification not sent, `status`.
   * With `ifStatus`, only when the job has that status (of processes starting the round at once,
   * one does). Returns whether it started.
   */
  startRound(id: number, now: number, status: number, ifStatus?: number): Promise<boolean>;
  /** Restart: like `startRound`, and also deletes the objects and zeroes every counter. */
  resetJob(id: number, now: number, status: number): Promise<void>;
  /** Deletes the job, its URLs, hosts, objects and pending webhooks. False when unknown. */
  deleteJob(id: number): Promise<boolean>;
  /**
   * Jobs whose status is one of `from` get status `to` and remember the one they had in
   * `resumeStatus` (entering maintenance). Returns the ids changed.
   */
  holdJobs(from: readonly number[], to: number): Promise<number[]>;
  /** Jobs in `status` get back their `resumeStatus` (leaving maintenance). Returns the ids changed. */
  restoreHeldJobs(status: number): Promise<number[]>;
  /**
   * At the scheduler's start: puts back to pending every URL claimed by this store (an earlier
   * run in this process) or by a process that is no longer running (stopped or crashed), counting
   * each as one crawl attempt of its job and of the URL: URLs are claimed when their fetch begins,
   * so the site may have seen that request (issue 28). On a store only one process writes, that is
   * every claimed URL. Returns how many.
   */
  recoverClaims(): Promise<number>;
  /**
   * While running: puts back to pending the URLs claimed by processes that are no longer
   * running, so that a crashed process's work is done by the others. Never takes a claim of a
   * running process (this one included). Returns how many (always 0 on a store only one process
   * writes).
   */
  recoverLostClaims(): Promise<number>;
  /** The hosts of a job's valid URLs. */
  hosts(jobId: number): Promise<Array<{ hostId: number; host: string }>>;
  /**
   * Claims up to `limit` pending URLs of one host whose `notBefore` has passed, in submitted
   * order, marking them with `claim`.
   */
  claim(jobId: number, hostId: number, now: number, limit: number, claim: number): Promise<ClaimedUrl[]>;
  /** Puts claimed URLs back to pending, for those whose claim still holds. */
  release(urls: readonly ClaimedUrl[]): Promise<void>;
  /** Earliest `notBefore` of a host's pending URLs; `undefined` when none is pending. */
  nextPendingAt(jobId: number, hostId: number): Promise<number | undefined>;
  /** URLs of the job not yet done in this round (pending or claimed). */
  unfinishedCount(jobId: number): Promise<number>;
  /**
   * Applies outcomes in one transaction. An outcome whose claim no longer holds (the job was
   * restarted or deleted meanwhile) is skipped whole. Returns, per outcome, whether it applied.
   */
  recordOutcomes(outcomes: readonly CrawlPageOutcome[]): Promise<boolean[]>;
  /** Extracted objects after `afterId` in extraction order: the stored JSON text. */
  listObjects(jobId: number, afterId: number, limit: number): Promise<Array<{ id: number; doc: string }>>;
  /** Per-URL report lines after `afterSeq`, in submitted order. */
  listUrls(jobId: number, afterSeq: number, limit: number): Promise<CrawlUrlReport[]>;
  /**
   * Queues a notification of the job, replacing the job's notifications not yet delivered (a
   * newer status supersedes them: a receiver that keeps the last message must not get an
   * older one after it).
   */
  enqueueWebhook(input: {
    jobId: number;
    url: string;
    payload: string;
    headers: Readonly<Record<string, string>>;
    at: number;
  }): Promise<void>;
  /**
   * Claims the webhooks due at `now` and returns them, oldest first: of processes polling at
   * once, one gets each. Only the newest notification of a job is handed out, and none of a job
   * whose delivery is claimed (one delivery per job at a time, in order). A claim lasts until
   * `webhookDelivered`/`webhookFailed`, or `CRAWL_WEBHOOK_LEASE_MS` after `now` (a process that
   * died mid-delivery): then the notification is due again.
   */
  dueWebhooks(now: number, limit: number): Promise<CrawlWebhook[]>;
  /** Earliest time a webhook is due (its claim's end when claimed); `undefined` when empty. */
  nextWebhookAt(): Promise<number | undefined>;
  /** Removes a delivered webhook and marks its job's notification as sent. */
  webhookDelivered(id: number): Promise<void>;
  /** Records a failed try: retried at `nextAttemptAt`, or dropped when it is `undefined`. */
  webhookFailed(id: number, error: string, nextAttemptAt: number | undefined): Promise<void>;
  /** An operator switch (e.g. `maintenance`); `undefined` when never set. */
  getSwitch(name: string): Promise<string | undefined>;
  setSwitch(name: string, value: string, now: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Origin fetches (refresh and search)
// ---------------------------------------------------------------------------------------------

/**
 * The last fetch of a page that refresh or search read for the knowledge graph
 * (docs/api.md#refresh-and-search): what `refreshInfo` reports and what the freshness window
 * (`QUARRY_REFRESH_MAX_AGE`) is measured from.
 */
export interface OriginFetchRecord {
  /** The URL as requested: the source identity of the facts the page states. */
  readonly url: string;
  /** When the fetch ended, epoch ms. */
  readonly fetchedAt: number;
  /** Whether the page gave an entity statement. */
  readonly hasResult: boolean;
  /** HTTP status of the answer; `null` when there was none (refused, network error, robots). */
  readonly httpStatus: number | null;
  /** What happened, in words (the `refreshInfo` message). */
  readonly message: string;
}

/**
 * Origin fetches, one record per URL (the latest). Promises: the event loop calls it, between
 * page fetches.
 */
export interface OriginFetchStore {
  /** The record of each of `urls` that has one, keyed by URL. */
  lastFetches(urls: readonly string[]): Promise<Map<string, OriginFetchRecord>>;
  /** Stores `fetches`, each replacing the record of its URL. */
  record(fetches: readonly OriginFetchRecord[]): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Work spread over the processes of a deployment
// ---------------------------------------------------------------------------------------------

/** An item of work: plain JSON data. */
export type WorkItem = Readonly<Record<string, unknown>>;

/**
 * Work handed out to every process of a deployment by a job-queue library (pg-boss on
 * PostgreSQL): no lease or heartbeat of ours. Present on stores several processes share.
 */
export interface WorkQueue {
  /** Adds `items` to `queue` in the transaction `tx`: nothing is queued when it rolls back. */
  send(tx: StorageTransaction, queue: string, items: readonly WorkItem[]): Promise<void>;
  /**
   * Runs `handler` for the items of `queue`, at most `concurrency` at once in this process. Each
   * item's handler runs in one transaction with the item's completion: what it writes through
   * `tx` commits together with the item being done. When the handler throws, neither happens
   * and the item is tried again after a backoff; when the process dies, the database ends the
   * transaction and the item is handed to another process at once. Resolves once working.
   * `onFailure` hears of each failed attempt (the handler's error, or the commit's) and how
   * long this worker waits before taking an item again.
   */
  work(
    queue: string,
    options: {
      readonly concurrency: number;
      readonly onFailure?: (item: WorkItem, error: Error, retryInMs: number) => void;
    },
    handler: (item: WorkItem, tx: StorageTransaction) => Promise<void>,
  ): Promise<void>;
  /** Items of `queue` not done yet (queued, being worked on or waiting for a retry). */
  pending(queue: string): Promise<number>;
  /** Stops taking items and waits for the running handlers; unfinished items stay queued. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Turns of hosts: politeness of fetches across the processes of a deployment
// ---------------------------------------------------------------------------------------------

/** The answer to a request for a host's turn: taken (`token` ends it) or not yet. */
export type HostTurn =
  | { readonly granted: true; readonly token: number }
  /** `waitMs`: how long until the turn may be free, as far as the store knows now (≥ 0). */
  | { readonly granted: false; readonly waitMs: number };

/**
 * Who fetches from a host now, for every process of a deployment (crawl/host-politeness.ts keeps
 * the order of this process's own requests): one turn of a host at a time, and a turn begins
 * only `delayMs` after the previous one ended. Each request is one atomic statement: no two
 * processes ever hold a host at once, whatever their timing. Times are the store's clock.
 */
export interface HostTurnStore {
  /**
   * Takes the turn of `host` if nobody holds it and `delayMs` passed since the last turn ended.
   * A turn not ended within `holdMs` (its process hung) or whose process is gone is free again.
   */
  take(host: string, delayMs: number, holdMs: number): Promise<HostTurn>;
  /** Ends the turn `token` of `host` now; nothing when it no longer holds (it lapsed). */
  release(host: string, token: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The whole storage, as opened by the composition root.
// ---------------------------------------------------------------------------------------------

/** The asynchronous ports, bound to one transaction. */
export interface StorageTransaction {
  readonly tokens: TokenStore;
  readonly bulkJobs: BulkJobStore;
  readonly customApis: CustomApiStore;
  readonly crawlJobs: CrawlJobStore;
  readonly originFetches: OriginFetchStore;
}

export interface Storage extends StorageTransaction {
  /** The graph, synchronously (see the module comment). */
  readonly entities: EntityStore;
  /**
   * The work queue of a store several processes share (PostgreSQL); `undefined` on a store one
   * process uses (the embedded store: jobs are worked on in that process).
   */
  readonly workQueue: WorkQueue | undefined;
  /**
   * Turns of hosts shared by the processes of a deployment (PostgreSQL); `undefined` on a store
   * one process uses, whose politeness in memory is exact.
   */
  readonly hostTurns: HostTurnStore | undefined;
  /**
   * Runs `fn` in one transaction: the ports of `tx` join it, and its writes commit together
   * when `fn` resolves or not at all when it rejects. Calls through the asynchronous ports of
   * this `Storage` (not `tx`) are held until it ends: use `tx` inside `fn`. Calls of this
   * storage's synchronous `entities` made while `fn` runs join it (the crawl writer merges a
   * page's entities with its outcome) — on PostgreSQL in a store opened `synchronous`, whose
   * transactions run on the connection `entities` uses. `fn` should only await the store.
   */
  transaction<T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` over one consistent snapshot of the graph (a read transaction; inside a
   * transaction it simply joins it). Readers answering many queries in a row (bulk worker
   * threads) use it so that concurrent commits neither change the graph under one query nor
   * cost them their page cache statement after statement.
   */
  readSnapshot<T>(fn: () => T): T;
  /**
   * Resolves when the store answers (`GET /healthz`); rejects when it does not. Never blocks the
   * calling thread on a database: the event loop calls it.
   */
  ping(): Promise<void>;
  /** Closes the connections; resolves once they are closed. */
  close(): Promise<void>;
}
