/**
 * Quarry's `WorkerPool` (src/threads/worker-pool.ts) against piscina and tinypool on the workload the
 * pool serves: single enhance requests answered on threads, many small tasks with several in
 * flight, where the pool's own cost per task is largest relative to the task. Also an echo task,
 * which measures the pool alone.
 *
 *   npm install --no-save piscina@^5.3.2 tinypool@^2.2.0   # the libraries compared, not deps
 *   npx node --expose-gc bench/worker-pool.ts [--orgs 100000] [--persons 100000] [--tasks 20000]
 *                                              [--concurrency 16] [--threads 2] [--rounds 3]
 *
 * Every pool runs the same task module (bench/support/pool-tasks.ts) on `--threads` threads; a
 * closed loop keeps `--concurrency` tasks in flight (as an HTTP server under load would). Pools
 * alternate within each round. Prints, per pool and round: tasks/s, latency p50 / p99 from
 * submission to answer, and the main thread's CPU per task (the main thread also parses HTTP,
 * so what the pool costs it matters). Figures only; never fails on timing.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { AnswerTask } from '../src/enhance/enhance-threads.ts';
import { parseEnhanceQuery } from '../src/enhance/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { WorkerPool } from '../src/threads/index.ts';
import type { PoolResult, PoolTask } from './support/pool-tasks.ts';
import { sampleQueries } from './support/queries.ts';
import { cachedDemoGraph } from './support/demo-graph.ts';

const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '100000' },
    persons: { type: 'string', default: '100000' },
    tasks: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '16' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const TASKS = Number(values.tasks);
const CONCURRENCY = Number(values.concurrency);
const THREADS = Number(values.threads);
const ROUNDS = Number(values.rounds);

interface Pool {
  run(task: PoolTask): Promise<PoolResult>;
  close(): Promise<void>;
}

const LIBRARY_WORKER = new URL('./support/pool-worker-library.ts', import.meta.url);

/** The part of piscina's and tinypool's pool classes this benchmark uses. */
interface LibraryPool {
  run(task: PoolTask): Promise<PoolResult>;
  destroy(): Promise<void>;
}
type LibraryPoolClass = new (options: Record<string, unknown>) => LibraryPool;

/** A pool class of a library that is not a dependency (installed with --no-save to compare). */
async function libraryPool(pkg: 'piscina' | 'tinypool', className: string): Promise<LibraryPoolClass> {
  const name: string = pkg; // a plain string: the type checker must not resolve the package
  try {
    const module = (await import(name)) as Record<string, LibraryPoolClass>;
    return module[className];
  } catch (error) {
    throw new Error(`${pkg} is not installed: npm install --no-save ${pkg} (${(error as Error).message})`);
  }
}

async function fromLibrary(pkg: 'piscina' | 'tinypool', className: string, options = {}): Promise<Pool> {
  const PoolClass = await libraryPool(pkg, className);
  const pool = new PoolClass({
    filename: LIBRARY_WORKER.href,
    minThreads: THREADS,
    maxThreads: THREADS,
    ...options,
  });
  return { run: (task) => pool.run(task), close: () => pool.destroy() };
}

const POOLS: Record<string, () => Promise<Pool>> = {
  WorkerPool: async () => {
    const pool = new WorkerPool<PoolTask, PoolResult>({
      size: THREADS,
      script: new URL('./support/pool-worker-ours.ts', import.meta.url),
      tasksPerWorker: 4, // as enhance/enhance-threads.ts
    });
    return { run: (task) => pool.run(task), close: () => pool.close() };
  },
  piscina: () => fromLibrary('piscina', 'Piscina'),
  'piscina (no timing)': () => fromLibrary('piscina', 'Piscina', { recordTiming: false }),
  'piscina (atomics off)': () => fromLibrary('piscina', 'Piscina', { atomics: 'disabled' }),
  tinypool: () => fromLibrary('tinypool', 'Tinypool'),
};

/** Runs `tasks` with `CONCURRENCY` in flight; returns tasks/s, latencies and main-thread CPU. */
async function measure(pool: Pool, tasks: readonly PoolTask[]) {
  const latencies = new Float64Array(tasks.length);
  let next = 0;
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      const t = performance.now();
      await pool.run(tasks[i]);
      latencies[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = (performance.now() - started) / 1000;
  const used = process.threadCpuUsage(cpu);
  latencies.sort();
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    perSecond: tasks.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    mainCpuUs: (used.user + used.system) / tasks.length,
  };
}

const dataDir = cachedDemoGraph({ organizations: Number(values.orgs), persons: Number(values.persons) }, 1);
openSqliteStorage(sqliteFileFor(dataDir)).close(); // migrations added since the graph was built
process.env.QUARRY_BENCH_POOL_STORE = sqliteFileFor(dataDir);

const enhanceTasks: PoolTask[] = sampleQueries(sqliteFileFor(dataDir), TASKS).map((query) => {
  const request = parseEnhanceQuery(query, 'get');
  return { kind: 'enhance', request, queryCtx: { ...query } } satisfies AnswerTask & { kind: 'enhance' };
});
const echoTasks: PoolTask[] = Array.from({ length: TASKS }, (_, n) => ({ kind: 'echo', n }));
const warmUp = enhanceTasks.slice(0, 1000);

const names = Object.keys(POOLS).filter((name) => !values.only || values.only.split(',').includes(name));
console.log(
  `# ${TASKS} tasks, ${CONCURRENCY} in flight, ${THREADS} threads, load ${loadavg()[0].toFixed(1)} at start`,
);
for (let round = 1; round <= ROUNDS; round++) {
  for (const name of round % 2 ? names : [...names].reverse()) {
    const pool = await POOLS[name]();
    await Promise.all(warmUp.map((task) => pool.run(task))); // vocabularies, JIT
    for (const [label, tasks] of [
      ['echo', echoTasks],
      ['enhance', enhanceTasks],
    ] as const) {
      const r = await measure(pool, tasks);
      console.log(
        `round ${round} ${label.padEnd(7)} ${name.padEnd(22)} ${r.perSecond.toFixed(0).padStart(7)} tasks/s` +
          `  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  main-thread CPU ${r.mainCpuUs.toFixed(1)} µs/task` +
          `  (load ${loadavg()[0].toFixed(1)})`,
      );
    }
    await pool.close();
  }
}
