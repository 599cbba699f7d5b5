/**
 * Politeness per host for the fetches of refresh and search: one request at a time per host,
 * the next starting at least the host's delay after the previous one ended. Requests a person
 * waits for (single enhance) go before those of bulk jobs waiting for the same host; within a
 * priority, first come first served. Hosts are independent: a slow host holds up only itself.
 */

/** Who waits for a fetch: a person (single enhance) or a bulk job. */
export type FetchPriority = 'interactive' | 'bulk';

/** Thrown to a waiter whose signal aborted before its turn came. */
export class GateAbortedError extends Error {
  constructor() {
    super('The wait for the host was abandoned');
    this.name = 'GateAbortedError';
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

interface HostState {
  busy: boolean;
  /** Monotonic time (ms) before which the next request may not start. */
  nextAt: number;
  /** Delay after each request, ms (the default, or more when robots.txt asks). */
  delayMs: number;
  readonly interactive: Waiter[];
  readonly bulk: Waiter[];
  timer: NodeJS.Timeout | undefined;
}

export interface HostGateOptions {
  /** Least time between the end of a request to a host and the start of the next, ms. */
  readonly delayMs: number;
  /** Monotonic clock in ms (default `performance.now`). */
  readonly now?: () => number;
  /** Idle hosts remembered at most before the oldest are forgotten (default 10,000). */
  readonly maxIdleHosts?: number;
}

/** Per-host turns; see the module comment. */
export class HostGate {
  readonly #defaultDelayMs: number;
  readonly #now: () => number;
  readonly #maxIdle: number;
  readonly #hosts = new Map<string, HostState>();

  constructor(options: HostGateOptions) {
    this.#defaultDelayMs = Math.max(0, options.delayMs);
    this.#now = options.now ?? (() => performance.now());
    this.#maxIdle = options.maxIdleHosts ?? 10_000;
  }

  /** The delay kept after each request to `host`, ms. */
  delayOf(host: string): number {
    return this.#hosts.get(host)?.delayMs ?? this.#defaultDelayMs;
  }

  /** Raises `host`'s delay to `delayMs` (a robots.txt `Crawl-delay`); never below the default. */
  requireDelay(host: string, delayMs: number): void {
    const state = this.#state(host);
    state.delayMs = Math.max(this.#defaultDelayMs, delayMs);
  }

  /**
   * Runs `fn` in `host`'s turn: when no other request to the host runs and its delay since the
   * previous one has passed. Rejects with `GateAbortedError` when `signal` aborts first.
   */
  async run<T>(
    host: string,
    priority: FetchPriority,
    fn: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.#turn(host, priority, signal);
    const state = this.#hosts.get(host)!;
    try {
      return await fn();
    } finally {
      state.busy = false;
      state.nextAt = this.#now() + state.delayMs;
      this.#pump(host, state);
    }
  }

  #turn(host: string, priority: FetchPriority, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new GateAbortedError());
    const state = this.#state(host);
    return new Promise<void>((resolve, reject) => {
      const queue = priority === 'interactive' ? state.interactive : state.bulk;
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', waiter.onAbort);
          resolve();
        },
        reject,
        signal,
        onAbort: () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(new GateAbortedError());
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      queue.push(waiter);
      this.#pump(host, state);
    });
  }

  #state(host: string): HostState {
    let state = this.#hosts.get(host);
    if (!state) {
      if (this.#hosts.size >= this.#maxIdle) this.#forgetIdle();
      state = {
        busy: false,
        nextAt: 0,
        delayMs: this.#defaultDelayMs,
        interactive: [],
        bulk: [],
        timer: undefined,
      };
      this.#hosts.set(host, state);
    }
    return state;
  }

  /** Hands the host's turn to the next waiter once its delay has passed. */
  #pump(host: string, state: HostState): void {
    if (state.busy || state.timer) return;
    const next = state.interactive[0] ?? state.bulk[0];
    if (!next) return;
    const wait = state.nextAt - this.#now();
    if (wait > 0) {
      // Timers may fire a fraction of a millisecond early: the check runs again when it fires.
      state.timer = setTimeout(() => {
        state.timer = undefined;
        this.#pump(host, state);
      }, Math.ceil(wait));
      return;
    }
    (state.interactive.length > 0 ? state.interactive : state.bulk).shift();
    state.busy = true;
    next.resolve();
  }

  /** Forgets hosts with nothing running or waiting whose delay has passed (bounded memory). */
  #forgetIdle(): void {
    const now = this.#now();
    for (const [host, state] of this.#hosts) {
      const idle = !state.busy && !state.timer && state.interactive.length + state.bulk.length === 0;
      if (idle && state.nextAt <= now) this.#hosts.delete(host);
    }
  }
}
