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
 *
 * A thread joins with a handoff (the tables known when it was taken); an announcement posted
 * between the handoff and the moment its channel opens never reaches it. Announcements are
 * counted per lock slot in shared memory (posted first, counted after): a thread that finds more
 * than its handoff saw plus those it has heard since missed some, and before building a table of
 * such a slot itself it asks the others to post again what they know, and waits a little.
 */
import { BroadcastChannel, receiveMessageOnPort } from 'node:worker_threads';
import { TermTable, type TermTableData } from '../match/index.ts';

/** What a thread needs to join the share: plain data, passed to worker threads as is. */
export interface VocabularyShareData {
  readonly channel: string;
  /** One lock word per slot: 0 free, 1 a thread is building. */
  readonly locks: Int32Array;
  /** Announcements made so far, per lock slot (posted first, counted after). */
  readonly announced: Int32Array;
  /** Tables built before this thread joined (announcements reach only threads already there). */
  readonly known?: readonly Announcement[];
  /** `announced` when `known` was taken: a joiner that finds more missed some (none: all). */
  readonly seen?: readonly number[];
}

export interface Announcement {
  readonly prefix: string;
  readonly version: string;
  readonly table: TermTableData;
  /**
   * Posted again for a thread that missed it: taken only by a thread that has no table of the
   * prefix, or is waiting for this one.
   */
  readonly again?: true;
}

/** The table a joiner waits for, and when the first table of its prefix came again. */
interface Awaiting {
  readonly prefix: string;
  readonly version: string;
  answeredAt?: number;
}

/** A thread that missed announcements asks the others to post what they know again. */
interface Resend {
  readonly resend: true;
}

const LOCK_SLOTS = 16;
/** Longest wait for another thread's build before building anyway (a 2M-entity graph: ~4 s). */
const DEFAULT_WAIT_MS = 60_000;
/**
 * Longest wait, once per slot, for tables a joiner missed to be posted again: the others answer
 * from their event loops, so a thread busy in a long synchronous task answers late or never.
 */
const DEFAULT_RESEND_WAIT_MS = 2_000;
/** How long after a first answer a joiner still waits for the others'. */
const RESEND_GRACE_MS = 20;
let shares = 0;

/** A new share (one per store); hand `data` to every thread that should join it. */
export function createVocabularyShareData(): VocabularyShareData {
  return {
    channel: `quarry-vocabularies-${process.pid}-${++shares}-${Math.random().toString(36).slice(2)}`,
    locks: new Int32Array(new SharedArrayBuffer(LOCK_SLOTS * Int32Array.BYTES_PER_ELEMENT)),
    announced: new Int32Array(new SharedArrayBuffer(LOCK_SLOTS * Int32Array.BYTES_PER_ELEMENT)),
  };
}

function slotOf(prefix: string): number {
  let h = 0;
  for (let i = 0; i < prefix.length; i++) h = (h * 31 + prefix.charCodeAt(i)) | 0;
  return Math.abs(h) % LOCK_SLOTS;
}

export class VocabularyShare {
  readonly #locks: Int32Array;
  readonly #announced: Int32Array;
  readonly #channel: BroadcastChannel;
  readonly #waitMs: number;
  readonly #resendWaitMs: number;
  /** `announced` as the handoff saw it, and the announcements heard (or made) since, per slot. */
  readonly #seen: Int32Array;
  readonly #heard = new Int32Array(LOCK_SLOTS);
  /** Slots this thread has asked the others about (once each). */
  readonly #asked = new Set<number>();
  /** The table `#awaitResent` waits for, and when the first table of its prefix came again. */
  #awaiting: Awaiting | undefined;
  /** The latest table seen per prefix, with its graph version. */
  readonly #latest = new Map<string, { version: string; table: TermTable }>();
  /** Tables this thread built (tests, logs). */
  built = 0;

  constructor(data: VocabularyShareData, options: { waitMs?: number; resendWaitMs?: number } = {}) {
    this.#locks = data.locks;
    this.#announced = data.announced;
    this.#channel = new BroadcastChannel(data.channel);
    // Announcements arrive as events while the thread's event loop runs, and are read
    // synchronously (`#known`) while it is busy; the channel never keeps a thread alive.
    this.#channel.onmessage = (event) => this.#receive((event as unknown as { data: unknown }).data);
    (this.#channel as unknown as { unref(): void }).unref();
    this.#waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.#resendWaitMs = options.resendWaitMs ?? DEFAULT_RESEND_WAIT_MS;
    for (const announcement of data.known ?? []) this.#accept(announcement);
    this.#seen = data.seen ? Int32Array.from(data.seen) : new Int32Array(LOCK_SLOTS);
  }

  /** What a thread starting now needs to join, with the tables known so far. */
  handoff(): VocabularyShareData {
    // Counted before reading: every announcement counted was posted, so it is read below.
    const seen = Array.from(this.#announced, (_, slot) => Atomics.load(this.#announced, slot));
    this.#drain();
    return {
      channel: this.#channel.name,
      locks: this.#locks,
      announced: this.#announced,
      known: [...this.#latest].map(([prefix, { version, table }]) => ({
        prefix,
        version,
        table: table.data,
      })),
      seen,
    };
  }

  /**
   * The table of `prefix` at graph `version`: from another thread when one built it, else built
   * here with `build` and offered to the others.
   */
  table(prefix: string, version: string, build: () => TermTable): TermTable {
    const known = this.#known(prefix, version);
    if (known) return known;
    const slot = slotOf(prefix);
    if (this.#missedIn(slot)) {
      this.#asked.add(slot);
      this.#channel.postMessage({ resend: true } satisfies Resend);
      const missed = this.#awaitResent(prefix, version);
      if (missed) return missed;
    }
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
          this.#heard[slot]++;
          Atomics.add(this.#announced, slot, 1);
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

  /**
   * Whether announcements of `slot` were posted before this thread could hear them (read after
   * `#known` has taken in what came): each announcement counted was posted first, and those
   * posted once the channel was open have been heard. Asked once per slot.
   */
  #missedIn(slot: number): boolean {
    if (this.#asked.has(slot)) return false;
    return Atomics.load(this.#announced, slot) > this.#seen[slot] + this.#heard[slot];
  }

  /**
   * Waits (at most `#resendWaitMs`) for the tables of a slot this thread missed to be posted
   * again; the table of `prefix` at `version` when it comes.
   */
  #awaitResent(prefix: string, version: string): TermTable | undefined {
    const deadline = Date.now() + this.#resendWaitMs;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const awaiting: Awaiting = { prefix, version };
    this.#awaiting = awaiting;
    try {
      for (;;) {
        const known = this.#known(prefix, version);
        if (known) return known;
        const now = Date.now();
        // The others answer at about the same time: once one has posted a table of the prefix
        // (at another version), a short grace for the rest, not the whole wait.
        const answered = awaiting.answeredAt !== undefined && now - awaiting.answeredAt >= RESEND_GRACE_MS;
        if (answered || now >= deadline) return undefined;
        Atomics.wait(pause, 0, 0, Math.min(5, Math.max(1, deadline - now)));
      }
    } finally {
      this.#awaiting = undefined;
    }
  }

  #receive(message: unknown): void {
    if ((message as Resend).resend) {
      for (const [prefix, { version, table }] of this.#latest) {
        this.#channel.postMessage({ prefix, version, table: table.data, again: true } satisfies Announcement);
      }
      return;
    }
    const announcement = message as Announcement;
    if (!announcement.again) {
      this.#heard[slotOf(announcement.prefix)]++;
      this.#accept(announcement);
      return;
    }
    const awaiting = this.#awaiting;
    const wanted = awaiting?.prefix === announcement.prefix;
    if (wanted) awaiting.answeredAt ??= Date.now();
    // A table posted again may be older than the one a thread has: taken only when the thread
    // has none of the prefix, or it is the one the thread is waiting for.
    if (!this.#latest.has(announcement.prefix) || (wanted && awaiting.version === announcement.version)) {
      this.#accept(announcement);
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
      const received = receiveMessageOnPort(this.#channel as never) as { message: unknown } | undefined;
      if (!received) break;
      this.#receive(received.message);
    }
  }
}
