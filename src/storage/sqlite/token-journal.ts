import type { DatabaseSync } from 'node:sqlite';
import type { TokenStore } from '../ports.ts';
import { ACCOUNTS_SCHEMA } from './accounts-file.ts';
import type { Synchronous } from './asynchronous.ts';
import type { SqliteTokenStore } from './sqlite-token-store.ts';

/**
 * The token journal: what keeps "credits never overspent and never lost across a crash" for the
 * transactions that change balances and write the graph's file too (a bulk batch's charge with
 * its results, `Storage.transaction`).
 *
 * The tokens live in the accounts file (accounts-file.ts). A transaction over two attached WAL
 * files is atomic per file, not across them: SQLite writes no super-journal in WAL mode, and
 * commits the files one after the other (the main file first, as it reads today; nothing here
 * relies on the order). A crash between the two commits would leave a batch's results stored
 * without its charge (credits overspent), or the charge taken without the results (the batch is
 * answered again and charged again: credits lost).
 *
 * So each balance change made through a transaction's `tokens` port is also written, as
 * (txn, token, delta), into `token_journal` in BOTH files, in the same transaction; `txn` is
 * the accounts file's `journal_txn` + 1, written with it. Each file's part commits atomically,
 * so after a crash (`reconcileTokenJournal`, run by every writer as it opens the store):
 * - the graph's file has the journal of a txn the accounts file has not applied
 *   (`journal_txn` < its txn): the graph's part committed alone; its deltas are applied to the
 *   balances now, as they would have been;
 * - the accounts file applied a txn whose journal the graph's file lacks: the accounts part
 *   committed alone; its deltas are taken back (the batch is answered and charged again);
 * - both have it: nothing to do.
 * Each repair writes only the accounts file: one atomic commit. Only the last transaction can be
 * half-committed, so each file keeps only the journal of its last one (a new txn deletes the
 * older rows). Grouped charges (one per enhance request) write only the accounts file and need
 * no journal.
 */
export class TokenJournal {
  readonly #lastTxn;
  readonly #setLastTxn;
  readonly #trimMain;
  readonly #trimAccounts;
  readonly #writeMain;
  readonly #writeAccounts;

  constructor(db: DatabaseSync) {
    const a = ACCOUNTS_SCHEMA;
    this.#lastTxn = db.prepare(`SELECT value FROM ${a}.account_state WHERE key = 'journal_txn'`);
    this.#setLastTxn = db.prepare(
      `INSERT INTO ${a}.account_state (key, value) VALUES ('journal_txn', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    this.#trimMain = db.prepare('DELETE FROM main.token_journal WHERE txn < ?');
    this.#trimAccounts = db.prepare(`DELETE FROM ${a}.token_journal WHERE txn < ?`);
    this.#writeMain = db.prepare('INSERT INTO main.token_journal (txn, token_id, delta) VALUES (?, ?, ?)');
    this.#writeAccounts = db.prepare(
      `INSERT INTO ${a}.token_journal (txn, token_id, delta) VALUES (?, ?, ?)`,
    );
  }

  /**
   * The token port of one transaction (open on the connection): `store`'s, with each balance
   * change journaled in both files. Unlimited tokens are journaled too (their deltas apply to no
   * balance).
   */
  tokensOf(store: SqliteTokenStore): Synchronous<TokenStore> {
    return new JournaledTokens(store, () => this.#begin(), this.#writeMain, this.#writeAccounts);
  }

  /** A new txn number for the open transaction; the journal of earlier ones is dropped. */
  #begin(): number {
    const row = this.#lastTxn.get() as { value: number } | undefined;
    const txn = Number(row?.value ?? 0) + 1;
    this.#setLastTxn.run(txn);
    this.#trimMain.run(txn);
    this.#trimAccounts.run(txn);
    return txn;
  }
}

type Statement = ReturnType<DatabaseSync['prepare']>;

/** One transaction's token port (a class: `asynchronous()` exposes prototype methods). */
class JournaledTokens implements Synchronous<TokenStore> {
  readonly #store: SqliteTokenStore;
  readonly #begin: () => number;
  readonly #writeMain: Statement;
  readonly #writeAccounts: Statement;
  #txn: number | undefined;

  constructor(store: SqliteTokenStore, begin: () => number, writeMain: Statement, writeAccounts: Statement) {
    this.#store = store;
    this.#begin = begin;
    this.#writeMain = writeMain;
    this.#writeAccounts = writeAccounts;
  }

  create(input: Parameters<SqliteTokenStore['create']>[0]) {
    return this.#store.create(input);
  }

  findBySecretHash(secretHash: string) {
    return this.#store.findBySecretHash(secretHash);
  }

  findById(id: string) {
    return this.#store.findById(id);
  }

  list() {
    return this.#store.list();
  }

  charge(id: string, amount: number): boolean {
    const paid = this.#store.charge(id, amount);
    if (paid && amount > 0) this.#record(id, -amount);
    return paid;
  }

  refund(id: string, amount: number): void {
    this.#store.refund(id, amount);
    if (amount > 0) this.#record(id, amount);
  }

  #record(id: string, delta: number): void {
    this.#txn ??= this.#begin();
    this.#writeMain.run(this.#txn, id, delta);
    this.#writeAccounts.run(this.#txn, id, delta);
  }
}

/**
 * Repairs a transaction that a crash committed in one file of the store and not the other (see
 * `TokenJournal`); does nothing (two reads) when both agree. Writes only the accounts file.
 * Returns what it did, for the log and the tests.
 */
export function reconcileTokenJournal(db: DatabaseSync): 'none' | 'applied' | 'taken back' {
  if (!needsRepair(db)) return 'none';
  db.exec('BEGIN IMMEDIATE');
  try {
    // Again under the write lock: another process may have been between its two commits.
    const outcome = needsRepair(db) ? repair(db) : 'none';
    db.exec('COMMIT');
    return outcome;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

interface JournalState {
  /** The accounts file's `journal_txn` (0 before any). */
  readonly applied: number;
  /** The txn of the graph file's journal rows, if any. */
  readonly mainTxn: number | undefined;
  /** Whether the accounts file holds journal rows of txn `applied`. */
  readonly accountsHasApplied: boolean;
}

function journalState(db: DatabaseSync): JournalState {
  const a = ACCOUNTS_SCHEMA;
  const applied = Number(
    (
      db.prepare(`SELECT value FROM ${a}.account_state WHERE key = 'journal_txn'`).get() as
        | { value: number }
        | undefined
    )?.value ?? 0,
  );
  const main = db.prepare('SELECT max(txn) AS txn FROM main.token_journal').get() as { txn: number | null };
  const mine = db.prepare(`SELECT 1 AS found FROM ${a}.token_journal WHERE txn = ? LIMIT 1`).get(applied);
  return { applied, mainTxn: main.txn ?? undefined, accountsHasApplied: mine !== undefined };
}

function needsRepair(db: DatabaseSync): boolean {
  const { applied, mainTxn, accountsHasApplied } = journalState(db);
  return (mainTxn !== undefined && mainTxn > applied) || (accountsHasApplied && mainTxn !== applied);
}

function repair(db: DatabaseSync): 'applied' | 'taken back' {
  const a = ACCOUNTS_SCHEMA;
  const { applied, mainTxn } = journalState(db);
  const adjust = db.prepare(
    `UPDATE ${a}.tokens SET credits = max(0, credits + ?) WHERE id = ? AND credits IS NOT NULL`,
  );
  if (mainTxn !== undefined && mainTxn > applied) {
    // The graph's part committed alone: the balances take its deltas now.
    const rows = db
      .prepare('SELECT token_id, delta FROM main.token_journal WHERE txn = ? ORDER BY rowid')
      .all(mainTxn);
    for (const row of rows) adjust.run(Number(row.delta), String(row.token_id));
    db.prepare(`DELETE FROM ${a}.token_journal`).run();
    db.prepare(
      `INSERT INTO ${a}.token_journal (txn, token_id, delta) SELECT txn, token_id, delta FROM main.token_journal WHERE txn = ?`,
    ).run(mainTxn);
    db.prepare(
      `INSERT INTO ${a}.account_state (key, value) VALUES ('journal_txn', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(mainTxn);
    return 'applied';
  }
  // The accounts part committed alone: its deltas are taken back.
  const rows = db
    .prepare(`SELECT token_id, delta FROM ${a}.token_journal WHERE txn = ? ORDER BY rowid DESC`)
    .all(applied);
  for (const row of rows) adjust.run(-Number(row.delta), String(row.token_id));
  db.prepare(`DELETE FROM ${a}.token_journal WHERE txn = ?`).run(applied);
  return 'taken back';
}
