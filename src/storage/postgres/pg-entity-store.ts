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
import type { PgExecutor } from './pg-executor.ts';
import type { SyncPostgres } from './sync-bridge.ts';

/** Key of the transaction-scoped advisory lock every graph writer takes: writers take turns. */
const GRAPH_WRITE_LOCK = 7_201_004_002;
/** Pending entities whose keys one `indexPendingKeys` transaction indexes. */
const PENDING_CHUNK = 200_000;
/**
 * One chunk of the key pass: takes pending entities off the list and indexes their keys, in key
 * order (the (key, ref) index fills page after page). Answers how many entities it indexed.
 */
const KEY_PASS_SQL = `WITH chunk AS (DELETE FROM entity_keys_pending WHERE ref IN
    (SELECT ref FROM entity_keys_pending ORDER BY ref LIMIT $1) RETURNING ref),
  keyed AS (INSERT INTO entity_keys (key, ref)
    SELECT DISTINCT k.key, e.ref FROM chunk c JOIN entities e ON e.ref = c.ref,
      jsonb_array_elements_text(e.keys::jsonb) AS k(key)
    ORDER BY 1, 2 ON CONFLICT DO NOTHING)
  SELECT count(*) AS n FROM chunk`;

/** One entity of a batch, as stored. */
interface Prepared {
  readonly id: string;
  readonly type: EntityType;
  readonly doc: string;
  readonly ledger: string | null;
  readonly profile: string;
  readonly keysJson: string;
  readonly keys: readonly string[] | undefined;
}

function prepare(entity: EntityWrite | SerializedEntityWrite): Prepared {
  if ('json' in entity) {
    const { doc, ledger, profile, keys } = entity.json;
    return { id: entity.id, type: entity.type, doc, ledger, profile, keysJson: keys, keys: undefined };
  }
  return {
    id: entity.id,
    type: entity.type,
    doc: JSON.stringify(entity.doc),
    ledger: entity.ledger === null || entity.ledger === undefined ? null : JSON.stringify(entity.ledger),
    profile: JSON.stringify(entity.profile),
    keysJson: JSON.stringify(entity.keys),
    keys: entity.keys,
  };
}

/**
 * Inside a read snapshot, `refsForKeys` also reads the profiles of the refs it answers when
 * they are at most this many (the matcher's candidates are 30 at most, all from those refs):
 * the profiles the matcher asks next are then already here, one blocking round trip fewer.
 */
const PREFETCH_REFS = 30;
/**
 * When the refs whose profiles are read are at most this many, their documents come along:
 * the enhancer's next read is the documents of the winners, nearly always among so few.
 */
const PREFETCH_DOCS = 3;
/**
 * Keys beyond which `refsForKeys` reads no profiles ahead: more than a query asks for at once
 * (a bulk batch's reads, `Matcher.searchMany`), whose refs are nearly always far more than
 * `PREFETCH_REFS`; the statement would collect and count them for nothing.
 */
const PREFETCH_MAX_KEYS = 128;
/** Prefetched profiles kept at most in one snapshot (a bulk batch's snapshot spans 256 records). */
const PREFETCH_KEPT = 4_096;

/**
 * The postings of every key, each as one array (rows with a key), then, when their refs are
 * at most $3 in all, those refs' profiles (rows with a ref). A `SELECT` outside: the bridge
 * sends the COMMIT of a snapshot that only ran `SELECT`s without waiting for it.
 */
const POSTINGS_WITH_PROFILES_SQL = `SELECT * FROM (WITH k AS MATERIALIZED (
    SELECT k.key, ARRAY(SELECT ref FROM entity_keys WHERE key = k.key ORDER BY ref LIMIT $2) AS refs
    FROM unnest($1::text[]) AS k(key)),
  u AS MATERIALIZED (SELECT DISTINCT r.ref FROM k, unnest(k.refs) AS r(ref))
  SELECT k.key, k.refs, NULL::bigint AS ref, NULL::text AS id, NULL::text AS type, NULL::text AS profile,
    NULL::text AS doc, NULL::text AS ledger FROM k
  UNION ALL
  SELECT NULL, NULL, e.ref, e.id, e.type, e.profile, d.doc, d.ledger FROM u JOIN entities e ON e.ref = u.ref
    LEFT JOIN LATERAL (SELECT e.doc, e.ledger WHERE (SELECT count(*) FROM u) <= $4) d ON true
  WHERE (SELECT count(*) FROM u) <= $3) AS postings`;

/** Profiles of refs in their order, with their documents when they are at most $2. */
const PROFILES_SQL = `SELECT e.ref, e.id, e.type, e.profile,
    CASE WHEN cardinality($1::bigint[]) <= $2 THEN e.doc END AS doc,
    CASE WHEN cardinality($1::bigint[]) <= $2 THEN e.ledger END AS ledger
  FROM unnest($1::bigint[]) WITH ORDINALITY AS r(ref, n) JOIN entities e ON e.ref = r.ref ORDER BY r.n`;

/** A profile as read, parsed when asked for. */
interface ProfileRow {
  ref: number;
  id: string;
  type: EntityType;
  profile: string;
  /** The document and ledger, when read along (`PREFETCH_DOCS`). */
  doc?: string | null;
  ledger?: string | null;
}

function toProfile(row: ProfileRow): CandidateProfile {
  return toCandidateProfile(Number(row.ref), row.id, row.type, row.profile);
}

/**
 * The knowledge graph in PostgreSQL, read and written synchronously over the blocking bridge
 * (the matcher's reads happen in worker threads; see `sync-bridge.ts`). Every write bumps the
 * graph version in `meta`: every process's caches are keyed by it, so a write committed by one
 * process is answered by all.
 */
export class PgEntityStore implements EntityStore {
  readonly #db: () => SyncPostgres;
  readonly #async: () => PgExecutor;
  /** Inside a read snapshot the version cannot change: read once (`pinnedVersion`). */
  #pinned = false;
  #pinnedVersion: string | undefined;
  /**
   * In a read snapshot of `readSnapshot` (REPEATABLE READ: every statement sees the same graph),
   * not merely pinned in a transaction whose statements each see the latest commits.
   */
  #snapshot = false;
  /** Profiles `refsForKeys` read ahead in the open snapshot (`PREFETCH_REFS`), by ref. */
  readonly #prefetched = new Map<number, ProfileRow>();
  /** Documents read along with profiles in the open snapshot (`PREFETCH_DOCS`), by ref. */
  readonly #prefetchedDocs = new Map<number, EntityRow>();

  /** `db`: the bridge; `async`: a pool for the off-thread key pass. */
  constructor(db: () => SyncPostgres, async: () => PgExecutor) {
    this.#db = db;
    this.#async = async;
  }

  writeBatch(
    entities: readonly (EntityWrite | SerializedEntityWrite)[],
    options: WriteBatchOptions = {},
  ): void {
    if (entities.length === 0) return;
    const db = this.#db();
    const defer = options.deferKeys === true;
    // The last statement of an id in the batch wins, as written one after the other.
    const byId = new Map<string, Prepared>();
    for (const entity of entities) {
      const prepared = prepare(entity);
      byId.delete(prepared.id);
      byId.set(prepared.id, prepared);
    }
    const batch = [...byId.values()];
    const now = Date.now();
    db.transaction(() => {
      db.query('SELECT pg_advisory_xact_lock($1)', [GRAPH_WRITE_LOCK]);
      const previous = new Map<string, { ref: number; type: EntityType; keys: string }>();
      for (const row of db.query('SELECT id, ref, type, keys FROM entities WHERE id = ANY($1::text[])', [
        batch.map((e) => e.id),
      ]).rows as { id: string; ref: number; type: EntityType; keys: string }[]) {
        previous.set(row.id, row);
      }
      const refs = new Map<string, number>();
      for (const row of db.query(
        `INSERT INTO entities (id, type, doc, ledger, profile, keys, updated_at)
         SELECT *, $7::bigint FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
         ON CONFLICT (id) DO UPDATE SET type = excluded.type, doc = excluded.doc, ledger = excluded.ledger,
           profile = excluded.profile, keys = excluded.keys, updated_at = excluded.updated_at
         RETURNING id, ref`,
        [
          batch.map((e) => e.id),
          batch.map((e) => e.type),
          batch.map((e) => e.doc),
          batch.map((e) => e.ledger),
          batch.map((e) => e.profile),
          batch.map((e) => e.keysJson),
          now,
        ],
      ).rows as { id: string; ref: number }[]) {
        refs.set(row.id, row.ref);
      }
      const staleKeys: string[] = [];
      const staleRefs: number[] = [];
      const newKeys: string[] = [];
      const newRefs: number[] = [];
      const pending: number[] = [];
      const counts = { Organization: 0, Person: 0 };
      for (const entity of batch) {
        const ref = refs.get(entity.id)!;
        const before = previous.get(entity.id);
        if (!before) counts[entity.type]++;
        else if (before.type !== entity.type) {
          counts[before.type]--;
          counts[entity.type]++;
        }
        if (before?.keys === entity.keysJson) continue;
        const fresh = new Set(entity.keys ?? (JSON.parse(entity.keysJson) as string[]));
        if (before) {
          for (const key of JSON.parse(before.keys) as string[]) {
            if (!fresh.has(key)) {
              staleKeys.push(key);
              staleRefs.push(ref);
            }
          }
        }
        if (defer) pending.push(ref);
        else
          for (const key of fresh) {
            newKeys.push(key);
            newRefs.push(ref);
          }
      }
      if (staleKeys.length > 0) {
        db.query(
          `DELETE FROM entity_keys k USING unnest($1::text[], $2::bigint[]) AS s(key, ref)
           WHERE k.key = s.key AND k.ref = s.ref`,
          [staleKeys, staleRefs],
        );
      }
      if (newKeys.length > 0) {
        db.query(
          `INSERT INTO entity_keys (key, ref) SELECT * FROM unnest($1::text[], $2::bigint[])
           ON CONFLICT DO NOTHING`,
          [newKeys, newRefs],
        );
      }
      if (pending.length > 0) {
        db.query('INSERT INTO entity_keys_pending (ref) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING', [
          pending,
        ]);
      }
      for (const [type, delta] of Object.entries(counts)) {
        if (delta !== 0) db.query('UPDATE entity_counts SET n = n + $1 WHERE type = $2', [delta, type]);
      }
      this.#bump(db);
    });
  }

  #bump(db: SyncPostgres): void {
    db.query(
      `INSERT INTO meta (key, value) VALUES ('kg_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [newVersion()],
    );
    this.#pinnedVersion = undefined;
    // A write in the snapshot's transaction: what was read ahead may be older than it.
    this.#forgetPrefetched();
  }

  exclusively<T>(fn: () => T): T {
    const db = this.#db();
    return db.transaction(() => {
      // The graph writers' lock is taken before `fn` reads anything.
      db.query('SELECT pg_advisory_xact_lock($1)', [GRAPH_WRITE_LOCK]);
      return fn();
    });
  }

  pendingKeyCount(): number {
    return Number(this.#db().query('SELECT count(*) AS n FROM entity_keys_pending').rows[0].n);
  }

  indexPendingKeys(): number {
    const db = this.#db();
    let indexed = 0;
    for (;;) {
      const done = db.transaction(() => {
        db.query('SELECT pg_advisory_xact_lock($1)', [GRAPH_WRITE_LOCK]);
        const n = Number(db.query(KEY_PASS_SQL, [PENDING_CHUNK]).rows[0].n);
        if (n > 0) this.#bump(db);
        return n;
      });
      if (done === 0) return indexed;
      indexed += done;
    }
  }

  async indexPendingKeysOffThread(): Promise<number> {
    // Over the pool: the calling thread's event loop stays free while PostgreSQL works.
    const pool = this.#async();
    let indexed = 0;
    for (;;) {
      const done = await pool.atomically(async (db) => {
        await db.query('SELECT pg_advisory_xact_lock($1)', [GRAPH_WRITE_LOCK]);
        const { rows } = await db.query<{ n: number }>(KEY_PASS_SQL, [PENDING_CHUNK]);
        const n = Number(rows[0].n);
        if (n > 0) {
          await db.query(
            `INSERT INTO meta (key, value) VALUES ('kg_version', $1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
            [newVersion()],
          );
        }
        return n;
      });
      this.#pinnedVersion = undefined;
      if (done === 0) return indexed;
      indexed += done;
    }
  }

  getByIds(ids: readonly string[]): Map<string, StoredEntity> {
    const out = new Map<string, StoredEntity>();
    if (ids.length === 0) return out;
    const { rows } = this.#db().query(
      'SELECT ref, id, type, doc, ledger FROM entities WHERE id = ANY($1::text[])',
      [[...new Set(ids)]],
    );
    for (const row of rows as unknown as EntityRow[]) out.set(row.id, toStored(row));
    return out;
  }

  getById(id: string): StoredEntity | undefined {
    const row = this.#db().query('SELECT ref, id, type, doc, ledger FROM entities WHERE id = $1', [id])
      .rows[0];
    return row ? toStored(row as unknown as EntityRow) : undefined;
  }

  getByRefs(refs: readonly number[]): StoredEntity[] {
    if (refs.length === 0) return [];
    // The winners of a match among few candidates: read along with their profiles.
    if (refs.every((ref) => this.#prefetchedDocs.has(ref))) {
      return refs.map((ref) => toStored(this.#prefetchedDocs.get(ref)!));
    }
    const { rows } = this.#db().query(
      `SELECT e.ref, e.id, e.type, e.doc, e.ledger FROM unnest($1::bigint[]) WITH ORDINALITY AS r(ref, n)
       JOIN entities e ON e.ref = r.ref ORDER BY r.n`,
      [refs],
    );
    return (rows as unknown as EntityRow[]).map(toStored);
  }

  entitiesAfter(afterRef: number, limit: number): StoredEntityWithKeys[] {
    const { rows } = this.#db().query(
      'SELECT ref, id, type, doc, ledger, keys FROM entities WHERE ref > $1 ORDER BY ref LIMIT $2',
      [afterRef, limit],
    );
    return (rows as unknown as (EntityRow & { keys: string })[]).map(toStoredWithKeys);
  }

  keyCounts(keys: readonly string[], cap: number): Map<string, number> {
    const counts = new Map<string, number>();
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return counts;
    const { rows } = this.#db().query(
      `SELECT k.key, (SELECT count(*) FROM (SELECT 1 FROM entity_keys WHERE key = k.key LIMIT $2) c) AS n
       FROM unnest($1::text[]) AS k(key)`,
      [distinct, cap],
    );
    for (const row of rows as { key: string; n: number }[]) counts.set(row.key, Number(row.n));
    return counts;
  }

  refsForKey(key: string, limit: number): number[] {
    const { rows } = this.#db().query('SELECT ref FROM entity_keys WHERE key = $1 ORDER BY ref LIMIT $2', [
      key,
      limit,
    ]);
    return rows.map((row) => Number(row.ref));
  }

  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return out;
    // A bulk batch's keys (hundreds) have far more than `PREFETCH_REFS` refs: no read-ahead.
    if (this.#snapshot && distinct.length <= PREFETCH_MAX_KEYS)
      return this.#refsWithProfiles(distinct, limitPerKey);
    // The postings of every key in one statement, each as one array.
    const { rows } = this.#db().query(
      `SELECT k.key, ARRAY(SELECT ref FROM entity_keys WHERE key = k.key ORDER BY ref LIMIT $2) AS refs
       FROM unnest($1::text[]) AS k(key)`,
      [distinct, limitPerKey],
    );
    for (const row of rows as { key: string; refs: number[] }[]) out.set(row.key, row.refs);
    return out;
  }

  /**
   * `refsForKeys` in a read snapshot: the profiles of few refs come along (`PREFETCH_REFS`),
   * read from the same snapshot as `profiles` would read them.
   */
  #refsWithProfiles(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const { rows } = this.#db().query(POSTINGS_WITH_PROFILES_SQL, [
      keys,
      limitPerKey,
      PREFETCH_REFS,
      PREFETCH_DOCS,
    ]);
    if (this.#prefetched.size > PREFETCH_KEPT) this.#forgetPrefetched();
    for (const row of rows as unknown as ({ key: string | null; refs: number[] } & ProfileRow)[]) {
      if (row.key !== null) out.set(row.key, row.refs);
      else this.#keep(row);
    }
    return out;
  }

  /** Keeps a row read ahead in this snapshot (and its document, when it came along). */
  #keep(row: ProfileRow): void {
    const ref = Number(row.ref);
    this.#prefetched.set(ref, row);
    if (row.doc != null)
      this.#prefetchedDocs.set(ref, { ...row, ref, doc: row.doc, ledger: row.ledger ?? null });
  }

  termCounts(prefix: string): Map<string, number> {
    const out = new Map<string, number>();
    const end = prefixEnd(prefix);
    // A range scan of the (key, ref) primary key, which compares byte-wise (COLLATE "C").
    const { rows } = this.#db().query(
      'SELECT key, count(*) AS n FROM entity_keys WHERE key >= $1 AND key < $2 GROUP BY key',
      [prefix, end],
    );
    for (const row of rows as { key: string; n: number }[])
      out.set(row.key.slice(prefix.length), Number(row.n));
    return out;
  }

  profiles(refs: readonly number[]): CandidateProfile[] {
    if (refs.length === 0) return [];
    if (this.#prefetched.size > PREFETCH_KEPT) this.#forgetPrefetched();
    const missing = refs.filter((ref) => !this.#prefetched.has(ref));
    if (missing.length > 0) {
      // In the order of `refs`: the matcher sums probabilities in this order (see match/matcher.ts).
      const { rows } = this.#db().query(PROFILES_SQL, [missing, this.#snapshot ? PREFETCH_DOCS : 0]);
      if (!this.#snapshot) return (rows as unknown as ProfileRow[]).map(toProfile);
      for (const row of rows as unknown as ProfileRow[]) this.#keep(row);
    }
    const out: CandidateProfile[] = [];
    for (const ref of refs) {
      const row = this.#prefetched.get(ref);
      if (row) out.push(toProfile(row));
    }
    return out;
  }

  #forgetPrefetched(): void {
    this.#prefetched.clear();
    this.#prefetchedDocs.clear();
  }

  counts(): EntityCounts {
    const { rows } = this.#db().query('SELECT type, n FROM entity_counts');
    const byType = new Map(
      (rows as { type: EntityType; n: number }[]).map((row) => [row.type, Number(row.n)]),
    );
    return { organizations: byType.get('Organization') ?? 0, persons: byType.get('Person') ?? 0 };
  }

  version(): string {
    if (this.#pinned && this.#pinnedVersion !== undefined) return this.#pinnedVersion;
    const row = this.#db().query("SELECT value FROM meta WHERE key = 'kg_version'").rows[0];
    const version = (row?.value as string | undefined) ?? 'empty';
    if (this.#pinned) this.#pinnedVersion = version;
    return version;
  }

  /**
   * Runs `fn` with `version()` read at most once (inside a read snapshot); `known` is the
   * version the snapshot already read (`VERSION_QUERY` in its first round trip), given only by
   * a read snapshot of its own (which `refsForKeys` may read profiles ahead in).
   */
  pinnedVersion<T>(fn: () => T, known?: string): T {
    if (this.#pinned) return fn();
    this.#pinned = true;
    this.#pinnedVersion = known;
    this.#snapshot = known !== undefined;
    try {
      return fn();
    } finally {
      this.#pinned = false;
      this.#snapshot = false;
      this.#pinnedVersion = undefined;
      // Read in that snapshot: the next one may see other profiles.
      this.#forgetPrefetched();
    }
  }
}
