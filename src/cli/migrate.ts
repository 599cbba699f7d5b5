import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { configuredStore } from '../runtime.ts';
import { migrateStore } from '../storage/index.ts';

/**
 * `quarry migrate [--data DIR]`: creates or upgrades the schema of the configured store — the
 * PostgreSQL database of `QUARRY_DATABASE_URL`, else the embedded store in the data directory —
 * and says which migrations it applied. Safe to repeat and to run while servers run (one
 * migrating process at a time). A store migrated by a newer Quarry is refused, unchanged.
 * Servers and workers apply missing migrations themselves when they start; this command lets an
 * operator do it first, before rolling out a new version.
 */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('create or upgrade the schema of the store (QUARRY_DATABASE_URL, else the data directory)')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action((options: { data?: string }) => {
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const store = configuredStore(config);
      const where = store.adapter === 'postgres' ? 'the PostgreSQL database' : store.file;
      const applied = migrateStore(store);
      process.stderr.write(
        applied.length === 0
          ? `${where} is up to date\n`
          : `applied ${applied.length} migration${applied.length > 1 ? 's' : ''} to ${where}: ${applied.join(', ')}\n`,
      );
    });
}
