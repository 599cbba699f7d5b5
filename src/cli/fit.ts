import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { formatMetrics, readLabelledQueries } from './eval.ts';
import { fitModel } from '../match/training/fit-model.ts';
import { openStorage } from '../storage/index.ts';
import { parseNonNegativeInt } from './options.ts';

/**
 * `quarry fit KG.jsonl... [--seed N] [--rounds N] [--out FILE]`: fits the matcher's scoring
 * model on queries generated from the given entity files and writes the model file (default
 * `src/match/model.json`) with its provenance. Reproducible: same files + seed → same file.
 */
interface FitOptions {
  seed: number;
  rounds: number;
  out: string;
  demoOrganizations: number;
  demoPersons: number;
  demoSeed: number;
  demoQueries?: string[];
  demoQueryRepeats: number;
}

export function registerFit(program: Command): void {
  program
    .command('fit')
    .description('fit the matching model on queries generated from entity files')
    .argument('<files...>', 'entity JSON Lines files')
    .option('--seed <n>', 'seed of the query generator and the splits', parseNonNegativeInt, 1)
    .option('--rounds <n>', 'queries generated per entity', parseNonNegativeInt, 1)
    .option('--out <file>', 'model file to write', new URL('../match/model.json', import.meta.url).pathname)
    .option(
      '--demo-organizations <n>',
      'also train on this many synthetic demo organizations',
      parseNonNegativeInt,
      0,
    )
    .option('--demo-persons <n>', 'also train on this many synthetic demo persons', parseNonNegativeInt, 0)
    .option('--demo-seed <n>', 'seed of the synthetic demo graph', parseNonNegativeInt, 1)
    .option(
      '--demo-queries <files...>',
      'also train on these labelled queries about the demo graph (bench/realistic-queries.ts, same seed and sizes)',
    )
    .option(
      '--demo-query-repeats <n>',
      'times each --demo-queries query is trained on',
      parseNonNegativeInt,
      1,
    )
    .action((files: string[], options: FitOptions) => {
      if (options.rounds < 1) throw new InvalidArgumentError('--rounds must be at least 1');
      if (options.demoQueries?.length && !withDemoGraph(options))
        throw new InvalidArgumentError(
          '--demo-queries needs the demo graph they are about (--demo-persons, --demo-organizations)',
        );
      const withDemo = withDemoGraph(options);
      const demo = withDemo
        ? { organizations: options.demoOrganizations, persons: options.demoPersons, seed: options.demoSeed }
        : undefined;
      const command =
        `quarry fit ${files.map((f) => f.split('/').pop()).join(' ')} --seed ${options.seed} --rounds ${options.rounds}` +
        (demo
          ? ` --demo-organizations ${demo.organizations} --demo-persons ${demo.persons} --demo-seed ${demo.seed}`
          : '') +
        (options.demoQueries?.length
          ? ` --demo-queries ${options.demoQueries.map((f) => f.split('/').pop()).join(' ')} --demo-query-repeats ${options.demoQueryRepeats}`
          : '');
      const { model, validation } = fitModel(
        {
          files,
          seed: options.seed,
          rounds: options.rounds,
          command,
          ...(demo ? { demo } : {}),
          ...(options.demoQueries?.length
            ? {
                demoQueries: options.demoQueries.flatMap((file) => readLabelledQueries(file)),
                demoQueryRepeats: options.demoQueryRepeats,
              }
            : {}),
          scratchStore: () => openStorage({ adapter: 'sqlite', file: ':memory:' }),
        },
        (line) => process.stderr.write(`${line}\n`),
      );
      writeFileSync(options.out, `${JSON.stringify(model, null, 2)}\n`);
      for (const [name, metrics] of Object.entries(validation)) {
        process.stdout.write(`validation (${name})\n${formatMetrics(metrics)}\n`);
      }
      process.stderr.write(`fit: wrote ${options.out} (default threshold ${model.threshold})\n`);
    });
}

function withDemoGraph(options: FitOptions): boolean {
  return options.demoOrganizations + options.demoPersons > 0;
}
