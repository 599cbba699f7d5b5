/**
 * The embedded store answers at once, so its adapters are written synchronously and exposed
 * through the asynchronous ports by `asynchronous()`: each call runs when made and returns a
 * settled promise.
 *
 * One connection serves every caller of a thread, so while an asynchronous transaction is open
 * (between its `BEGIN` and `COMMIT` the event loop may run other code, in the gaps of the
 * transaction's awaits), calls from outside it must not slip into it: `TransactionGate` holds
 * them until it ends. The transaction's own ports are not gated.
 */

/** The synchronous form of an asynchronous port: each method returns what its promise holds. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

/** Holds calls made outside a transaction of the connection while one is open. */
export class TransactionGate {
  #open: Promise<void> | undefined;

  /** Whether a transaction is open (calls outside it wait). */
  get closed(): boolean {
    return this.#open !== undefined;
  }

  /** Resolves when no transaction is open. */
  async passed(): Promise<void> {
    while (this.#open) await this.#open;
  }

  /** Runs `fn` as the one open transaction, after any other has ended. */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    await this.passed();
    let release!: () => void;
    this.#open = new Promise((resolve) => {
      release = resolve;
    });
    try {
      return await fn();
    } finally {
      this.#open = undefined;
      release();
    }
  }
}

/** Names of the methods of `impl` (own and inherited, but not `Object`'s). */
function methodNames(impl: object): string[] {
  const names = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(impl);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (impl as Record<string, unknown>)[name] === 'function')
        names.add(name);
    }
  }
  return [...names];
}

/**
 * The asynchronous port over a synchronous adapter. With a `gate`, calls wait while a
 * transaction of the connection is open; without one (the transaction's own ports) they run at
 * once. A synchronous throw becomes a rejection.
 */
export function asynchronous<T extends object>(impl: Synchronous<T>, gate?: TransactionGate): T {
  const port: Record<string, unknown> = {};
  for (const name of methodNames(impl)) {
    const method = (impl as Record<string, (...args: unknown[]) => unknown>)[name].bind(impl);
    port[name] = (...args: unknown[]) => {
      if (gate?.closed) return gate.passed().then(() => method(...args));
      try {
        return Promise.resolve(method(...args));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return port as T;
}
