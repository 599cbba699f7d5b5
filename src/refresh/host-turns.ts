/**
 * The order in which refresh and search take their turns at a host: one of their requests at a
 * time per host, requests a person waits for (single enhance) before those of bulk jobs waiting
 * for the same host, and within a priority first come first served. Hosts are independent.
 *
 * Only the order: when a request may begin (the host's delay, robots.txt's `Crawl-delay`) is
 * decided by the process's one `HostPoliteness`, shared with the crawl (`crawl/polite-fetcher.ts`).
 * The port serves its waiters in arrival order; queueing here first is what lets a person's
 * request overtake a bulk job's backlog at one host.
 */

/** Who waits for a fetch: a person (single enhance) or a bulk job. */
export type FetchPriority = 'interactive' | 'bulk';

/** Thrown to a waiter whose signal aborted before its turn came (never reaches a user). */
export class TurnAbortedError extends Error {
  constructor() {
    super('The wait for the host was abandoned');
    this.name = 'TurnAbortedError';
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly onAbort: () => void;
}

interface HostQueue {
  busy: boolean;
  readonly interactive: Waiter[];
  readonly bulk: Waiter[];
}

/** Per-host turns; see the module comment. Hosts with nothing running or waiting are forgotten. */
export class HostTurns {
  readonly #hosts = new Map<string, HostQueue>();

  /** Runs `fn` in `host`'s turn. Rejects with `TurnAbortedError` when `signal` aborts first. */
  async run<T>(
    host: string,
    priority: FetchPriority,
    fn: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const queue = this.#queue(host);
    try {
      await this.#turn(queue, priority, signal);
    } catch (error) {
      this.#forgetIfIdle(host, queue);
      throw error;
    }
    try {
      return await fn();
    } finally {
      queue.busy = false;
      this.#next(queue);
      this.#forgetIfIdle(host, queue);
    }
  }

  #turn(queue: HostQueue, priority: FetchPriority, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new TurnAbortedError());
    if (!queue.busy) {
      queue.busy = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const line = priority === 'interactive' ? queue.interactive : queue.bulk;
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', waiter.onAbort);
          resolve();
        },
        onAbort: () => {
          const at = line.indexOf(waiter);
          if (at >= 0) line.splice(at, 1);
          reject(new TurnAbortedError());
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      line.push(waiter);
    });
  }

  #queue(host: string): HostQueue {
    let queue = this.#hosts.get(host);
    if (!queue) {
      queue = { busy: false, interactive: [], bulk: [] };
      this.#hosts.set(host, queue);
    }
    return queue;
  }

  /** Hands the host's turn to the next waiter, persons first. */
  #next(queue: HostQueue): void {
    const next = queue.interactive.shift() ?? queue.bulk.shift();
    if (!next) return;
    queue.busy = true;
    next.resolve();
  }

  #forgetIfIdle(host: string, queue: HostQueue): void {
    if (!queue.busy && queue.interactive.length + queue.bulk.length === 0) this.#hosts.delete(host);
  }
}
