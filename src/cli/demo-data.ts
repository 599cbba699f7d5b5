import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { importEntities } from '../import/index.ts';
import { DEFAULT_DEMO_SEED, DEFAULT_DEMO_SIZES, demoRecords, writeDemoGraph } from '../kg/index.ts';
import { openServices } from '../runtime.ts';
import { parseNonNegativeInt } from './options.ts';

interface DemoDataCliOptions {
  organizations: number;
  persons: number;
  seed: number;
  out?: string;
  import?: boolean;
  data?: string;
}

function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('must be an integer');
  return n;
}

/** The demo graph as a byte stream of JSON Lines, generated lazily. */
function demoStream(options: { organizations: number; persons: number; seed: number }): Readable {
  return Readable.from(
    (function* () {
      let buffer = '';
      for (const record of demoRecords(options)) {
        buffer += `${JSON.stringify(record)}\n`;
        if (buffer.length >= 1 << 20) {
          yield Buffer.from(buffer, 'utf8');
          buffer = '';
        }
      }
      if (buffer.length > 0) yield Buffer.from(buffer, 'utf8');
    })(),
  );
}

/**
 * `quarry demo-data [--organizations N] [--persons N] [--seed S] [--out FILE | --import]`:
 * writes the synthetic demo graph as JSON Lines (stdout by default, or FILE), or imports it into
 * the store. The same seed and sizes always give the same bytes.
 */
export function registerDemoData(program: Command): void {
  program
    .command('demo-data')
    .description('generate the synthetic demo knowledge graph (deterministic for a seed)')
    .option(
      '--organizations <n>',
      'number of organizations',
      parseNonNegativeInt,
      DEFAULT_DEMO_SIZES.organizations,
    )
    .option('--persons <n>', 'number of persons', parseNonNegativeInt, DEFAULT_DEMO_SIZES.persons)
    .option('--seed <s>', 'seed of the generator', parseSeed, DEFAULT_DEMO_SEED)
    .option('--out <file>', 'write JSON Lines to FILE (default: stdout)')
    .option('--import', 'import into the store instead of writing JSON Lines')
    .option('--data <dir>', 'data directory for --import (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (options: DemoDataCliOptions) => {
      if (options.out !== undefined && options.import) {
        throw new InvalidArgumentError('--out and --import are mutually exclusive');
      }
      const sizes = { organizations: options.organizations, persons: options.persons, seed: options.seed };
      if (options.import) {
        const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
        const { storage } = openServices(config);
        try {
          const summary = await importEntities(storage.entities, demoStream(sizes), {
            fileName: 'demo-data.jsonl',
          });
          process.stderr.write(
            `demo graph (seed ${sizes.seed}): ${summary.created} entities created, ${summary.updated} updated, ` +
              `${summary.unchanged} unchanged from ${summary.linesRead} statements ` +
              `(${(summary.elapsedMs / 1000).toFixed(1)} s, ${Math.round(summary.entitiesPerSecond)} entities/s)\n`,
          );
        } finally {
          await storage.close();
        }
        return;
      }
      const out = options.out !== undefined ? fs.createWriteStream(options.out) : process.stdout;
      const lines = await writeDemoGraph(out, sizes);
      if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
      process.stderr.write(
        `demo graph (seed ${sizes.seed}): ${sizes.organizations} organizations, ${sizes.persons} persons, ${lines} lines` +
          `${options.out !== undefined ? ` written to ${options.out}` : ''}\n`,
      );
    });
}
