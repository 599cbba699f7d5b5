import type { TokenStore } from '../ports.ts';

interface Charge {
  readonly amount: number;
  resolve(paid: boolean): void;
  reject(error: unknown): void;
}

/** The charges of one token: the statement in flight, and those made while it runs. */
interface TokenCharges {
  inFlight: boolean;
  waiting: Charge[];
}

/**
 * The token port of the PostgreSQL store with the charges of one token grouped: while a charge
 * of a token is being written, the token's further charges wait, and go as one group when it
 * returns — one conditional debit of their sum (`charge(id, sum)`, a statement and a commit)
 * instead of one each. A charge with none in flight goes at once, so a quiet server adds no
 * delay; a busy one, whose requests queue on the token's row lock anyway, writes fewer commits.
 *
 * Never overspent, across any number of processes: a group's sum is one atomic conditional
 * debit, all of it or nothing. When the balance cannot pay the sum (the token is nearly spent,
 * or unknown), the group's charges are made one by one in the order they were made, each its
 * own conditional debit, exactly as without grouping. A charge resolves only once its statement
 * has committed. Refunds are not grouped (rare: after a failed operation).
 */
export function groupedPgCharges(port: TokenStore): TokenStore {
  const tokens = new Map<string, TokenCharges>();

  const settleOneByOne = async (id: string, group: readonly Charge[]) => {
    for (const charge of group) {
      try {
        charge.resolve(await port.charge(id, charge.amount));
      } catch (error) {
        charge.reject(error);
      }
    }
  };

  const flush = async (id: string, state: TokenCharges) => {
    while (state.waiting.length > 0) {
      const group = state.waiting;
      state.waiting = [];
      state.inFlight = true;
      if (group.length === 1) {
        await settleOneByOne(id, group);
        continue;
      }
      let paid: boolean;
      try {
        paid = await port.charge(
          id,
          group.reduce((sum, charge) => sum + charge.amount, 0),
        );
      } catch (error) {
        // The statement failed: none of the group was taken.
        for (const charge of group) charge.reject(error);
        continue;
      }
      if (paid) for (const charge of group) charge.resolve(true);
      else await settleOneByOne(id, group);
    }
    state.inFlight = false;
    tokens.delete(id);
  };

  return {
    create: (input) => port.create(input),
    findBySecretHash: (hash) => port.findBySecretHash(hash),
    findById: (id) => port.findById(id),
    list: () => port.list(),
    refund: (id, amount) => port.refund(id, amount),
    charge(id, amount) {
      // Checked here, so that a bad amount fails alone rather than its whole group.
      if (!Number.isInteger(amount) || amount < 0)
        return Promise.reject(new RangeError(`charge amount must be >= 0: ${amount}`));
      return new Promise<boolean>((resolve, reject) => {
        let state = tokens.get(id);
        if (!state) {
          state = { inFlight: false, waiting: [] };
          tokens.set(id, state);
        }
        state.waiting.push({ amount, resolve, reject });
        if (!state.inFlight) void flush(id, state);
      });
    },
  };
}
