import { Worker } from 'node:worker_threads';

/** A background WAL checkpointer; `stop()` ends it. */
export interface WalCheckpointer {
  stop(): Promise<void>;
}

export interface WalCheckpointerOptions {
  /** Time between checkpoints (default 100 ms). */
  readonly intervalMs?: number;
  /**
   * Called once if the thread fails (its connection cannot open, the thread dies). It has then
   * ended: the writers' own automatic checkpoints are all that bound the WAL, so a writer that
   * raised its threshold for this thread's sake should lower it again.
   */
  readonly onFailure?: (error: Error) => void;
}

/**
 * Checkpoints the WAL of the SQLite file `file` from a thread of its own, every `intervalMs`.
 *
 * Why: SQLite's automatic checkpoint runs inside the `COMMIT` that crosses the threshold, on the
 * writing connection — the main thread, which also answers requests. Under a sustained write
 * load (a bulk job stores ~30 MB/s of results) those checkpoints (copying pages back to the
 * database and syncing it) took a third of the main thread and stalled requests for tens of
 * milliseconds. A PASSIVE checkpoint from another connection copies the same pages
 * concurrently and never blocks writers or readers, so the one left to the commit finds little
 * to copy. Measured on a 1M-record job: main-thread time in COMMIT halved, records/s +25%,
 * event-loop delay p99 78 → 42 ms. Durability is unchanged: the same commits and checkpoints.
 */
export function startWalCheckpointer(file: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const intervalMs = options.intervalMs ?? 100;
  const worker = new Worker(
    `
    const { workerData, parentPort } = require('node:worker_threads');
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(workerData.file, { timeout: 1000 });
    const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    const timer = setInterval(() => {
      try { checkpoint.get(); } catch { /* busy or closing: try again next time */ }
    }, workerData.intervalMs);
    parentPort.on('message', () => { clearInterval(timer); db.close(); process.exit(0); });
    `,
    { eval: true, workerData: { file, intervalMs } },
  );
  // Checkpointing is an optimisation: should the thread fail (its connection cannot open), the
  // writers' own automatic checkpoints still bound the WAL, so the failure must not end the
  // process; the owner hears of it (`onFailure`) to restore those checkpoints' threshold.
  worker.on('error', (error) => options.onFailure?.(error));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  worker.unref();
  return {
    async stop() {
      if (running) {
        worker.ref();
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}
