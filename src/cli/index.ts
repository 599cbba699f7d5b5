import { Command } from 'commander';
import { registerBulk } from './bulk.ts';
import { registerDemoData } from './demo-data.ts';
import { registerImport } from './import.ts';
import { registerIndexKeys } from './index-keys.ts';
import { registerCalibrate } from './calibrate.ts';
import { registerEval } from './eval.ts';
import { registerFit } from './fit.ts';
import { registerExtractJob } from './extract-job.ts';
import { registerMaintenance } from './maintenance.ts';
import { registerMigrate } from './migrate.ts';
import { registerServe } from './serve.ts';
import { registerToken } from './token.ts';
import { registerWorker } from './worker.ts';

/** Builds the `quarry` command line. Every command honours `QUARRY_DATA_DIR`. */
export function buildProgram(): Command {
  const program = new Command('quarry')
    .description('Quarry: self-hostable knowledge graph service')
    .showHelpAfterError()
    // Help asked for (`--help`) goes to stdout, as every CLI does; errors and their hints to stderr.
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
  registerServe(program);
  registerWorker(program);
  registerBulk(program);
  registerToken(program);
  registerImport(program);
  registerIndexKeys(program);
  registerDemoData(program);
  registerEval(program);
  registerFit(program);
  registerCalibrate(program);
  registerExtractJob(program);
  registerMaintenance(program);
  registerMigrate(program);
  return program;
}

/** Runs the CLI with `argv` (as in `process.argv`). */
export async function runCli(argv: readonly string[]): Promise<void> {
  await buildProgram().parseAsync([...argv]);
}
