#!/usr/bin/env -S node --expose-gc
// The `quarry` executable. Quarry runs its TypeScript sources directly on Node >= 24 (type
// stripping). When started by an older system Node, re-run with the Node 24 binary that the
// `node` devDependency installs, so `npx quarry` works on machines whose Node is 20. Both run
// with `--expose-gc`, which long-lived threads need to trim their heaps (src/heap-trim.ts).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src', 'main.ts');
const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  process.argv.splice(1, 1, entry);
  await import(entry);
} else {
  const local = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(local)) {
    process.stderr.write('quarry needs Node >= 24: run `npm ci` in the Quarry checkout first\n');
    process.exit(1);
  }
  const result = spawnSync(local, ['--expose-gc', entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
