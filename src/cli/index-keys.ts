import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { configuredStore } from '../runtime.ts';
import { openStorage } from '../storage/index.ts';
import { withElapsed } from './elapsed.ts';

/**
 * `quarry index-keys [--data DIR]`: indexes the retrieval keys an import left pending. An import
 * stores entities first and indexes their keys in one pass at the end; stopped in between
 * (killed, out of disk), its entities are readable by id but not found by enhance until a pass
 * runs. The next import runs one; this command runs it alone. Safe to repeat; prints a summary
 * on stderr.
 */
export function registerIndexKeys(program: Command): void {
  program
    .command('index-keys')
    .description('index the retrieval keys an interrupted import left pending')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (options: { data?: string }) => {
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const storage = openStorage(configuredStore(config));
      try {
        const pending = storage.entities.pendingKeyCount();
        if (pending === 0) {
          process.stderr.write('no entity waits for its retrieval keys: nothing to index\n');
          return;
        }
        // One pass (minutes for tens of millions of keys): say what runs before it, and on a
        // terminal for how long it has run.
        process.stderr.write(`indexing the retrieval keys of ${pending} entities…\n`);
        const started = performance.now();
        const indexed = await withElapsed('indexing…', () => storage.entities.indexPendingKeysOffThread());
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stderr.write(`indexed the retrieval keys of ${indexed} entities in ${seconds} s\n`);
      } finally {
        await storage.close();
      }
    });
}
