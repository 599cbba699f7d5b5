import { LATEST_POSTGRES_VERSION, POSTGRES_MIGRATIONS } from './migrations.ts';
import type { SyncPostgres } from './sync-bridge.ts';

/** Key of the advisory lock under which migrations run: one migrating process at a time. */
const MIGRATION_LOCK = 7_201_004_001;

/** The database holds a schema written by a newer Quarry: this build must not touch it. */
export class SchemaTooNewError extends Error {
  constructor(unknown: readonly number[]) {
    super(
      `the database schema has migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this ` +
        `Quarry does not know (it knows up to ${LATEST_POSTGRES_VERSION}): a newer Quarry migrated it; ` +
        'run that version, or restore a backup taken before it migrated',
    );
  }
}

const KNOWN = new Set(POSTGRES_MIGRATIONS.map((m) => m.version));

/** The schema versions applied to the database (none on an empty database). */
export function appliedVersions(db: SyncPostgres): number[] {
  const exists = db.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").rows[0];
  if (!exists?.present) return [];
  return db
    .query('SELECT version FROM schema_migrations ORDER BY version')
    .rows.map((r) => Number(r.version));
}

/**
 * Applies every migration not yet recorded, in version order, each in its own transaction,
 * under an advisory lock (processes starting together do not race). Throws
 * `SchemaTooNewError`, changing nothing, when the database has a version this build does not
 * know. Returns the versions applied.
 */
export function migratePostgres(db: SyncPostgres): number[] {
  db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const applied = new Set(appliedVersions(db));
    const unknown = [...applied].filter((version) => !KNOWN.has(version));
    if (unknown.length > 0) throw new SchemaTooNewError(unknown);
    const done: number[] = [];
    for (const migration of [...POSTGRES_MIGRATIONS].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      try {
        db.transaction(() => {
          db.query(migration.sql);
          db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            Date.now(),
          ]);
        });
      } catch (error) {
        throw new Error(
          `migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
        );
      }
      done.push(migration.version);
    }
    return done;
  } finally {
    db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}

/** Throws `SchemaTooNewError` when the database is newer than this build (readers check it). */
export function checkSchemaNotNewer(db: SyncPostgres): void {
  const unknown = appliedVersions(db).filter((version) => !KNOWN.has(version));
  if (unknown.length > 0) throw new SchemaTooNewError(unknown);
}
