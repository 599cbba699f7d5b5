/**
 * Storage ports: what each capability needs from persistence, named for what it holds.
 * Services depend only on these interfaces; SQL lives in the adapters (`sqlite/`, later
 * `postgres/`). Every adapter runs the same contract suite (`test/storage-contract.ts`).
 *
 * Methods are synchronous where the embedded adapter can answer synchronously and a hot path
 * needs it (matching runs inside worker threads, one connection each); an adapter for a remote
 * database implements the async variants of a port instead, declared beside it when needed.
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
  create(input: { id: string; secretHash: string; label?: string; credits: number | null }): TokenRecord;
  /** Finds a token by the SHA-256 hex of its secret; `undefined` when unknown. */
  findBySecretHash(secretHash: string): TokenRecord | undefined;
  findById(id: string): TokenRecord | undefined;
  /**
   * Atomically takes `amount` credits when the balance covers it (always for unlimited tokens).
   * Returns false, changing nothing, when it does not. `amount` 0 always succeeds.
   */
  charge(id: string, amount: number): boolean;
  /** Gives credits back (after a failed operation that was charged). */
  refund(id: string, amount: number): void;
  list(): TokenRecord[];
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

/** What the scorer reads for one candidate. */
export interface CandidateProfile {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  readonly profile: unknown;
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
   * Indexes the keys of every entity written with `deferKeys` (by any process, also one that
   * crashed before indexing). Idempotent; returns how many entities it indexed (0 when none).
   */
  indexPendingKeys(): number;
  /** The stored entities among `ids` (absent ids are left out), keyed by id: one query per call. */
  getByIds(ids: readonly string[]): Map<string, StoredEntity>;
  getById(id: string): StoredEntity | undefined;
  getByRefs(refs: readonly number[]): StoredEntity[];
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
  create(job: NewBulkJob): BulkJobRow;
  /** Appends records (positions `firstIndex`, `firstIndex + 1`, ...) to a `SUBMITTING` job. */
  appendRecords(jobId: string, firstIndex: number, queries: readonly string[]): void;
  /** Ends submission: `SUBMITTING` → `NOT_STARTED` with `total` records. */
  publish(jobId: string, total: number): BulkJobRow;
  /** A visible job (neither `SUBMITTING` nor `DELETING`); `undefined` otherwise. */
  get(jobId: string): BulkJobRow | undefined;
  /** The visible jobs of a token, newest first. */
  listForToken(tokenId: string): BulkJobRow[];
  /** Jobs in any of `states` (internal states included), oldest first. */
  listByState(states: readonly BulkJobState[]): BulkJobRow[];
  /** Visible jobs finished (`completedTime`) before `before`, oldest first, at most `limit`. */
  listFinishedBefore(before: number, limit: number): BulkJobRow[];
  /** Changes fields of a job (any state); returns the updated row, `undefined` if absent. */
  update(jobId: string, patch: BulkJobPatch): BulkJobRow | undefined;
  /**
   * Records without a result, from position `fromIndex` on, in order, at most `limit`.
   * After a crash these are exactly the records still to process.
   */
  pendingRecords(jobId: string, fromIndex: number, limit: number): BulkRecord[];
  /**
   * Stores results and adds them to the job's counters (`completed`, `failed`, `hits`,
   * `resultBytes`, the JSON Lines size of the full responses). A record has at most one result: storing a second one throws (nothing of
   * the call is kept when it runs inside `Storage.transaction`).
   */
  saveResults(jobId: string, results: readonly BulkResult[]): void;
  /** The result of one record, `undefined` while it has none. */
  result(jobId: string, index: number): BulkResult | undefined;
  /**
   * Stored results from position `fromIndex` on, in order, at most `limit`. With
   * `searchInfo: false` the `searchInfo` part is not read (it is the empty string): columnar
   * exports never need it.
   */
  results(jobId: string, fromIndex: number, limit: number, options?: { searchInfo?: boolean }): BulkResult[];
  /**
   * Deletes up to `limit` records and results of a job; when none are left, deletes the job
   * and its reports too and returns true. Idempotent.
   */
  purge(jobId: string, limit: number): boolean;
  /** Adds a report; `key` is unique per job. */
  addReport(report: NewBulkReport): BulkReportRow;
  updateReport(reportId: string, patch: BulkReportPatch): BulkReportRow | undefined;
  /** Reports of a job, oldest first. */
  reports(jobId: string): BulkReportRow[];
  report(jobId: string, reportId: string): BulkReportRow | undefined;
  reportByKey(jobId: string, key: string): BulkReportRow | undefined;
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
  save(tokenId: string, input: CustomApiWrite): CustomApiRecord;
  /**
   * Atomically replaces all of the token's rule sets by `inputs` (in that order). A pair that
   * existed before keeps its hash and creation time. Returns the stored records in order.
   */
  replaceAll(tokenId: string, inputs: readonly CustomApiWrite[]): CustomApiRecord[];
  /** The token's rule sets in creation order (replace-all order for replaced sets). */
  list(tokenId: string): CustomApiRecord[];
  /** The token's rule sets whose `api` is one of `apis`, in creation order. */
  listByApi(tokenId: string, apis: readonly string[]): CustomApiRecord[];
  /** Deletes the token's rule set for the pair; the deleted record, or `undefined` when absent. */
  delete(tokenId: string, api: string, urlPattern: string): CustomApiRecord | undefined;
}

// ---------------------------------------------------------------------------------------------
// The whole storage, as opened by the composition root.
// ---------------------------------------------------------------------------------------------

export interface Storage {
  readonly tokens: TokenStore;
  readonly entities: EntityStore;
  readonly bulkJobs: BulkJobStore;
  readonly customApis: CustomApiStore;
  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T;
  close(): void;
}
