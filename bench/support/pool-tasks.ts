/**
 * The tasks of `bench/worker-pool.ts`, run the same way under every pool compared: an echo (the
 * pool's own cost) and a single enhance request answered as `enhance/enhance-thread.ts` answers
 * it (one read snapshot, the response as UTF-8 JSON). The store comes from `QUARRY_BENCH_POOL_STORE`
 * (worker threads inherit the environment), so no pool-specific `workerData` is needed.
 */
import { HeapTrimmer, WORKER_HEAP_TRIM } from '../../src/threads/index.ts';
import { matchedCount, matchSummary, openThreadEnhancer } from '../../src/enhance/index.ts';
import type { AnswerTask, EncodedAnswer } from '../../src/enhance/enhance-threads.ts';

export type PoolTask =
  | { readonly kind: 'echo'; readonly n: number }
  | (AnswerTask & { readonly kind: 'enhance' });
export type PoolResult = { readonly n: number } | EncodedAnswer;

export function openTasks(): (task: PoolTask) => PoolResult {
  let opened: ReturnType<typeof openThreadEnhancer> | undefined;
  const heap = new HeapTrimmer(WORKER_HEAP_TRIM);
  setInterval(() => heap.maybeTrim(), 1000).unref();
  return (task) => {
    if (task.kind === 'echo') return { n: task.n };
    const file = process.env.QUARRY_BENCH_POOL_STORE;
    if (!file) throw new Error('QUARRY_BENCH_POOL_STORE is not set');
    opened ??= openThreadEnhancer({ store: { adapter: 'sqlite', file }, cacheMiB: 32 });
    const { storage, enhancer } = opened;
    return storage.readSnapshot(() => {
      const response = enhancer.enhance(task.request, task.queryCtx);
      return {
        body: new TextEncoder().encode(JSON.stringify(response)),
        matched: matchedCount(response),
        summary: matchSummary(response),
        batched: 1,
      };
    });
  };
}
