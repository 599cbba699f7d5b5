/**
 * What the pool's messages cost a batching thread and the main thread per task (issue 30): one
 * thread serving `serveTaskBatches` with tasks that cost next to nothing (the JSON text of an
 * enhance task, answered with its length), a closed loop keeping `--concurrency` in flight as
 * the HTTP server does under load (replies of a batch come back together; the next tasks are
 * posted one by one). Prints each round's CPU per task of the thread and of the main thread,
 * and the mean batch size.
 *
 *   npx node bench/port-batch.ts [--tasks 200000] [--concurrency 16] [--rounds 5] [--work 0]
 *
 * `--work N`: each task computes N rounds of arithmetic on the thread (the same CPU in every
 * run, counted in the thread's figure), so that tasks queue while it works and arrive in
 * batches, as enhance requests do; compare runs with the same N.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { WorkerPool } from '../src/threads/index.ts';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '200000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '5' },
    work: { type: 'string', default: '0' },
  },
});
const TASK = JSON.stringify({
  kind: 'enhance',
  request: { query: { type: 'Organization', name: ['acme corporation'] }, options: { size: 1 } },
  queryCtx: { type: 'Organization', name: ['acme corporation'] },
});
const pool = new WorkerPool<string, readonly [number, number]>({
  size: 1,
  script: new URL('./support/port-batch-worker.ts', import.meta.url),
  tasksPerWorker: Number(values.concurrency),
  workerData: { work: Number(values.work) },
});
const threadCpu = async () => (await pool.run('cpu'))[0];

async function round(tasks: number): Promise<{ thread: number; main: number; batch: number }> {
  let sent = 0;
  let batchSum = 0;
  const t0 = await threadCpu();
  const m0 = process.threadCpuUsage();
  const lane = async () => {
    while (sent < tasks) {
      sent++;
      const [, size] = await pool.run(TASK);
      batchSum += size;
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, lane));
  const main = process.threadCpuUsage(m0);
  const thread = (await threadCpu()) - t0;
  return { thread: thread / tasks, main: (main.user + main.system) / tasks, batch: batchSum / tasks };
}

await round(20_000);
for (let r = 0; r < Number(values.rounds); r++) {
  const { thread, main, batch } = await round(Number(values.tasks));
  console.log(
    `round ${r + 1}: thread ${thread.toFixed(2)} µs/task, main ${main.toFixed(2)} µs/task, mean batch ${batch.toFixed(1)}, load ${loadavg()[0].toFixed(1)}`,
  );
}
await pool.close();
