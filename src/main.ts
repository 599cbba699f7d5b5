/**
 * Process entry: `node src/main.ts <command>` (what `npm start`, `npm run quarry` and the
 * `quarry` bin run). The composition root is `runtime.ts`; this file only dispatches the CLI.
 */
import { runCli } from './cli/index.ts';

try {
  await runCli(process.argv);
} catch (error) {
  process.stderr.write(`quarry: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
