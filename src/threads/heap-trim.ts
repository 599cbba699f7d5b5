/**
 * Keeps a long-lived thread's heap close to what it really holds.
 *
 * On a machine with plenty of memory V8 lets garbage pile up to several times the live heap
 * before a major collection, and it keeps the pages it grew into. A matcher thread holds ~120 MiB
 * of live data (vocabularies, caches) yet grew to ~560 MiB of heap and ~870 MiB of RSS over
 * 20,000 queries; collecting whenever the heap exceeds its live size by a fixed headroom kept the
 * same run at ~525 MiB of RSS, for the same CPU (measured on the 1M + 1M demo graph). The
 * trigger follows the live size, so a larger graph only raises it: collecting is never a limit.
 */
import v8 from 'node:v8';

const MiB = 2 ** 20;

/**
 * V8's full collection, `globalThis.gc`, present when the process started with `--expose-gc`
 * (npm scripts, `bin/quarry.mjs` and the bench and test servers pass it; worker threads inherit
 * it, since V8 flags are process-wide and a `Worker` cannot take them in `execArgv`). Turning the
 * flag on at run time (`v8.setFlagsFromString`) is what Node's documentation warns may crash the
 * process, so without the flag trimming is off: `maybeTrim` never collects.
 */
function fullCollection(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  return typeof exposed === 'function' ? exposed : null;
}

/** Whether this process can trim its heaps (it started with `--expose-gc`). */
export function heapTrimAvailable(): boolean {
  return fullCollection() !== null;
}

export interface HeapTrimOptions {
  /** Never collect below this heap use (MiB). */
  readonly minTriggerMiB: number;
  /** Collect when the heap exceeds the live size after the last collection by this (MiB). */
  readonly headroomMiB: number;
}

/** Settings for worker threads that answer queries in batches (a pause there stalls nobody). */
export const WORKER_HEAP_TRIM: HeapTrimOptions = Object.freeze({ minTriggerMiB: 256, headroomMiB: 160 });
/**
 * Settings for the server's main thread: a collection pauses requests, so it runs rarely (only
 * a heap well past its live size), checked once a second.
 */
export const SERVER_HEAP_TRIM: HeapTrimOptions = Object.freeze({ minTriggerMiB: 512, headroomMiB: 320 });

export class HeapTrimmer {
  readonly #options: HeapTrimOptions;
  #trigger: number;
  /** Collections this trimmer ran. */
  collections = 0;

  constructor(options: HeapTrimOptions) {
    this.#options = options;
    this.#trigger = options.minTriggerMiB * MiB;
  }

  /**
   * Collects if the heap grew past the trigger; returns whether it did (never without
   * `--expose-gc`). Cheap to call often (one heap statistics read). A full collection pauses the thread (~50 ms for 120 MiB live).
   */
  maybeTrim(): boolean {
    if (v8.getHeapStatistics().used_heap_size < this.#trigger) return false;
    const collect = fullCollection();
    if (collect === null) return false;
    collect();
    this.collections++;
    const live = v8.getHeapStatistics().used_heap_size;
    this.#trigger = Math.max(this.#options.minTriggerMiB * MiB, live + this.#options.headroomMiB * MiB);
    return true;
  }
}
