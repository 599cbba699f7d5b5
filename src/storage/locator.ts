import { sqliteFileFor } from './sqlite/index.ts';

/**
 * Where a store lives, as plain data. A locator crosses to worker threads in `workerData` and
 * each thread opens its own connection with `openStorage(locator, …)`: no service or thread
 * needs to know which adapter it talks to.
 */
export type StoreLocator =
  /**
   * The embedded store: a SQLite file (`':memory:'` for a throwaway one); its reading threads
   * map up to `mmapMiB` of it into memory (`SqliteOpenOptions.mmapMiB`, default 0: off).
   */
  | { readonly adapter: 'sqlite'; readonly file: string; readonly mmapMiB?: number }
  /** A PostgreSQL database shared by every process of a deployment (`postgres://…`). */
  | { readonly adapter: 'postgres'; readonly url: string };

/**
 * The store of a deployment: the PostgreSQL database at `databaseUrl` when given, else the
 * embedded store in `dataDir`.
 */
export function storeLocator(options: {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** The embedded store's memory map of its reading threads (MiB; `Config.sqliteMmapMiB`). */
  readonly sqliteMmapMiB?: number;
}): StoreLocator {
  if (options.databaseUrl) return { adapter: 'postgres', url: options.databaseUrl };
  const file = sqliteFileFor(options.dataDir);
  return options.sqliteMmapMiB
    ? { adapter: 'sqlite', file, mmapMiB: options.sqliteMmapMiB }
    : { adapter: 'sqlite', file };
}
