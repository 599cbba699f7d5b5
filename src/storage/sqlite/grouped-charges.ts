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
 * turn of the event loop are written in one transaction, in the order they were made, with the
 * very statements a lone charge runs (conditional UPDATE, so never below zero). One commit per
 * group instead of one per request: each commit appends the tokens page to the WAL (~15 µs of
 * the HTTP thread per request, measured) and makes every reading thread's next snapshot drop its
 * page cache. A charge resolves only once its transaction has committed, so an answer is never
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
      results = inTransaction(db, () =>
        group.map((op) => {
          if (op.kind === 'charge') return store.charge(op.id, op.amount);
          store.refund(op.id, op.amount);
          return true;
        }),
      );
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
 * A transaction of its own, never joining one already open (unlike sqlite-database.ts's
 * createTransactionRunner, which joins): a group's charges resolve only on their own commit.
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
