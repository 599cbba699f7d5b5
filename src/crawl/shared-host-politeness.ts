/**
 * Politeness per host across the processes of a deployment (issue 26): this process's own
 * requests keep their order and limits in `InProcessHostPoliteness`, and a request with a delay
 * also takes its host's turn in the store (`HostTurnStore`), which every process shares. So two
 * processes crawling one host with `Crawl-delay: 2` see their requests two seconds apart.
 *
 * A host without delay is limited per process only (`perHostConcurrency` each): spacing nothing,
 * there is nothing to keep across processes but a count, and the store would be asked on every
 * request of the busiest hosts.
 */
import type { HostTurnStore } from '../storage/index.ts';
import {
  type HostLease,
  type HostPoliteness,
  InProcessHostPoliteness,
  type PolitenessRule,
} from './host-politeness.ts';

/** Shortest wait before asking the store again, ms (a turn just released, a stale answer). */
const MIN_RETRY_MS = 10;
/** Longest a turn is held, ms: beyond the longest fetch (30 s) and its redirects' robots.txt. */
const DEFAULT_HOLD_MS = 120_000;
/** Estimates kept at most (they are only hints for the scheduler's wake-ups). */
const MAX_BUSY_HOSTS = 50_000;

export interface SharedHostPolitenessOptions {
  readonly turns: HostTurnStore;
  /** Told when the store failed to end a turn (it lapses after `holdMs`, or with this process). */
  readonly onError?: (error: unknown) => void;
  readonly holdMs?: number;
  readonly now?: () => number;
}

/** `HostPoliteness` whose turns hold across processes (see the module comment). */
export class SharedHostPoliteness implements HostPoliteness {
  readonly #local: InProcessHostPoliteness;
  readonly #turns: HostTurnStore;
  readonly #holdMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  /** Hosts another process held when last asked: when to ask again (an estimate, epoch ms). */
  readonly #busyUntil = new Map<string, number>();

  constructor(options: SharedHostPolitenessOptions) {
    this.#now = options.now ?? Date.now;
    this.#local = new InProcessHostPoliteness({ now: this.#now });
    this.#turns = options.turns;
    this.#holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
    this.#onError = options.onError ?? (() => {});
  }

  readyAt(host: string, rule: PolitenessRule, now: number): number {
    const local = this.#local.readyAt(host, rule, now);
    if (rule.delayMs <= 0) return local;
    return Math.max(local, this.#busyUntil.get(host) ?? 0);
  }

  capacity(host: string, rule: PolitenessRule, now: number): number {
    if (this.readyAt(host, rule, now) > now) return 0;
    return this.#local.capacity(host, rule, now);
  }

  /** This process's turn first (in arrival order), then the host's turn in the store. */
  async acquire(host: string, rule: PolitenessRule, signal?: AbortSignal): Promise<HostLease> {
    const local = await this.#local.acquire(host, rule, signal);
    if (rule.delayMs <= 0) return local;
    try {
      const token = await this.#takeTurn(host, rule.delayMs, signal);
      let released = false;
      return {
        host,
        release: () => {
          if (released) return;
          released = true;
          this.#turns.release(host, token).catch(this.#onError);
          local.release();
        },
      };
    } catch (error) {
      local.release();
      throw error;
    }
  }

  onRelease(listener: (host: string) => void): void {
    this.#local.onRelease(listener);
  }

  async #takeTurn(host: string, delayMs: number, signal: AbortSignal | undefined): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const turn = await this.#turns.take(host, delayMs, this.#holdMs);
      if (turn.granted) {
        this.#busyUntil.delete(host);
        return turn.token;
      }
      const waitMs = Math.max(MIN_RETRY_MS, turn.waitMs);
      if (this.#busyUntil.size > MAX_BUSY_HOSTS) this.#busyUntil.clear();
      this.#busyUntil.set(host, this.#now() + waitMs);
      await sleep(waitMs, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
