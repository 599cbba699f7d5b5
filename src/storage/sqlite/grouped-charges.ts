import type { DatabaseSync } from 'node:sqlite';
import type { TokenStore } from '../ports.ts';
import type { TransactionGate } from './asynchronous.ts';
import type { SqliteTokenStore } from './sqlite-token-store.ts';

interface Operation {
  readonly kind: 'charge' | 'refund';
  readonly id: string;
  readonly amount: number;
  resolve(value: boolean): void;
  reject(error: unknown): void;
}

/**
 * The token port of the embedded store with charges (and refunds) grouped: those made in one
 * turn of the event loop are written in one transaction, with the outcomes of making them one
 * after another in the order they were made (conditional UPDATEs, so never below zero; a
 * token's charges between two refunds as one UPDATE of their sum when its balance covers them).
 * One commit per group instead of one per request: each commit appends the tokens page to the
 * WAL (~15 µs of the HTTP thread per request, measured). The tokens are in the accounts file
 * (accounts-file.ts), so a group commits nothing to the graph's file and its readers keep their
 * page caches. A charge resolves only once its transaction has committed, so an answer is never
 * sent for a charge a crash could still undo; a group that fails rejects every charge in it,
 * none of which was taken.
 */
export function groupedCharges(
  port: TokenStore,
  store: SqliteTokenStore,
  db: DatabaseSync,
  gate: TransactionGate,
): TokenStore {
  let queue: Operation[] = [];
  const flush = async () => {
    // An asynchronous transaction open on the connection: the group must not join it (checked
    // again after each wait: another may have begun between the wait's end and this turn).
    while (gate.closed || db.isTransaction) {
      if (gate.closed) await gate.passed();
      else await new Promise((resolve) => setImmediate(resolve));
    }
    const group = queue;
    queue = [];
    let results: boolean[];
    try {
      results = inTransaction(db, () => applyInOrder(store, group));
    } catch (error) {
      for (const op of group) op.reject(error);
      return;
    }
    for (let i = 0; i < group.length; i++) group[i].resolve(results[i]);
  };
  const enqueue = (kind: Operation['kind'], id: string, amount: number) =>
    new Promise<boolean>((resolve, reject) => {
      queue.push({ kind, id, amount, resolve, reject });
      if (queue.length === 1) setImmediate(() => void flush());
    });
  return {
    ...port,
    charge(id, amount) {
      // Checked here, so that a bad amount fails alone rather than its whole group.
      if (!Number.isInteger(amount) || amount < 0)
        return Promise.reject(new RangeError(`charge amount must be >= 0: ${amount}`));
      return enqueue('charge', id, amount);
    },
    async refund(id, amount) {
      if (amount > 0) await enqueue('refund', id, amount);
    },
  };
}

/**
 * What each operation of `group` returns, applied as if one after another in the order made.
 * Between two refunds, a token's charges are taken together (`chargeAll`: one UPDATE of their
 * sum when the balance covers it) rather than a statement each: charges of other tokens cannot
 * change its balance, so the outcomes are the same. Profiled under HTTP enhance load (one token,
 * 32 connections), a statement per charge was ~10% of the main thread's time.
 */
function applyInOrder(store: SqliteTokenStore, group: readonly Operation[]): boolean[] {
  const results: boolean[] = new Array(group.length);
  let byToken = new Map<string, number[]>();
  const chargeRun = () => {
    for (const [id, indexes] of byToken) {
      const paid = store.chargeAll(
        id,
        indexes.map((i) => group[i].amount),
      );
      for (let k = 0; k < indexes.length; k++) results[indexes[k]] = paid[k];
    }
    byToken = new Map();
  };
  for (let i = 0; i < group.length; i++) {
    const op = group[i];
    if (op.kind === 'charge') {
      const indexes = byToken.get(op.id);
      if (indexes) indexes.push(i);
      else byToken.set(op.id, [i]);
      continue;
    }
    // A refund applies after the charges made before it, before those made after it.
    chargeRun();
    store.refund(op.id, op.amount);
    results[i] = true;
  }
  chargeRun();
  return results;
}

/**
 * A transaction of its own, never joining one already open (unlike sqlite-database.ts's
 * createTransactionRunner, which joins): a group's charges resolve only on their own commit.
 * `BEGIN IMMEDIATE` takes the write lock of the graph's file too (attached to the same
 * connection), but writes only the accounts file: nothing is appended to the graph's WAL, so its
 * readers keep their page caches (accounts-file.ts). (A deferred `BEGIN` could fail with
 * SQLITE_BUSY_SNAPSHOT where a group reads a token before charging another.)
 */
function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
