import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { EntityType } from '../../kg/index.ts';
import type {
  CandidateProfile,
  EntityCounts,
  EntityStore,
  EntityWrite,
  SerializedEntityWrite,
  StoredEntity,
  StoredEntityWithKeys,
  WriteBatchOptions,
} from '../ports.ts';
import {
  type EntityRow,
  newVersion,
  prefixEnd,
  toCandidateProfile,
  toStored,
  toStoredWithKeys,
} from '../entity-rows.ts';
import { withPragmas } from './sqlite-database.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

/** What the key pass's thread (key-pass-worker.ts) answers: entities indexed, or why it failed. */
export type KeyPassAnswer = { readonly indexed: number } | { readonly error: string };
/** A key and its refs as a JSON array (`refsForKeys`). */
type Posting = [key: string, refs: string];
/** Keys whose postings one statement reads (`refsForKeys`). */
const KEYS_PER_STATEMENT = 64;
/**
 * Postings limits that get a statement of their own with the limit written in (`refsForKeys`);
 * callers use a handful (20, 100, 200, 1000, 2000). Others are bound, as every limit was before.
 */
const LITERAL_LIMITS = 16;
/** Pending entities whose keys one `indexPendingKeys` pass indexes. */
const PENDING_CHUNK = 2_000_000;
/**
 * Page cache (KiB) while `indexPendingKeys` sorts: SQLite sizes each in-memory run of its external
 * sort by the cache, and runs that fit the CPU caches sort much faster than 64 MiB ones, more
 * than paying for the extra merge pass; the (key, ref) tree, filled in key order, needs few pages.
 * Measured (CPU of the indexing statement): 4.2M keys 5.3 → 3.0 s, 21M keys 27.7 → 13.7 s; 1
 * and 2 MiB were no better, 8 and 16 MiB worse.
 */
const SORT_CACHE_KIB = 4096;
/**
 * Helper threads of SQLite's sorter while `indexPendingKeys` sorts (one per core besides this
 * one, at most 4): the pass runs after an import's preparation threads have ended, so the other
 * cores are free. Measured on 2 cores, sorting and indexing 10.4M keys (1M demo entities): 12.3
 * → 9.5 s wall for 15.5 s CPU instead of 12.2 (2 helper threads were no faster than 1).
 */
const SORT_THREADS = Math.min(4, Math.max(0, os.availableParallelism() - 1));
/** SQLite's default WAL auto-checkpoint, in pages. */
const DEFAULT_WAL_PAGES = 1000;
/**
 * WAL auto-checkpoint while bulk loading, in bytes (64 MiB): the id index takes inserts at
 * random places, so consecutive batches dirty the same pages; checkpointing less often copies
 * each of them into the database once instead of once per batch (measured: main-thread CPU of a
 * 600k-entity import 10.5 s → 8.8 s).
 */
const BULK_WAL_BYTES = 64 * 2 ** 20;
/**
 * A deferred batch of at least this many entities is a large load: from then on a thread of its
 * own checkpoints the WAL (`startWalCheckpointer`) until the load ends. The checkpoint that a
 * commit runs on the writing thread syncs the WAL, copies it into the database and syncs that:
 * with 50,000-entity batches (~85 MB of WAL each) the import's main thread, which paces the whole
 * import, waited about 0.3 s per batch on the disk. Measured on the 1M + 1M demo graph (2 cores):
 * the import before its key pass took 65.6 → 56.8 s; cores busy 1.5-1.7 → 1.8-1.9 of 2.
 */
const BACKGROUND_CHECKPOINT_BATCH = 10_000;
/**
 * WAL auto-checkpoint (bytes) while the background thread checkpoints: above a batch's WAL, so
 * commits leave the copying to that thread; a ceiling in case it falls behind (a long reader
 * pins the WAL), where the writer checkpoints by itself as before.
 */
const BACKGROUND_WAL_CEILING_BYTES = 1024 * 2 ** 20;

/**
 * Fewest pending entities for which `indexPendingKeysOffThread` starts a thread: below, the pass
 * takes under ~0.6 s (2M entities took 11-13 s) and runs on the calling thread. Starting the
 * thread and its connection costs ~70 ms (a one-entity pass off-thread, Zen 4).
 */
const OFF_THREAD_MIN_PENDING = 100_000;

export interface SqliteEntityStoreOptions {
  /** See `OFF_THREAD_MIN_PENDING` (its default). */
  readonly offThreadMinPending?: number;
}

/**
 * Runs `indexPendingKeys` on the store file `file` in a worker thread with a connection of its
 * own (key-pass-worker.ts); resolves with how many entities it indexed.
 */
function runKeyPassThread(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./key-pass-worker.ts', import.meta.url), { workerData: { file } });
    let answer: KeyPassAnswer | undefined;
    worker.once('message', (message: KeyPassAnswer) => {
      answer = message;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (answer === undefined)
        reject(new Error(`the key pass thread exited (code ${code}) before answering`));
      else if ('error' in answer) reject(new Error(answer.error));
      else resolve(answer.indexed);
    });
  });
}

/**
 * The knowledge graph in the embedded store: one row per entity, its match profile in a table of
 * its own (same ref), plus a (key, ref) index.
 */
export class SqliteEntityStore implements EntityStore {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #oldKeys: StatementSync;
  readonly #upsert: StatementSync;
  readonly #insertProfile: StatementSync;
  readonly #upsertProfile: StatementSync;
  readonly #deleteKey: StatementSync;
  readonly #insertKey: StatementSync;
  readonly #byId: StatementSync;
  readonly #byRef: StatementSync;
  readonly #byRefs: StatementSync;
  readonly #after: StatementSync;
  readonly #profileByRef: StatementSync;
  readonly #refsForKey: StatementSync;
  readonly #refsForKeyList: StatementSync;
  /** `#refsForKeyList` with its limit written in, per limit (`postingsStatement`). */
  readonly #refsForKeyListByLimit = new Map<number, StatementSync>();
  readonly #cappedCount: StatementSync;
  readonly #termCounts: StatementSync;
  readonly #version: StatementSync;
  readonly #bumpVersion: StatementSync;
  readonly #insertIfAbsent: StatementSync;
  readonly #markPending: StatementSync;
  readonly #markPendingList: StatementSync;
  readonly #pendingChunk: StatementSync;
  readonly #pendingCount: StatementSync;
  readonly #indexPendingRange: StatementSync;
  readonly #clearPendingRange: StatementSync;
  readonly #byIds: StatementSync;
  readonly #countByType: StatementSync;
  readonly #begin: StatementSync;
  readonly #commit: StatementSync;
  /** Set while deferred-key writes await `indexPendingKeys` (bulk loading settings applied). */
  #bulkLoading = false;
  /** The thread checkpointing the WAL during a large bulk load (`BACKGROUND_CHECKPOINT_BATCH`). */
  #checkpointer: WalCheckpointer | undefined;
  /** Pending entities from which `indexPendingKeysOffThread` starts a thread. */
  readonly #offThreadMinPending: number;
  /** Set once that thread has failed: later loads do without one (`startWalCheckpointer`). */
  #checkpointerFailed = false;
  /** Inside a read snapshot the version cannot change: read once (`pinnedVersion`). */
  #pinned = false;
  #pinnedVersion: string | undefined;

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T, options: SqliteEntityStoreOptions = {}) {
    this.#db = db;
    this.#transaction = transaction;
    this.#offThreadMinPending = options.offThreadMinPending ?? OFF_THREAD_MIN_PENDING;
    this.#oldKeys = db.prepare('SELECT ref, keys FROM entities WHERE id = ?');
    this.#upsert = db.prepare(`
      INSERT INTO entities (id, type, doc, ledger, keys, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET type = excluded.type, doc = excluded.doc, ledger = excluded.ledger,
        keys = excluded.keys, updated_at = excluded.updated_at
      RETURNING ref`);
    // Profiles have a table of their own (migration 3), written with their entity's row.
    this.#insertProfile = db.prepare(
      'INSERT INTO entity_profiles (ref, id, type, profile) VALUES (?, ?, ?, ?)',
    );
    this.#upsertProfile = db.prepare(`
      INSERT INTO entity_profiles (ref, id, type, profile) VALUES (?, ?, ?, ?)
      ON CONFLICT (ref) DO UPDATE SET id = excluded.id, type = excluded.type, profile = excluded.profile`);
    this.#deleteKey = db.prepare('DELETE FROM entity_keys WHERE key = ? AND ref = ?');
    this.#insertKey = db.prepare('INSERT OR IGNORE INTO entity_keys (key, ref) VALUES (?, ?)');
    this.#byId = db.prepare('SELECT ref, id, type, doc, ledger FROM entities WHERE id = ?');
    this.#byRef = db.prepare('SELECT ref, id, type, doc, ledger FROM entities WHERE ref = ?');
    this.#byRefs = db.prepare(`SELECT e.ref, e.id, e.type, e.doc, e.ledger
      FROM json_each(?) AS j JOIN entities AS e ON e.ref = j.value ORDER BY j.key`);
    this.#after = db.prepare(
      'SELECT ref, id, type, doc, ledger, keys FROM entities WHERE ref > ? ORDER BY ref LIMIT ?',
    );
    // One statement for a whole candidate set: a JSON array of refs joined to the profiles' own
    // table, whose pages hold ~5x more rows than the entities' (migration 3).
    this.#profileByRef = db.prepare(
      'SELECT p.ref, p.id, p.type, p.profile FROM json_each(?) AS j JOIN entity_profiles AS p ON p.ref = j.value',
    );
    this.#profileByRef.setReturnArrays(true);
    this.#refsForKey = db.prepare('SELECT ref FROM entity_keys WHERE key = ? ORDER BY ref LIMIT ?');
    // The postings of several keys in one statement, each as one JSON array: a query's lookups
    // cost one call and a few strings instead of a call per key and an array per posting
    // (measured: 8.5 → 3.7 µs for a key with one posting, 250 → 160 µs with 1,000).
    this.#refsForKeyList = db.prepare(`
      SELECT j.value, (SELECT json_group_array(ref) FROM
        (SELECT ref FROM entity_keys WHERE key = j.value ORDER BY ref LIMIT ?2))
      FROM json_each(?1) AS j`);
    this.#refsForKeyList.setReturnArrays(true);
    this.#cappedCount = db.prepare(
      'SELECT count(*) AS n FROM (SELECT 1 FROM entity_keys WHERE key = ? LIMIT ?)',
    );
    // A range scan on the (key, ref) primary key: `prefix` ≤ key < prefix with its last char + 1.
    this.#termCounts = db.prepare(
      'SELECT key, count(*) AS n FROM entity_keys WHERE key >= ? AND key < ? GROUP BY key',
    );
    this.#termCounts.setReturnArrays(true);
    this.#version = db.prepare("SELECT value FROM meta WHERE key = 'kg_version'");
    this.#bumpVersion = db.prepare(
      "INSERT INTO meta (key, value) VALUES ('kg_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    );
    this.#refsForKey.setReturnArrays(true);
    this.#insertIfAbsent = db.prepare(`
      INSERT OR IGNORE INTO entities (id, type, doc, ledger, keys, updated_at)
      VALUES (?, ?, ?, ?, ?, ?)`);
    this.#markPending = db.prepare('INSERT OR IGNORE INTO entity_keys_pending (ref) VALUES (?)');
    // A batch's new entities in one statement (a JSON array of refs) instead of a call each.
    this.#markPendingList = db.prepare(
      'INSERT OR IGNORE INTO entity_keys_pending (ref) SELECT value FROM json_each(?)',
    );
    this.#pendingChunk = db.prepare(
      'SELECT min(ref) AS lo, max(ref) AS hi, count(*) AS n FROM (SELECT ref FROM entity_keys_pending ORDER BY ref LIMIT ?)',
    );
    this.#pendingCount = db.prepare('SELECT count(*) AS n FROM entity_keys_pending');
    // Keys sorted before insertion: the (key, ref) b-tree is then filled page after page instead
    // of at random places, which is what makes bulk loading fast (measured ~10x on 2M keys).
    this.#indexPendingRange = db.prepare(`
      INSERT OR IGNORE INTO entity_keys (key, ref)
      SELECT j.value, e.ref FROM entity_keys_pending p JOIN entities e ON e.ref = p.ref, json_each(e.keys) j
      WHERE p.ref BETWEEN ? AND ? ORDER BY 1, 2`);
    this.#clearPendingRange = db.prepare('DELETE FROM entity_keys_pending WHERE ref BETWEEN ? AND ?');
    // Kept by triggers (migration 21): no scan of the table however large the graph.
    this.#countByType = db.prepare('SELECT type, n FROM entity_counts');
    this.#byIds = db.prepare(
      'SELECT ref, id, type, doc, ledger FROM entities WHERE id IN (SELECT value FROM json_each(?))',
    );
    // Prepared once: `exec` compiles its SQL at every call.
    this.#begin = db.prepare('BEGIN');
    this.#commit = db.prepare('COMMIT');
  }

  /**
   * Runs `fn`'s reads in one read transaction (deferred `BEGIN`: no lock until the first read),
   * or in the transaction already open on this connection. Outside a transaction every statement
   * opens and closes a read transaction of its own (the WAL index's read lock taken and given
   * back): ~7 µs per statement, against ~1 µs inside one (measured on the 1M + 1M demo graph).
   * Used by the matcher for each query (`CandidateSource.readSnapshot`); `fn` must not write.
   */
  readSnapshot<T>(fn: () => T): T {
    if (this.#db.isTransaction) return fn();
    this.#begin.run();
    try {
      return fn();
    } finally {
      if (this.#db.isTransaction) this.#commit.run();
    }
  }

  writeBatch(
    entities: readonly (EntityWrite | SerializedEntityWrite)[],
    options: WriteBatchOptions = {},
  ): void {
    if (entities.length === 0) return;
    const now = Date.now();
    const defer = options.deferKeys === true;
    if (defer) this.#startBulkLoad(entities.length);
    this.#transaction(() => {
      const inserted: number[] = [];
      for (const entity of entities) {
        let keysJson: string;
        let doc: string;
        let ledger: string | null;
        let profile: string;
        let keys: readonly string[] | undefined;
        if ('json' in entity) {
          ({ keys: keysJson, doc, ledger, profile } = entity.json);
        } else {
          keys = entity.keys;
          keysJson = JSON.stringify(entity.keys);
          doc = JSON.stringify(entity.doc);
          ledger =
            entity.ledger === null || entity.ledger === undefined ? null : JSON.stringify(entity.ledger);
          profile = JSON.stringify(entity.profile);
        }
        if (defer) {
          // Most bulk-loaded entities are new: one insert, no lookup. Their keys wait.
          const insert = this.#insertIfAbsent.run(entity.id, entity.type, doc, ledger, keysJson, now);
          if (insert.changes === 1) {
            const ref = Number(insert.lastInsertRowid);
            this.#insertProfile.run(ref, entity.id, entity.type, profile);
            inserted.push(ref);
            continue;
          }
        }
        const previous = this.#oldKeys.get(entity.id) as { ref: number; keys: string } | undefined;
        const { ref } = this.#upsert.get(entity.id, entity.type, doc, ledger, keysJson, now) as {
          ref: number;
        };
        this.#upsertProfile.run(ref, entity.id, entity.type, profile);
        if (previous?.keys === keysJson) continue;
        const fresh = new Set(keys ?? (JSON.parse(keysJson) as string[]));
        if (previous) {
          for (const key of JSON.parse(previous.keys) as string[]) {
            if (!fresh.has(key)) this.#deleteKey.run(key, ref);
          }
        }
        if (defer) this.#markPending.run(ref);
        else for (const key of fresh) this.#insertKey.run(key, ref);
      }
      if (inserted.length > 0) this.#markPendingList.run(JSON.stringify(inserted));
      // Time plus randomness: two writes in the same millisecond still change the version, so
      // matcher caches keyed by it are never stale.
      this.#bumpVersion.run(newVersion(now));
      this.#pinnedVersion = undefined;
    });
  }

  /**
   * Bulk loading settings for a deferred-key batch of `batchSize` entities: the WAL checkpointed
   * less often, and from a thread of its own once a batch is large (`BACKGROUND_CHECKPOINT_BATCH`).
   */
  #startBulkLoad(batchSize: number): void {
    if (!this.#bulkLoading) {
      this.#setAutoCheckpoint(BULK_WAL_BYTES);
      this.#bulkLoading = true;
    }
    if (
      batchSize >= BACKGROUND_CHECKPOINT_BATCH &&
      this.#checkpointer === undefined &&
      !this.#checkpointerFailed
    ) {
      // A file-backed store only: an in-memory one has no WAL.
      const file = this.#db.location();
      if (file !== null) {
        const checkpointer = startWalCheckpointer(file, {
          // The thread is gone: the writer checkpoints by itself again, at the bulk threshold.
          onFailure: () => {
            this.#checkpointerFailed = true;
            if (this.#checkpointer !== checkpointer) return;
            this.#checkpointer = undefined;
            if (this.#bulkLoading && this.#db.isOpen) this.#setAutoCheckpoint(BULK_WAL_BYTES);
          },
        });
        this.#checkpointer = checkpointer;
        this.#setAutoCheckpoint(BACKGROUND_WAL_CEILING_BYTES);
      }
    }
  }

  exclusively<T>(fn: () => T): T {
    // BEGIN IMMEDIATE: the write lock is taken before `fn` reads anything.
    return this.#transaction(fn);
  }

  pendingKeyCount(): number {
    return Number((this.#pendingCount.get() as { n: number }).n);
  }

  indexPendingKeys(): number {
    let indexed = 0;
    // The key pass is one long transaction per chunk: a background checkpoint has nothing to copy
    // until it commits, and the copy after it stays on this thread (so the pass's time includes
    // it). The writer checkpoints by itself again, as before a large load.
    if (this.#checkpointer !== undefined) {
      this.stopBackgroundCheckpoints();
      this.#setAutoCheckpoint(BULK_WAL_BYTES);
    }
    // Sorted on disk, not in memory: SQLite's external merge sort keeps the memory bounded by the
    // page cache however many keys are pending. These pragmas are per connection: restored after.
    const sorting = { temp_store: 'FILE', cache_size: -SORT_CACHE_KIB, threads: SORT_THREADS };
    withPragmas(this.#db, sorting, () => {
      for (;;) {
        // One pass per chunk: each pass merges its sorted keys into the whole (key, ref) tree, so
        // chunks are large (an import of millions is one or two passes); a crash between chunks
        // leaves the rest pending for the next run.
        const done = this.#transaction(() => {
          const chunk = this.#pendingChunk.get(PENDING_CHUNK) as {
            lo: number | null;
            hi: number | null;
            n: number;
          };
          if (chunk.lo === null || chunk.hi === null) return 0;
          this.#indexPendingRange.run(chunk.lo, chunk.hi);
          this.#clearPendingRange.run(chunk.lo, chunk.hi);
          this.#bumpVersion.run(newVersion());
          this.#pinnedVersion = undefined;
          return Number(chunk.n);
        });
        if (done === 0) break;
        indexed += done;
      }
    });
    this.#endBulkLoad();
    return indexed;
  }

  async indexPendingKeysOffThread(): Promise<number> {
    const file = this.#db.location();
    // An in-memory store has no file another connection could open; inside a transaction the
    // pass must join it; a short pass costs less than starting a thread.
    if (file === null || this.#db.isTransaction || this.pendingKeyCount() < this.#offThreadMinPending) {
      return this.indexPendingKeys();
    }
    // This connection's share of `indexPendingKeys`: the load's checkpointing thread ends, and
    // the bulk settings are given back once the pass has committed.
    this.stopBackgroundCheckpoints();
    // Meanwhile this connection's page cache shrinks to what the pass's own connection sorts
    // with: the memory goes to that thread rather than to pages nobody reads until it ends.
    const indexed = await withPragmas(this.#db, { cache_size: -SORT_CACHE_KIB }, () =>
      runKeyPassThread(file),
    );
    this.#pinnedVersion = undefined;
    this.#endBulkLoad();
    return indexed;
  }

  /** After a key pass: a bulk load's WAL settings are given back and what it left is copied. */
  #endBulkLoad(): void {
    if (!this.#bulkLoading) return;
    this.#bulkLoading = false;
    this.#db.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_WAL_PAGES}`);
    this.#db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  }

  /**
   * Ends the checkpointing thread of a large bulk load, if one runs (its keys are being indexed,
   * or the store closes before). The thread finishes the checkpoint it may be in, closes its
   * connection and exits on its own; the process waits for that, not this call.
   */
  stopBackgroundCheckpoints(): void {
    const checkpointer = this.#checkpointer;
    this.#checkpointer = undefined;
    void checkpointer?.stop();
  }

  #setAutoCheckpoint(bytes: number): void {
    const { page_size: pageSize } = this.#db.prepare('PRAGMA page_size').get() as { page_size: number };
    this.#db.exec(`PRAGMA wal_autocheckpoint = ${Math.ceil(bytes / Number(pageSize))}`);
  }

  /** Bulk lookup for imports: the stored entities among `ids`, in one query. */
  getByIds(ids: readonly string[]): Map<string, StoredEntity> {
    const out = new Map<string, StoredEntity>();
    if (ids.length === 0) return out;
    for (const row of this.#byIds.all(JSON.stringify(ids)) as unknown as EntityRow[]) {
      out.set(row.id, toStored(row));
    }
    return out;
  }

  getById(id: string): StoredEntity | undefined {
    const row = this.#byId.get(id) as EntityRow | undefined;
    return row ? toStored(row) : undefined;
  }

  getByRefs(refs: readonly number[]): StoredEntity[] {
    if (refs.length === 1) {
      const row = this.#byRef.get(refs[0]) as EntityRow | undefined;
      return row ? [toStored(row)] : [];
    }
    if (refs.length === 0) return [];
    // Several (a bulk batch's answers): one statement, in the order of `refs`.
    return (this.#byRefs.all(JSON.stringify(refs)) as unknown as EntityRow[]).map(toStored);
  }

  entitiesAfter(afterRef: number, limit: number): StoredEntityWithKeys[] {
    const rows = this.#after.all(afterRef, limit) as unknown as (EntityRow & { keys: string })[];
    return rows.map(toStoredWithKeys);
  }

  keyCounts(keys: readonly string[], cap: number): Map<string, number> {
    const counts = new Map<string, number>();
    for (const key of keys) {
      if (!counts.has(key)) counts.set(key, Number((this.#cappedCount.get(key, cap) as { n: number }).n));
    }
    return counts;
  }

  refsForKey(key: string, limit: number): number[] {
    return (this.#refsForKey.all(key, limit) as unknown as [number][]).map((row) => row[0]);
  }

  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const distinct = [...new Set(keys)];
    const literal = this.#postingsStatement(limitPerKey);
    for (let i = 0; i < distinct.length; i += KEYS_PER_STATEMENT) {
      const chunk = JSON.stringify(distinct.slice(i, i + KEYS_PER_STATEMENT));
      const rows = (literal
        ? literal.all(chunk)
        : this.#refsForKeyList.all(chunk, limitPerKey)) as unknown as Posting[];
      for (const [key, refs] of rows) out.set(key, JSON.parse(refs) as number[]);
    }
    return out;
  }

  /**
   * The postings statement with `limit` written into its SQL instead of bound (prepared once per
   * limit), or undefined for a limit that is not a small whole number or one past the
   * `LITERAL_LIMITS` first ones (the bound statement then). SQLite recompiles the bound form at
   * every run, its `LIMIT` being a bound parameter (`sqlite3Reprepare` under every `refsForKeys`
   * in a `perf` profile of the matcher on 1M + 1M: ~6% of its thread); written in, it does not.
   * Measured with the pages cached: ~10–12 µs per one-key call bound, ~3–4 µs written in
   * (bench/NOTES.md).
   */
  #postingsStatement(limit: number): StatementSync | undefined {
    const known = this.#refsForKeyListByLimit.get(limit);
    if (known) return known;
    if (!Number.isSafeInteger(limit) || limit < 0 || this.#refsForKeyListByLimit.size >= LITERAL_LIMITS)
      return undefined;
    const statement = this.#db.prepare(`
      SELECT j.value, (SELECT json_group_array(ref) FROM
        (SELECT ref FROM entity_keys WHERE key = j.value ORDER BY ref LIMIT ${limit}))
      FROM json_each(?) AS j`);
    statement.setReturnArrays(true);
    this.#refsForKeyListByLimit.set(limit, statement);
    return statement;
  }

  termCounts(prefix: string): Map<string, number> {
    const out = new Map<string, number>();
    const end = prefixEnd(prefix);
    for (const row of this.#termCounts.iterate(prefix, end) as unknown as Iterable<[string, number]>) {
      out.set(row[0].slice(prefix.length), Number(row[1]));
    }
    return out;
  }

  profiles(refs: readonly number[]): CandidateProfile[] {
    if (refs.length === 0) return [];
    const rows = this.#profileByRef.all(JSON.stringify(refs)) as unknown as [
      number,
      string,
      EntityType,
      string,
    ][];
    return rows.map(([ref, id, type, profile]) => toCandidateProfile(ref, id, type, profile));
  }

  counts(): EntityCounts {
    const rows = this.#countByType.all() as { type: EntityType; n: number }[];
    const byType = new Map(rows.map((row) => [row.type, Number(row.n)]));
    return { organizations: byType.get('Organization') ?? 0, persons: byType.get('Person') ?? 0 };
  }

  version(): string {
    if (this.#pinned && this.#pinnedVersion !== undefined) return this.#pinnedVersion;
    const row = this.#version.get() as { value: string } | undefined;
    const version = row?.value ?? 'empty';
    if (this.#pinned) this.#pinnedVersion = version;
    return version;
  }

  /**
   * Runs `fn` with `version()` read at most once: for a read snapshot opened by the caller (the
   * version cannot change inside it, except by this connection's own writes, which reset it).
   */
  pinnedVersion<T>(fn: () => T): T {
    if (this.#pinned) return fn();
    this.#pinned = true;
    this.#pinnedVersion = undefined;
    try {
      return fn();
    } finally {
      this.#pinned = false;
      this.#pinnedVersion = undefined;
    }
  }
}
