import type { TokenRecord, TokenStore } from '../ports.ts';
import type { PgExecutor } from './pg-executor.ts';

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
 * Tokens in PostgreSQL. A charge is one conditional UPDATE: the row lock makes concurrent charges
 * from any number of processes queue on it, and the `WHERE credits >= amount` makes the check and
 * the debit one step, so a balance is never overspent.
 */
export class PgTokenStore implements TokenStore {
  readonly #db: PgExecutor;

  constructor(db: PgExecutor) {
    this.#db = db;
  }

  async create(input: {
    id: string;
    secretHash: string;
    label?: string;
    credits: number | null;
  }): Promise<TokenRecord> {
    const createdAt = Date.now();
    await this.#db.query(
      'INSERT INTO tokens (id, secret_hash, label, credits, created_at) VALUES ($1, $2, $3, $4, $5)',
      [input.id, input.secretHash, input.label ?? null, input.credits, createdAt],
    );
    return Object.freeze({ id: input.id, label: input.label ?? null, credits: input.credits, createdAt });
  }

  async findBySecretHash(secretHash: string): Promise<TokenRecord | undefined> {
    const { rows } = await this.#db.query<TokenRow>(
      'SELECT id, label, credits, created_at FROM tokens WHERE secret_hash = $1',
      [secretHash],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async findById(id: string): Promise<TokenRecord | undefined> {
    const { rows } = await this.#db.query<TokenRow>(
      'SELECT id, label, credits, created_at FROM tokens WHERE id = $1',
      [id],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async charge(id: string, amount: number): Promise<boolean> {
    if (!Number.isInteger(amount) || amount < 0)
      throw new RangeError(`charge amount must be >= 0: ${amount}`);
    // One statement: unlimited tokens and a zero amount pay without a write; a limited token pays
    // only while its balance covers the amount.
    const { rows } = await this.#db.query<{ paid: boolean }>(
      `WITH token AS (SELECT credits FROM tokens WHERE id = $2),
            debit AS (
              UPDATE tokens SET credits = credits - $1
              WHERE id = $2 AND $1 > 0 AND credits IS NOT NULL AND credits >= $1
              RETURNING 1)
       SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM token) THEN false
                   WHEN (SELECT credits FROM token) IS NULL OR $1 = 0 THEN true
                   ELSE EXISTS (SELECT 1 FROM debit) END AS paid`,
      [amount, id],
    );
    return rows[0]?.paid === true;
  }

  async refund(id: string, amount: number): Promise<void> {
    if (amount > 0) {
      await this.#db.query('UPDATE tokens SET credits = credits + $1 WHERE id = $2 AND credits IS NOT NULL', [
        amount,
        id,
      ]);
    }
  }

  async list(): Promise<TokenRecord[]> {
    const { rows } = await this.#db.query<TokenRow>(
      'SELECT id, label, credits, created_at FROM tokens ORDER BY created_at, seq',
    );
    return rows.map(toRecord);
  }
}
