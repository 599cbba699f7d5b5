/**
 * Turns of hosts kept in this process's memory: the `HostTurnStore` of a deployment of one
 * process, and the reference the PostgreSQL one is held to by the contract suite.
 */
import type { HostTurn, HostTurnStore } from './ports.ts';

interface Turn {
  token: number;
  /** 0 when nobody holds the host, epoch ms. */
  heldUntil: number;
  lastEnd: number;
}

/** Hosts remembered at most; the least recently used free ones are forgotten first. */
const MAX_HOSTS = 50_000;

export class MemoryHostTurnStore implements HostTurnStore {
  readonly #turns = new Map<string, Turn>();
  readonly #now: () => number;
  #tokens = 0;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async take(host: string, delayMs: number, holdMs: number): Promise<HostTurn> {
    const now = this.#now();
    const turn = this.#turns.get(host);
    if (turn) {
      // Held: when it ends is unknown, and the next turn begins a delay after it.
      if (turn.heldUntil > now) return { granted: false, waitMs: delayMs };
      if (turn.lastEnd + delayMs > now) return { granted: false, waitMs: turn.lastEnd + delayMs - now };
      this.#turns.delete(host);
    }
    const token = ++this.#tokens;
    this.#turns.set(host, { token, heldUntil: now + holdMs, lastEnd: turn?.lastEnd ?? 0 });
    if (this.#turns.size > MAX_HOSTS) this.#forget(now);
    return { granted: true, token };
  }

  async release(host: string, token: number): Promise<void> {
    const turn = this.#turns.get(host);
    if (!turn || turn.token !== token) return;
    turn.heldUntil = 0;
    turn.lastEnd = this.#now();
  }

  /** Forgets free hosts whose last turn ended over a minute ago (delays are 30 s at most). */
  #forget(now: number): void {
    for (const [host, turn] of this.#turns) {
      if (this.#turns.size <= MAX_HOSTS / 2) return;
      if (turn.heldUntil === 0 && now - turn.lastEnd > 60_000) this.#turns.delete(host);
    }
  }
}
