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
  profiles(refs: readonly number[]): CandidateProfile[];
  counts(): EntityCounts;
  /** Version string of the graph: changes whenever an import writes. */
  version(): string;
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
  readonly customApis: CustomApiStore;
  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T;
  close(): void;
}
