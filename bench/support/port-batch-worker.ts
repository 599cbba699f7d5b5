/** `bench/port-batch.ts`: a batching thread (`serveTaskBatches`) whose tasks cost next to nothing. */
import { workerData } from 'node:worker_threads';
import { serveTaskBatches } from '../../src/threads/index.ts';

/** Rounds of arithmetic per task (~1 ns each), so that tasks queue up as enhance requests do. */
const work = Number((workerData as { work?: number } | undefined)?.work ?? 0);
let tasks = 0;
let sink = 0;
serveTaskBatches((texts: readonly string[], answerEach) => {
  answerEach((text) => {
    tasks++;
    // 'cpu': this thread's CPU so far and the tasks it answered, for the bench.
    if (text === 'cpu') {
      const { user, system } = process.threadCpuUsage();
      return [user + system, tasks];
    }
    for (let i = 0; i < work; i++) sink += Math.sqrt(i + sink) % 7;
    return [text.length + (sink > 0 ? 0 : 1), texts.length];
  });
});
