import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { HeapTrimmer, SERVER_HEAP_TRIM } from '../threads/index.ts';
import { createLogger } from '../logging.ts';
import { createRuntime } from '../runtime.ts';

/**
 * `quarry worker [--data DIR]`: works on bulk enhance and bulk extract jobs without serving HTTP,
 * until SIGINT/SIGTERM. Run any number beside `quarry serve` processes on one PostgreSQL
 * database (`QUARRY_DATABASE_URL`): jobs submitted to any server are worked on by all of them.
 * On the embedded store it takes the data directory like `serve` does (one process at a time).
 */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('work on bulk jobs without serving HTTP (several processes: QUARRY_DATABASE_URL)')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (options: { data?: string }) => {
      const config = loadConfig(process.env, options.data !== undefined ? { dataDir: options.data } : {});
      const logger = createLogger({ level: config.logLevel });
      // No single enhance requests to answer here: no threads for them.
      const runtime = await createRuntime({ ...config, enhanceThreads: 0 }, logger);
      await runtime.work();
      logger.info(
        { store: config.databaseUrl ? 'postgres' : config.dataDir, threads: config.workerThreads },
        'quarry worker running',
      );
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
    });
}
