import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { reindexKeys } from '../import/index.ts';
import { configuredStore } from '../runtime.ts';
import { type EntityStore, openStorage } from '../storage/index.ts';
import { secondsSince, withElapsed } from './elapsed.ts';

/**
 * `quarry index-keys [--data DIR]`: indexes the retrieval keys an import left pending. An import
 * stores entities first and indexes their keys in one pass at the end; stopped in between
 * (killed, out of disk), its entities are readable by id but not found by enhance until a pass
 * runs. The next import runs one; this command runs it alone. Safe to repeat; prints a summary
 * on stderr.
 *
 * `--recompute` computes every entity's keys and profile again from its stored document
 * (`reindexKeys`): for a store imported by an older build, whose entities lack keys this build
 * gives (`pe:` past employers and `ps:` schools, added for issue 22) or have an older profile
 * (past titles in `t`, before `tp`). Such a store answers as before without it.
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
          await recomputeKeys(storage.entities);
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

/** `index-keys --recompute`: every entity's keys computed again, with a progress bar (stderr). */
async function recomputeKeys(store: EntityStore): Promise<void> {
  process.stderr.write("computing every entity's retrieval keys again…\n");
  const counts = store.counts();
  const total = counts.organizations + counts.persons;
  const bar = new cliProgress.SingleBar(
    {
      format: 're-keying [{bar}] {percentage}% | {value}/{total} entities | ETA {eta}s{phase}',
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { phase: '' });
  const started = performance.now();
  let indexing: NodeJS.Timeout | undefined;
  try {
    const done = await reindexKeys(store, {
      onProgress: (scanned) => bar.update(Math.min(scanned, total)),
      // The rewritten entities' keys pass has no progress of its own: the bar says it runs.
      onIndexing: () => {
        const since = performance.now();
        const show = () => bar.update({ phase: ` | indexing retrieval keys… ${secondsSince(since)} s` });
        show();
        indexing = setInterval(show, 1000);
      },
    });
    bar.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `read ${done.scanned} entities, re-keyed ${done.rekeyed} whose keys or profile had changed, in ${seconds} s\n`,
    );
  } finally {
    bar.stop();
    clearInterval(indexing);
  }
}
