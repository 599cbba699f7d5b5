import path from 'node:path';
import type { Storage } from '../../src/storage/index.ts';
import { openSqliteStorage } from '../../src/storage/sqlite/index.ts';
import { tempDir } from './temp-dir.ts';

/** A fresh embedded store in a temporary directory; `cleanup()` closes and removes it. */
export async function openTempSqliteStorage(): Promise<{ storage: Storage; cleanup(): Promise<void> }> {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  return {
    storage,
    cleanup: async () => {
      storage.close();
      dir.remove();
    },
  };
}
