import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logging.ts';
import { createRuntime } from '../runtime.ts';
import { runUntilStopped } from './run-until-stopped.ts';

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
      runUntilStopped(runtime, logger);
    });
}
