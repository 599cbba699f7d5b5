import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { attachAccounts } from './accounts-file.ts';
import type { Migration } from './migrations/index.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { reconcileTokenJournal } from './token-journal.ts';

/** Options for opening the embedded database. */
export interface SqliteOpenOptions {
  /** Open without applying migrations and without writing (worker threads, read-only tools). */
  readonly readOnly?: boolean;
  /** Page cache in MiB for this connection (default 64). */
  readonly cacheMiB?: number;
  /** Apply pending migrations when opening for writing (default true). */
  readonly migrate?: boolean;
  /**
   * Read-only connections only: map up to this many MiB of the file into memory (`PRAGMA
   * mmap_size`), so that page reads are not copied through `pread` (default 0: off; SQLite caps
   * it at 2 GiB). Mapped pages count in the process's RSS (as file pages, `RssFile`), and SQLite
   * drops the whole mapping when another connection has committed since this one's last read
   * snapshot (`docs/architecture.md`, bench/NOTES.md).
   */
  readonly mmapMiB?: number;
}

/**
 * Page size of new stores: 16 KiB instead of SQLite's 4 KiB. A knowledge-graph row (document,
 * profile, keys) is ~1.4 KB, so 4 KiB pages meant many page writes per batch, each a system call
 * into the WAL and again at checkpoint. Measured writing 400k demo entities in batches of 50,000:
 * 8.4 → 6.5 µs per entity (system time halved).
 */
const PAGE_SIZE = 16_384;

/**
 * Opens (creating when needed) the SQLite file at `file` in WAL mode and applies pending
 * migrations. WAL lets worker threads read while the main thread writes. A writing connection
 * also attaches the store's accounts file (`accounts`: tokens and credits, accounts-file.ts),
 * and, once migrated, repairs a transaction a crash left committed in one file only
 * (token-journal.ts); a read-only one (the graph's readers) never opens the accounts file.
 */
export function openSqliteDatabase(file: string, options: SqliteOpenOptions = {}): DatabaseSync {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file, { readOnly: options.readOnly ?? false, timeout: 10_000 });
  db.exec('PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = ON;');
  if (!options.readOnly) {
    // Only a new, empty file takes the page size (a WAL database keeps the one it was made with).
    db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
    // WAL + synchronous=NORMAL: durable at each checkpoint, never corrupt; a crash can only lose
    // the last transactions, which the job runners re-derive from their persisted progress.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    try {
      attachAccounts(db, file);
      if (options.migrate !== false) migrateAndRepair(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  // Last, once the page size is in force: SQLite turns a cache size in KiB into pages with the
  // page size of the moment and keeps that count when a new file's pages grow from 4 to 16 KiB,
  // so a connection that created its store cached up to 256 MiB instead of 64.
  db.exec(`PRAGMA cache_size = -${(options.cacheMiB ?? 64) * 1024}`);
  if (options.readOnly && options.mmapMiB)
    db.exec(`PRAGMA mmap_size = ${Math.floor(options.mmapMiB * 2 ** 20)}`);
  return db;
}

/** Applies pending migrations, then repairs what a crash left half-committed (token-journal.ts). */
function migrateAndRepair(db: DatabaseSync): void {
  applyMigrations(db, MIGRATIONS);
  const repaired = reconcileTokenJournal(db);
  if (repaired !== 'none')
    logToStderr(`store: credits of a transaction a crash left half-committed ${repaired}`);
}

/** Where `applyMigrations` says which migration it applies to an existing store: stderr. */
function logToStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Applies every migration not yet recorded, in version order, each in its own transaction.
 * Versions are tracked individually, so migrations of different areas can land in any order.
 * On a store that already had migrations (an upgrade, which may rewrite large tables: migration 3
 * rewrites every entity row) each one is announced to `log` before it runs and timed after, so a
 * slow start-up says why; a new store is created silently.
 */
export function applyMigrations(
  db: DatabaseSync,
  migrations: readonly Migration[],
  log: (line: string) => void = logToStderr,
): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .all()
      .map((row) => Number(row.version)),
  );
  // A migration this build does not know was applied by a newer Quarry: the store is not ours to touch.
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = [...applied].filter((version) => !known.has(version)).sort((a, b) => a - b);
  if (unknown.length > 0) {
    throw new Error(
      `the store has migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this Quarry does not ` +
        'know: a newer Quarry migrated it; run that version, or restore a backup taken before it migrated',
    );
  }
  const done: number[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  // Foreign keys off while the schema changes (SQLite's procedure for rebuilding a table): with
  // them on, 4 dropping the old tokens table would have deleted every rule set (201).
  const foreignKeys = Number(
    (db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys,
  );
  db.exec('PRAGMA foreign_keys = OFF');
  try {
    applyEach(db, migrations, applied, record, log, done);
  } finally {
    db.exec(`PRAGMA foreign_keys = ${foreignKeys}`);
  }
  return done;
}

/** applyMigrations' loop: each migration not in `applied`, in version order, in its own transaction. */
function applyEach(
  db: DatabaseSync,
  migrations: readonly Migration[],
  applied: ReadonlySet<number>,
  record: ReturnType<DatabaseSync['prepare']>,
  log: (line: string) => void,
  done: number[],
): void {
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    const started = performance.now();
    if (applied.size > 0) log(`store: applying migration ${migration.version} (${migration.name})…`);
    migration.prepare?.(db);
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(
        `migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
      );
    }
    if (applied.size > 0) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      log(`store: migration ${migration.version} applied in ${seconds} s`);
    }
    done.push(migration.version);
  }
}

/**
 * Runs `fn` inside a transaction on `db`; nested calls (and calls inside a read snapshot) join the
 * outer transaction.
 * `BEGIN IMMEDIATE` takes the write lock up front so concurrent writers wait (busy timeout)
 * instead of failing half-way.
 */
export function createTransactionRunner(db: DatabaseSync): <T>(fn: () => T) => T {
  let depth = 0;
  return <T>(fn: () => T): T => {
    // Inside another transaction (a read snapshot opened on this connection) writes join it.
    if (depth > 0 || db.isTransaction) {
      depth++;
      try {
        return fn();
      } finally {
        depth--;
      }
    }
    db.exec('BEGIN IMMEDIATE');
    depth = 1;
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    } finally {
      depth = 0;
    }
  };
}

/**
 * Runs `fn` with the connection's `settings` (pragma name → value) in force, then gives each
 * pragma back the value it had, also when `fn` throws; when `fn` returns a promise, once it
 * settles. For per-connection pragmas only.
 */
export function withPragmas<T>(
  db: DatabaseSync,
  settings: Readonly<Record<string, string | number>>,
  fn: () => T,
): T {
  // Given back as read: a number as such, a word (`locking_mode` reads `normal`) quoted.
  const previous = Object.keys(settings).map((name) => {
    const value = (db.prepare(`PRAGMA ${name}`).get() as Record<string, number | string>)[name];
    return `PRAGMA ${name} = ${typeof value === 'number' ? value : `'${String(value).replaceAll("'", "''")}'`}`;
  });
  db.exec(
    Object.entries(settings)
      .map(([name, value]) => `PRAGMA ${name} = ${value}`)
      .join('; '),
  );
  const restore = () => db.exec(previous.join('; '));
  let result: T;
  try {
    result = fn();
  } catch (error) {
    restore();
    throw error;
  }
  // An async `fn` keeps the settings until its promise settles.
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}
