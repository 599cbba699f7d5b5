/**
 * Process entry: `node src/main.ts <command>` (what `npm start`, `npm run quarry` and the
 * `quarry` bin run). The composition root is `runtime.ts`; this file only dispatches the CLI.
 */
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

// Node's compile cache, for this process and every worker thread it starts: each thread loads
// and strips the types of some forty modules, ~100-200 ms of CPU without the cache and ~25 ms
// with it (measured on export threads, a tenth of a 200,000-row CSV download). Threads inherit
// the variable, not `module.enableCompileCache()`, so the variable is what is set; an operator's
// own `NODE_COMPILE_CACHE` is kept and `NODE_DISABLE_COMPILE_CACHE` still turns the cache off.
process.env.NODE_COMPILE_CACHE ||= path.join(os.tmpdir(), 'node-compile-cache');
module.enableCompileCache(process.env.NODE_COMPILE_CACHE);

// Imported after the cache is on, so that the CLI's own modules use it too.
const { runCli } = await import('./cli/index.ts');

try {
  await runCli(process.argv);
} catch (error) {
  process.stderr.write(`quarry: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
