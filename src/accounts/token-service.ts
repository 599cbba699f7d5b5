import { createHash, randomBytes } from 'node:crypto';
import { InsufficientCreditsError, InvalidTokenError, MissingTokenError } from '../errors.ts';
import type { TokenRecord, TokenStore } from '../storage/index.ts';

/** SHA-256 hex of a token secret: the only form in which secrets are stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A newly created token: `secret` is shown once and never stored. */
export interface CreatedToken {
  readonly secret: string;
  readonly record: TokenRecord;
}

/**
 * Issues tokens and moves credits. Tokens are 32 lowercase hex digits, like the reference
 * service's, so existing clients' validation accepts them.
 */
export class TokenService {
  readonly #store: TokenStore;
  /** Authentication is on every request's path: remember recent lookups for a short time. */
  readonly #cache = new Map<string, { record: TokenRecord; at: number }>();

  constructor(store: TokenStore) {
    this.#store = store;
  }

  /** Creates a token with `credits` (a non-negative integer) or unlimited credits (`null`). */
  async create(options: { credits: number | null; label?: string; secret?: string }): Promise<CreatedToken> {
    if (options.credits !== null && (!Number.isInteger(options.credits) || options.credits < 0)) {
      throw new RangeError(`credits must be a non-negative integer, got ${options.credits}`);
    }
    const secret = options.secret ?? randomBytes(16).toString('hex');
    const record = await this.#store.create({
      id: `tok_${randomBytes(6).toString('hex')}`,
      secretHash: hashSecret(secret),
      label: options.label,
      credits: options.credits,
    });
    return { secret, record };
  }

  /** Resolves a secret to its token; throws 401 errors for a missing or unknown one. */
  async authenticate(secret: string | undefined): Promise<TokenRecord> {
    if (secret === undefined || secret.trim() === '') throw new MissingTokenError();
    const hash = hashSecret(secret.trim());
    const cached = this.#cache.get(hash);
    // Five seconds: long enough to absorb bursts, short enough that revocation takes effect.
    if (cached && Date.now() - cached.at < 5_000) return cached.record;
    const record = await this.#store.findBySecretHash(hash);
    if (!record) throw new InvalidTokenError();
    if (this.#cache.size > 10_000) this.#cache.clear();
    this.#cache.set(hash, { record, at: Date.now() });
    return record;
  }

  /** Finds a token by secret without throwing. */
  find(secret: string): Promise<TokenRecord | undefined> {
    return this.#store.findBySecretHash(hashSecret(secret));
  }

  /** Takes `amount` credits atomically or throws 429 leaving the balance unchanged. */
  async charge(tokenId: string, amount: number): Promise<void> {
    if (!(await this.#store.charge(tokenId, amount))) throw new InsufficientCreditsError();
  }

  /** Takes `amount` credits when possible; false (nothing taken) otherwise. */
  tryCharge(tokenId: string, amount: number): Promise<boolean> {
    return this.#store.charge(tokenId, amount);
  }

  refund(tokenId: string, amount: number): Promise<void> {
    return this.#store.refund(tokenId, amount);
  }

  async balance(tokenId: string): Promise<number | null | undefined> {
    return (await this.#store.findById(tokenId))?.credits;
  }
}
