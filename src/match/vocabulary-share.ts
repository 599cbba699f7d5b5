/**
 * One copy of each vocabulary for every thread of the process that matches against the same
 * store (the server's main thread and its bulk worker threads).
 *
 * The first thread that needs the vocabulary of a key prefix at a graph version builds it (a
 * lock per prefix in shared memory keeps the others waiting instead of building their own) and
 * posts the table (shared buffers: nothing is copied) on a broadcast channel; the others read it
 * from the channel synchronously (`receiveMessageOnPort`), so a thread busy answering queries
 * never needs its event loop for this. A builder that dies holding the lock only delays the
 * others by the wait limit, after which they build for themselves.
 */
import { BroadcastChannel, receiveMessageOnPort } from 'node:worker_threads';
import { TermTable, type TermTableData } from './term-table.ts';

/** What a thread needs to join the share: plain data, passed to worker threads as is. */
export interface VocabularyShareData {
  readonly channel: string;
  /** One lock word per slot: 0 free, 1 a thread is building. */
  readonly locks: Int32Array;
  /** Tables built before this thread joined (announcements reach only threads already there). */
  readonly known?: readonly Announcement[];
}

export interface Announcement {
  readonly prefix: string;
  readonly version: string;
  readonly table: TermTableData;
}

const LOCK_SLOTS = 16;
/** Longest wait for another thread's build before building anyway (a 2M-entity graph: ~4 s). */
const DEFAULT_WAIT_MS = 60_000;
let shares = 0;

/** A new share (one per store); hand `data` to every thread that should join it. */
export function createVocabularyShareData(): VocabularyShareData {
  return {
    channel: `quarry-vocabularies-${process.pid}-${++shares}-${Math.random().toString(36).slice(2)}`,
    locks: new Int32Array(new SharedArrayBuffer(LOCK_SLOTS * Int32Array.BYTES_PER_ELEMENT)),
  };
}

function slotOf(prefix: string): number {
  let h = 0;
  for (let i = 0; i < prefix.length; i++) h = (h * 31 + prefix.charCodeAt(i)) | 0;
  return Math.abs(h) % LOCK_SLOTS;
}

export class VocabularyShare {
  readonly #locks: Int32Array;
  readonly #channel: BroadcastChannel;
  readonly #waitMs: number;
  /** The latest table seen per prefix, with its graph version. */
  readonly #latest = new Map<string, { version: string; table: TermTable }>();
  /** Tables this thread built (tests, logs). */
  built = 0;

  constructor(data: VocabularyShareData, options: { waitMs?: number } = {}) {
    this.#locks = data.locks;
    this.#channel = new BroadcastChannel(data.channel);
    // Announcements arrive as events while the thread's event loop runs, and are read
    // synchronously (`#known`) while it is busy; the channel never keeps a thread alive.
    this.#channel.onmessage = (event) => this.#accept((event as unknown as { data: Announcement }).data);
    (this.#channel as unknown as { unref(): void }).unref();
    this.#waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    for (const announcement of data.known ?? []) this.#accept(announcement);
  }

  /** What a thread starting now needs to join, with the tables known so far. */
  handoff(): VocabularyShareData {
    this.#drain();
    return {
      channel: this.#channel.name,
      locks: this.#locks,
      known: [...this.#latest].map(([prefix, { version, table }]) => ({
        prefix,
        version,
        table: table.data,
      })),
    };
  }

  /**
   * The table of `prefix` at graph `version`: from another thread when one built it, else built
   * here with `build` and offered to the others.
   */
  table(prefix: string, version: string, build: () => TermTable): TermTable {
    const slot = slotOf(prefix);
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      const known = this.#known(prefix, version);
      if (known) return known;
      const mine = Atomics.compareExchange(this.#locks, slot, 0, 1) === 0;
      if (mine || Date.now() >= deadline) {
        try {
          // Another thread may have finished between the look and the lock.
          const late = this.#known(prefix, version);
          if (late) return late;
          const table = build();
          this.built++;
          this.#latest.set(prefix, { version, table });
          this.#channel.postMessage({ prefix, version, table: table.data } satisfies Announcement);
          return table;
        } finally {
          if (mine) {
            Atomics.store(this.#locks, slot, 0);
            Atomics.notify(this.#locks, slot);
          }
        }
      }
      Atomics.wait(this.#locks, slot, 1, Math.max(1, deadline - Date.now()));
    }
  }

  #accept(message: Announcement): void {
    this.#latest.set(message.prefix, { version: message.version, table: new TermTable(message.table) });
  }

  close(): void {
    this.#channel.close();
  }

  #known(prefix: string, version: string): TermTable | undefined {
    this.#drain();
    const latest = this.#latest.get(prefix);
    return latest?.version === version ? latest.table : undefined;
  }

  #drain(): void {
    for (;;) {
      const received = receiveMessageOnPort(this.#channel as never) as { message: Announcement } | undefined;
      if (!received) break;
      this.#accept(received.message);
    }
  }
}
