/**
 * The lock of a data directory: one process at a time runs the service on an embedded store.
 * Two would both take the running jobs, fetch pages twice and fight over the same rows.
 *
 * The lock is SQLite's own exclusive lock on a small file beside the store (`quarry.lock`),
 * held by an open transaction for as long as the process runs: the operating system releases it
 * when the process ends, however it ends (SIGKILL included), so a crash never leaves a stale
 * lock. The file also says which process holds it. Commands that only read or add a token
 * (`quarry token create`, `import`, …) do not take it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** File name of the lock inside the data directory. */
export const LOCK_FILE_NAME = 'quarry.lock';

/** Another process holds the data directory. */
export class DataDirectoryLockedError extends Error {
  constructor(dataDir: string, holder: string | undefined) {
    super(
      `another Quarry process${holder ? ` (${holder})` : ''} is already running on ${dataDir}: ` +
        'one process at a time may serve an embedded store. Stop it, or give this one another ' +
        'QUARRY_DATA_DIR (several processes share one store through QUARRY_DATABASE_URL)',
    );
  }
}

/** A held lock; `release()` lets it go (idempotent). */
export interface ProcessLock {
  release(): void;
}

/** Takes the lock of `dataDir` or throws `DataDirectoryLockedError` at once. */
export function lockDataDirectory(dataDir: string): ProcessLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const holderFile = `${file}.holder`;
  const db = new DatabaseSync(file, { timeout: 0 });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS lock (x)');
    // A write takes the file's exclusive lock; EXCLUSIVE locking mode keeps it after.
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (/locked|busy/i.test((error as Error).message)) {
      let holder: string | undefined;
      try {
        holder = fs.readFileSync(holderFile, 'utf8').trim() || undefined;
      } catch {
        // No note: the message names no process.
      }
      throw new DataDirectoryLockedError(dataDir, holder);
    }
    throw error;
  }
  // Who holds it, for the message a second process prints.
  fs.writeFileSync(holderFile, `pid ${process.pid} on ${os.hostname()}\n`);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}
