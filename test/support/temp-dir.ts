import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temporary directory, removed by the returned `remove()`. */
export function tempDir(prefix = 'quarry-test-'): { path: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { path: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
