import { randomBytes } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Entity, EntityType } from '../../kg/index.ts';
import type { CandidateProfile, EntityCounts, EntityStore, EntityWrite, StoredEntity } from '../ports.ts';

interface EntityRow {
  ref: number;
  id: string;
  type: EntityType;
  doc: string;
  ledger: string | null;
}

function toStored(row: EntityRow): StoredEntity {
  return {
    ref: row.ref,
    id: row.id,
    type: row.type,
    doc: JSON.parse(row.doc) as Entity,
    ledger: row.ledger === null ? null : JSON.parse(row.ledger),
  };
}

/** The knowledge graph in the embedded store: one row per entity plus a (key, ref) index. */
export class SqliteEntityStore implements EntityStore {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #oldKeys: StatementSync;
  readonly #upsert: StatementSync;
  readonly #deleteKey: StatementSync;
  readonly #insertKey: StatementSync;
  readonly #byId: StatementSync;
  readonly #byRef: StatementSync;
  readonly #profileByRef: StatementSync;
  readonly #refsForKey: StatementSync;
  readonly #cappedCount: StatementSync;
  readonly #termCounts: StatementSync;
  readonly #version: StatementSync;
  readonly #bumpVersion: StatementSync;

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#db = db;
    this.#transaction = transaction;
    this.#oldKeys = db.prepare('SELECT ref, keys FROM entities WHERE id = ?');
    this.#upsert = db.prepare(`
      INSERT INTO entities (id, type, doc, ledger, profile, keys, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET type = excluded.type, doc = excluded.doc, ledger = excluded.ledger,
        profile = excluded.profile, keys = excluded.keys, updated_at = excluded.updated_at
      RETURNING ref`);
    this.#deleteKey = db.prepare('DELETE FROM entity_keys WHERE key = ? AND ref = ?');
    this.#insertKey = db.prepare('INSERT OR IGNORE INTO entity_keys (key, ref) VALUES (?, ?)');
    this.#byId = db.prepare('SELECT ref, id, type, doc, ledger FROM entities WHERE id = ?');
    this.#byRef = db.prepare('SELECT ref, id, type, doc, ledger FROM entities WHERE ref = ?');
    // One statement for a whole candidate set: a JSON array of refs joined to the table.
    this.#profileByRef = db.prepare(
      'SELECT e.ref, e.id, e.type, e.profile FROM json_each(?) AS j JOIN entities AS e ON e.ref = j.value',
    );
    this.#profileByRef.setReturnArrays(true);
    this.#refsForKey = db.prepare('SELECT ref FROM entity_keys WHERE key = ? ORDER BY ref LIMIT ?');
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
  }

  writeBatch(entities: readonly EntityWrite[]): void {
    if (entities.length === 0) return;
    const now = Date.now();
    this.#transaction(() => {
      for (const entity of entities) {
        const previous = this.#oldKeys.get(entity.id) as { ref: number; keys: string } | undefined;
        const keysJson = JSON.stringify(entity.keys);
        const { ref } = this.#upsert.get(
          entity.id,
          entity.type,
          JSON.stringify(entity.doc),
          entity.ledger === null || entity.ledger === undefined ? null : JSON.stringify(entity.ledger),
          JSON.stringify(entity.profile),
          keysJson,
          now,
        ) as { ref: number };
        const fresh = new Set(entity.keys);
        if (previous) {
          if (previous.keys === keysJson) continue;
          for (const key of JSON.parse(previous.keys) as string[]) {
            if (!fresh.has(key)) this.#deleteKey.run(key, ref);
          }
        }
        for (const key of fresh) this.#insertKey.run(key, ref);
      }
      // Time plus randomness: two writes in the same millisecond still change the version, so
      // matcher caches keyed by it are never stale.
      this.#bumpVersion.run(`${now.toString(36)}-${randomBytes(4).toString('hex')}`);
    });
  }

  getById(id: string): StoredEntity | undefined {
    const row = this.#byId.get(id) as EntityRow | undefined;
    return row ? toStored(row) : undefined;
  }

  getByRefs(refs: readonly number[]): StoredEntity[] {
    const out: StoredEntity[] = [];
    for (const ref of refs) {
      const row = this.#byRef.get(ref) as EntityRow | undefined;
      if (row) out.push(toStored(row));
    }
    return out;
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
    for (const key of keys) if (!out.has(key)) out.set(key, this.refsForKey(key, limitPerKey));
    return out;
  }

  termCounts(prefix: string): Map<string, number> {
    const out = new Map<string, number>();
    if (prefix === '') throw new RangeError('termCounts needs a non-empty prefix');
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
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
    return rows.map(([ref, id, type, profile]) => ({ ref, id, type, profile: JSON.parse(profile) }));
  }

  counts(): EntityCounts {
    const rows = this.#db.prepare('SELECT type, count(*) AS n FROM entities GROUP BY type').all() as {
      type: EntityType;
      n: number;
    }[];
    const byType = new Map(rows.map((row) => [row.type, Number(row.n)]));
    return { organizations: byType.get('Organization') ?? 0, persons: byType.get('Person') ?? 0 };
  }

  version(): string {
    const row = this.#version.get() as { value: string } | undefined;
    return row?.value ?? 'empty';
  }
}
