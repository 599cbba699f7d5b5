import type { DatabaseSync } from 'node:sqlite';
import type { TokenRecord, TokenStore } from '../ports.ts';
import type { Synchronous } from './asynchronous.ts';

interface TokenRow {
  id: string;
  label: string | null;
  credits: number | null;
  created_at: number;
}

function toRecord(row: TokenRow): TokenRecord {
  return Object.freeze({ id: row.id, label: row.label, credits: row.credits, createdAt: row.created_at });
}

/**
 * Tokens in the embedded store, in its accounts file (accounts-file.ts; the connection must have
 * it attached: a writing one). Charging is one conditional UPDATE, so it is atomic.
 */
export class SqliteTokenStore implements Synchronous<TokenStore> {
  readonly #db: DatabaseSync;
  readonly #insert;
  readonly #bySecret;
  readonly #byId;
  readonly #charge;
  readonly #refund;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO accounts.tokens (id, secret_hash, label, credits, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#bySecret = db.prepare(
      'SELECT id, label, credits, created_at FROM accounts.tokens WHERE secret_hash = ?',
    );
    this.#byId = db.prepare('SELECT id, label, credits, created_at FROM accounts.tokens WHERE id = ?');
    // The WHERE clause makes the check and the debit one statement: no read-modify-write race.
    this.#charge = db.prepare(
      'UPDATE accounts.tokens SET credits = credits - ?1 WHERE id = ?2 AND credits IS NOT NULL AND credits >= ?1',
    );
    this.#refund = db.prepare(
      'UPDATE accounts.tokens SET credits = credits + ? WHERE id = ? AND credits IS NOT NULL',
    );
  }

  create(input: { id: string; secretHash: string; label?: string; credits: number | null }): TokenRecord {
    const createdAt = Date.now();
    this.#insert.run(input.id, input.secretHash, input.label ?? null, input.credits, createdAt);
    return Object.freeze({ id: input.id, label: input.label ?? null, credits: input.credits, createdAt });
  }

  findBySecretHash(secretHash: string): TokenRecord | undefined {
    const row = this.#bySecret.get(secretHash) as TokenRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  findById(id: string): TokenRecord | undefined {
    const row = this.#byId.get(id) as TokenRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  charge(id: string, amount: number): boolean {
    if (!Number.isInteger(amount) || amount < 0)
      throw new RangeError(`charge amount must be >= 0: ${amount}`);
    // The debit first: a token that can pay (the usual case) needs no read.
    if (amount > 0 && Number(this.#charge.run(amount, id).changes) === 1) return true;
    const token = this.findById(id);
    if (!token) return false;
    return token.credits === null || amount === 0;
  }

  /**
   * The charges `amounts` of one token made one after another, each taken when the balance then
   * covers it (as `charge` each, in order; amounts are non-negative integers): what each returned.
   * One UPDATE of their sum when the balance covers them all (the usual case), one read more for
   * an unlimited or unknown token; charge by charge only when the balance runs short. Atomic only
   * inside a transaction (the grouped charges' own).
   */
  chargeAll(id: string, amounts: readonly number[]): boolean[] {
    let total = 0;
    for (const amount of amounts) total += amount;
    // Every amount >= 0: the balance covers each in turn exactly when it covers their sum.
    if (total > 0 && Number(this.#charge.run(total, id).changes) === 1) return amounts.map(() => true);
    const token = this.findById(id);
    if (!token) return amounts.map(() => false);
    if (token.credits === null || total === 0) return amounts.map(() => true);
    return amounts.map((amount) => this.charge(id, amount));
  }

  refund(id: string, amount: number): void {
    if (amount > 0) this.#refund.run(amount, id);
  }

  list(): TokenRecord[] {
    return (
      this.#db
        .prepare('SELECT id, label, credits, created_at FROM accounts.tokens ORDER BY created_at')
        .all() as unknown as TokenRow[]
    ).map(toRecord);
  }
}
