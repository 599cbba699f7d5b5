import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { formatMetrics } from './eval.ts';
import { fitModel } from '../match/training/fit-model.ts';
import { parseNonNegativeInt } from './options.ts';

/**
 * `quarry fit KG.jsonl... [--seed N] [--rounds N] [--out FILE]`: fits the matcher's scoring
 * model on queries generated from the given entity files and writes the model file (default
 * `src/match/model.json`) with its provenance. Reproducible: same files + seed → same file.
 */
export function registerFit(program: Command): void {
  program
    .command('fit')
    .description('fit the matching model on queries generated from entity files')
    .argument('<files...>', 'entity JSON Lines files')
    .option('--seed <n>', 'seed of the query generator and the splits', parseNonNegativeInt, 1)
    .option('--rounds <n>', 'queries generated per entity', parseNonNegativeInt, 1)
    .option('--out <file>', 'model file to write', new URL('../match/model.json', import.meta.url).pathname)
    .action((files: string[], options: { seed: number; rounds: number; out: string }) => {
      if (options.rounds < 1) throw new InvalidArgumentError('--rounds must be at least 1');
      const command = `quarry fit ${files.map((f) => f.split('/').pop()).join(' ')} --seed ${options.seed} --rounds ${options.rounds}`;
      const { model, validation } = fitModel(
        { files, seed: options.seed, rounds: options.rounds, command },
        (line) => process.stderr.write(`${line}\n`),
      );
      writeFileSync(options.out, `${JSON.stringify(model, null, 2)}\n`);
      for (const [name, metrics] of Object.entries(validation)) {
        process.stdout.write(`validation (${name})\n${formatMetrics(metrics)}\n`);
      }
      process.stderr.write(`fit: wrote ${options.out} (default threshold ${model.threshold})\n`);
    });
}
