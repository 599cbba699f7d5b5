/**
 * Politeness per host, across every job and every feature that fetches on a caller's behalf
 * (crawls now; refresh and search later): requests to one host are spaced by its delay and
 * limited in number, whoever makes them (issue 24 §3, docs/api.md#fetching).
 *
 * The rule of a request: `delayMs` (the larger of the job's `crawlDelay` and the host's
 * robots.txt `Crawl-delay`) and `maxConcurrent`. A request may begin when fewer than
 * `maxConcurrent` requests to the host are in flight — one when `delayMs` > 0 — and at least
 * `delayMs` after the previous request to the host began and after it ended. So two jobs
 * crawling one host with `Crawl-delay: 2` see their requests two seconds apart, not each job's
 * requests two seconds apart.
 *
 * `HostPoliteness` is the port: this file's `InProcessHostPoliteness` serves one process; a
 * store shared by several processes (PostgreSQL) can implement the same interface, keeping
 * `readyAt` as a local, advisory estimate and making `acquire` authoritative.
 */

/** What a request asks of its host. */
export interface PolitenessRule {
  /** Milliseconds between requests to the host (from the previous one's start and end). */
  readonly delayMs: number;
  /** Requests in flight to the host at most when `delayMs` is 0 (1 otherwise). */
  readonly maxConcurrent: number;
}

/** A request's hold on its host; `release()` when the response has been read (idempotent). */
export interface HostLease {
  readonly host: string;
  release(): void;
}

/** The politeness port. */
export interface HostPoliteness {
  /**
   * When a request to `host` under `rule` could begin, as far as this process knows: `now` or
   * earlier when it could now, `Infinity` when only the end of a request in flight can make room.
   * Advisory (for a scheduler's wake-ups); `acquire` decides.
   */
  readyAt(host: string, rule: PolitenessRule, now: number): number;
  /** How many requests to `host` under `rule` could begin now (advisory, like `readyAt`). */
  capacity(host: string, rule: PolitenessRule, now: number): number;
  /**
   * Waits until a request to `host` may begin under `rule` and holds the host for it. Waiters
   * of one host are served in arrival order. Rejects with the signal's reason when aborted.
   */
  acquire(host: string, rule: PolitenessRule, signal?: AbortSignal): Promise<HostLease>;
  /** Registers `listener`, called after a lease of `host` is released (a host may be ready). */
  onRelease(listener: (host: string) => void): void;
}

interface HostState {
  inflight: number;
  /** Start of the last request, epoch ms. */
  lastStart: number;
  /** End of the last request (0 while none ended), epoch ms. */
  lastEnd: number;
  readonly waiters: Waiter[];
  timer: NodeJS.Timeout | undefined;
}

interface Waiter {
  readonly rule: PolitenessRule;
  readonly resolve: (lease: HostLease) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** Hosts remembered with nothing in flight or waiting, at most (oldest forgotten first). */
const MAX_IDLE_HOSTS = 50_000;

/** Politeness for the requests of this process. */
export class InProcessHostPoliteness implements HostPoliteness {
  readonly #hosts = new Map<string, HostState>();
  readonly #listeners: ((host: string) => void)[] = [];
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  readyAt(host: string, rule: PolitenessRule, now: number): number {
    const state = this.#hosts.get(host);
    if (!state) return now;
    if (state.waiters.length > 0) return Number.POSITIVE_INFINITY;
    return this.#readyAt(state, rule, now);
  }

  capacity(host: string, rule: PolitenessRule, now: number): number {
    if (this.readyAt(host, rule, now) > now) return 0;
    const limit = rule.delayMs > 0 ? 1 : Math.max(1, rule.maxConcurrent);
    return limit - (this.#hosts.get(host)?.inflight ?? 0);
  }

  acquire(host: string, rule: PolitenessRule, signal?: AbortSignal): Promise<HostLease> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const state = this.#state(host);
    const now = this.#now();
    if (state.waiters.length === 0 && this.#readyAt(state, rule, now) <= now) {
      return Promise.resolve(this.#grant(host, state, now));
    }
    return new Promise<HostLease>((resolve, reject) => {
      const onAbort = () => {
        const index = state.waiters.indexOf(waiter);
        if (index >= 0) state.waiters.splice(index, 1);
        reject(signal?.reason);
        this.#serve(host, state);
      };
      const waiter: Waiter = { rule, resolve, reject, signal, onAbort };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiters.push(waiter);
      this.#serve(host, state);
    });
  }

  onRelease(listener: (host: string) => void): void {
    this.#listeners.push(listener);
  }

  #state(host: string): HostState {
    let state = this.#hosts.get(host);
    if (!state) {
      state = { inflight: 0, lastStart: 0, lastEnd: 0, waiters: [], timer: undefined };
      this.#hosts.set(host, state);
      if (this.#hosts.size > MAX_IDLE_HOSTS) this.#forgetIdle();
    }
    return state;
  }

  #readyAt(state: HostState, rule: PolitenessRule, now: number): number {
    const limit = rule.delayMs > 0 ? 1 : Math.max(1, rule.maxConcurrent);
    if (state.inflight >= limit) return Number.POSITIVE_INFINITY;
    if (rule.delayMs <= 0) return now;
    return Math.max(now, state.lastStart + rule.delayMs, state.lastEnd + rule.delayMs);
  }

  #grant(host: string, state: HostState, now: number): HostLease {
    state.inflight++;
    state.lastStart = now;
    let released = false;
    return {
      host,
      release: () => {
        if (released) return;
        released = true;
        state.inflight--;
        state.lastEnd = this.#now();
        this.#serve(host, state);
        for (const listener of this.#listeners) listener(host);
      },
    };
  }

  /** Grants the waiters at the head of the queue that may begin now; arms a timer for the next. */
  #serve(host: string, state: HostState): void {
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    while (state.waiters.length > 0) {
      const now = this.#now();
      const head = state.waiters[0];
      const at = this.#readyAt(state, head.rule, now);
      if (at > now) {
        if (Number.isFinite(at)) {
          state.timer = setTimeout(() => this.#serve(host, state), at - now);
        }
        return;
      }
      state.waiters.shift();
      head.signal?.removeEventListener('abort', head.onAbort);
      head.resolve(this.#grant(host, state, now));
    }
  }

  #forgetIdle(): void {
    const now = this.#now();
    for (const [host, state] of this.#hosts) {
      if (this.#hosts.size <= MAX_IDLE_HOSTS / 2) return;
      // A host may be forgotten once nothing is in flight or waiting and its delay (≤ 30 s) passed.
      if (state.inflight === 0 && state.waiters.length === 0 && now - state.lastEnd > 60_000) {
        this.#hosts.delete(host);
      }
    }
  }
}
