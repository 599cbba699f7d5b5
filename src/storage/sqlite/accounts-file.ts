import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/**
 * The accounts file of the embedded store: tokens and their credits, in a SQLite file of its own
 * beside the graph's (`quarry.sqlite` → `quarry-accounts.sqlite`), attached to every writing
 * connection as the schema `accounts` (docs/storage.md).
 *
 * Why a file of its own: credits are charged on every enhance request. In WAL mode a commit to a
 * file makes every other connection to that file drop its whole page cache at its next read
 * transaction (the wal-index changed), so with the tokens in the graph's file each charge made
 * every enhance thread read ~8 graph pages again per request (bench/NOTES.md). The graph's
 * readers (enhance threads, bulk workers, export threads) never open this file, and a charge
 * commits nothing to the graph's file.
 */
export const ACCOUNTS_SCHEMA = 'accounts';

/**
 * Page size of a new accounts file: SQLite's default. A charge rewrites one tokens page; with the
 * graph's 16 KiB pages each commit appended 16 KiB to a WAL.
 */
const ACCOUNTS_PAGE_SIZE = 4096;

/** Version of the accounts file's schema (`PRAGMA user_version`); a newer one is refused. */
const ACCOUNTS_VERSION = 1;

/**
 * The accounts file beside the store file `file`: its name with `-accounts` before `.sqlite`
 * (`quarry.sqlite` → `quarry-accounts.sqlite`); `:memory:` for an in-memory store.
 */
export function accountsFileFor(file: string): string {
  if (file === ':memory:' || file === '') return ':memory:';
  const base = path.basename(file);
  const stem = base.endsWith('.sqlite') ? base.slice(0, -'.sqlite'.length) : base;
  return path.join(path.dirname(file), `${stem}-accounts.sqlite`);
}

/**
 * Attaches the accounts file of the store file `file` to the writing connection `db` (creating
 * it in WAL mode with 4 KiB pages) and creates its tables when missing:
 * - `tokens`: as migration 1 made them in the graph's file (migration 4 moves them here);
 * - `account_state`: `journal_txn`, the last transaction of the token journal applied here, and
 *   `tokens_moved`, set once migration 4 has copied the old file's tokens here;
 * - `token_journal`: the balance changes of the last transaction that wrote both files
 *   (token-journal.ts).
 */
export function attachAccounts(db: DatabaseSync, file: string): void {
  db.prepare(`ATTACH DATABASE ? AS ${ACCOUNTS_SCHEMA}`).run(accountsFileFor(file));
  refuseLostAccounts(db, file);
  const a = ACCOUNTS_SCHEMA;
  // Only a new, empty file takes the page size; then the journal mode (a WAL file keeps its page size).
  db.exec(`PRAGMA ${a}.page_size = ${ACCOUNTS_PAGE_SIZE}`);
  db.exec(`PRAGMA ${a}.journal_mode = WAL; PRAGMA ${a}.synchronous = NORMAL;`);
  const version = () =>
    Number((db.prepare(`PRAGMA ${a}.user_version`).get() as { user_version: number }).user_version);
  if (version() === ACCOUNTS_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    const found = version();
    if (found > ACCOUNTS_VERSION) {
      throw new Error(
        `the accounts file ${accountsFileFor(file)} has schema version ${found}, which this Quarry does not know: ` +
          'a newer Quarry made it; run that version',
      );
    }
    if (found < ACCOUNTS_VERSION) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${a}.tokens (
          id TEXT PRIMARY KEY,
          secret_hash TEXT NOT NULL UNIQUE,
          label TEXT,
          credits INTEGER CHECK (credits IS NULL OR credits >= 0),
          created_at INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS ${a}.account_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS ${a}.token_journal (
          txn INTEGER NOT NULL, token_id TEXT NOT NULL, delta INTEGER NOT NULL);
        PRAGMA ${a}.user_version = ${ACCOUNTS_VERSION};`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Throws when the accounts file is new (no schema yet) but the graph's file has had its tokens
 * moved out (migration 4): the accounts file was lost (a copy or backup of `quarry.sqlite`
 * alone). Creating an empty one would silently drop every token and balance.
 */
function refuseLostAccounts(db: DatabaseSync, file: string): void {
  const fresh = db.prepare(`PRAGMA ${ACCOUNTS_SCHEMA}.user_version`).get() as { user_version: number };
  if (Number(fresh.user_version) !== 0) return;
  const migrations = db
    .prepare("SELECT 1 AS found FROM main.sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!migrations || !db.prepare('SELECT 1 AS found FROM main.schema_migrations WHERE version = 4').get())
    return;
  db.exec(`DETACH DATABASE ${ACCOUNTS_SCHEMA}`);
  throw new Error(
    `the store's accounts file ${accountsFileFor(file)} (tokens and credits) is missing or empty, ` +
      `but ${file} had its tokens moved there: restore both files from the same backup`,
  );
}

/**
 * Migration 4's first step: copies the tokens of the graph's file (`main.tokens`, migration 1)
 * into the accounts file, in a transaction that writes only the accounts file and records
 * `tokens_moved` with them, then checkpoints the accounts file (its WAL synced and copied back)
 * so that the copy is on disk before the migration's own transaction drops the old table.
 * A crash before that drop leaves the old table in place and the copy made: the restart sees
 * `tokens_moved` and does not copy again (the old table cannot have changed: a writer applies
 * the migrations before anything else). Without an old table (a new store) it does nothing.
 */
export function copyTokensToAccounts(db: DatabaseSync): void {
  const a = ACCOUNTS_SCHEMA;
  ensureAccountsAttached(db);
  const old = db
    .prepare("SELECT 1 AS found FROM main.sqlite_schema WHERE type = 'table' AND name = 'tokens'")
    .get();
  if (!old) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    const moved = db.prepare(`SELECT value FROM ${a}.account_state WHERE key = 'tokens_moved'`).get();
    if (!moved) {
      db.exec(`
        INSERT INTO ${a}.tokens (id, secret_hash, label, credits, created_at)
          SELECT id, secret_hash, label, credits, created_at FROM main.tokens ORDER BY created_at;
        INSERT INTO ${a}.account_state (key, value) VALUES ('tokens_moved', 1);`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
  db.exec(`PRAGMA ${a}.wal_checkpoint(TRUNCATE)`);
}

/** Attaches the accounts file of `db`'s main file unless it is already (a tool's bare connection). */
function ensureAccountsAttached(db: DatabaseSync): void {
  const schemas = db.prepare('PRAGMA database_list').all() as { name: string; file: string }[];
  if (schemas.some((schema) => schema.name === ACCOUNTS_SCHEMA)) return;
  const main = schemas.find((schema) => schema.name === 'main');
  attachAccounts(db, main?.file ?? '');
}
