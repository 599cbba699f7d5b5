import type { StoreLocator } from './locator.ts';
import type { Storage } from './ports.ts';
import { openSqliteStorage, startWalCheckpointer } from './sqlite/index.ts';

/** How a thread opens its connection to a store. */
export interface OpenStorageOptions {
  /** Never writes and applies no migrations (reading threads, read-only tools). */
  readonly readOnly?: boolean;
  /** Page cache of this connection in MiB, where the adapter has one (default 64). */
  readonly cacheMiB?: number;
}

/** Opens the store at `locator` with every port, over a connection of this thread's own. */
export function openStorage(locator: StoreLocator, options: OpenStorageOptions = {}): Storage {
  switch (locator.adapter) {
    case 'sqlite':
      return openSqliteStorage(locator.file, options);
    case 'postgres':
      throw new Error('the PostgreSQL store is not available in this build');
  }
}

/** Background upkeep of a store that a serving process runs beside it; `stop()` ends it. */
export interface StoreMaintenance {
  stop(): Promise<void>;
}

/**
 * Starts the background upkeep the adapter wants while a process writes a lot (the embedded
 * store: WAL checkpoints from a thread of their own). `onFailure` is told once if it stops by
 * itself; the store stays correct without it.
 */
export function startStoreMaintenance(
  locator: StoreLocator,
  options: { readonly onFailure?: (error: Error) => void } = {},
): StoreMaintenance {
  if (locator.adapter === 'sqlite' && locator.file !== ':memory:') {
    return startWalCheckpointer(locator.file, options);
  }
  return { stop: async () => {} };
}
