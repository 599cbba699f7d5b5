import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh temporary directory, removed by the returned `remove()`. The removal retries: on a
 * loaded machine a closed store's last file (a SQLite `-wal` or `-shm` of a thread still
 * exiting) can appear while the tree is being removed, which fails a single pass with ENOTEMPTY.
 */
export function tempDir(prefix = 'quarry-test-'): { path: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    path: dir,
    remove: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}
