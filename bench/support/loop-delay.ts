/**
 * Preloaded into a benchmark's server (`node --import bench/support/loop-delay.ts`): measures the
 * delay of the server's event loop, which no figure from outside shows. On SIGUSR2 it writes
 * the delays seen since the previous signal (p50, p99, max in ms) as JSON to the file named by
 * `QUARRY_BENCH_LOOP_FILE`, and starts again. Benchmarks only: the product never loads it.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.QUARRY_BENCH_LOOP_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const figures = {
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      samples: histogram.count,
    };
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(figures));
    fs.renameSync(`${file}.tmp`, file);
    histogram.reset();
  });
}
