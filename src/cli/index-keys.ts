import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { reindexKeys } from '../import/index.ts';
import { configuredStore } from '../runtime.ts';
import { openStorage } from '../storage/index.ts';
import { withElapsed } from './elapsed.ts';

/**
 * `quarry index-keys [--data DIR]`: indexes the retrieval keys an import left pending. An import
 * stores entities first and indexes their keys in one pass at the end; stopped in between
 * (killed, out of disk), its entities are readable by id but not found by enhance until a pass
 * runs. The next import runs one; this command runs it alone. Safe to repeat; prints a summary
 * on stderr.
 *
 * `--recompute` computes every entity's keys again from its stored document (`reindexKeys`):
 * for a store imported by an older build, whose entities lack keys this build gives (`pe:` past
 * employers and `ps:` schools, added for issue 22). Such a store answers as before without it.
 */
export function registerIndexKeys(program: Command): void {
  program
    .command('index-keys')
    .description('index the retrieval keys an interrupted import left pending (--recompute: all keys again)')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .option('--recompute', "compute every entity's keys again (a store imported by an older build)")
    .action(async (options: { data?: string; recompute?: boolean }) => {
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const storage = openStorage(configuredStore(config));
      try {
        if (options.recompute) {
          process.stderr.write("computing every entity's retrieval keys again…\n");
          const started = performance.now();
          const done = await withElapsed('re-keying…', () => reindexKeys(storage.entities));
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          process.stderr.write(
            `read ${done.scanned} entities, re-keyed ${done.rekeyed} whose keys had changed, in ${seconds} s\n`,
          );
          return;
        }
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
