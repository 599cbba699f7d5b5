import type { Logger } from '../logging.ts';
import type { Runtime } from '../runtime.ts';
import { HeapTrimmer, SERVER_HEAP_TRIM } from '../threads/index.ts';

/**
 * What a long-running process (`quarry serve`, `quarry worker`) does once it runs: checks its
 * heap once a second (V8 otherwise keeps a heap several times what it holds; threads/heap-trim.ts),
 * and on SIGINT or SIGTERM closes `runtime` (work in progress is left to resume) and exits.
 */
export function runUntilStopped(runtime: Pick<Runtime, 'close'>, logger: Logger): void {
  const heap = new HeapTrimmer(SERVER_HEAP_TRIM);
  setInterval(() => heap.maybeTrim(), 1000).unref();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
