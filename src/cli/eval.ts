import { createWriteStream, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import {
  createMatcher,
  type EvaluationMetrics,
  evaluateOutcomes,
  parseLabelledQuery,
  type QueryOutcome,
} from '../match/index.ts';
import { readEntities, writeEntities } from '../match/training/graph-loader.ts';
import { openSqliteStorage, type Storage, sqliteFileFor } from '../storage/index.ts';
import { parseUnitInterval } from './options.ts';

interface EvalOptions {
  threshold?: number;
  out?: string;
  data?: string;
  kg?: string[];
}

/** Formats metrics as the labelled lines `quarry eval` prints. */
export function formatMetrics(m: EvaluationMetrics): string {
  const f = (x: number) => x.toFixed(4);
  return [
    `queries      ${m.queries} (${m.matchable} matchable, ${m.queries - m.matchable} expected null)`,
    `threshold    ${m.threshold}`,
    `precision    ${f(m.precision)}`,
    `recall       ${f(m.recall)}`,
    `f1           ${f(m.f1)}`,
    `top1         ${f(m.top1)}`,
    `ece          ${f(m.ece)}`,
    `counts       tp=${m.truePositives} fp=${m.falsePositives} fn=${m.falseNegatives} tn=${m.trueNegatives}`,
  ].join('\n');
}

/**
 * `quarry eval QUERIES.jsonl [--threshold x] [--out RESULTS.jsonl] [--kg FILE...]`: runs every
 * labelled query through the matcher against the graph in the data directory (or, with `--kg`,
 * against those entity files loaded into a throwaway in-memory store) and prints precision,
 * recall, F1, top-1 accuracy and ECE as the bench defines them. Progress goes to stderr.
 */
export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('measure matching quality on a labelled queries file (JSON Lines, bench format)')
    .argument('<queries>', 'labelled queries: {"query": {...}, "expected": id|null} per line')
    .option(
      '--threshold <x>',
      'score at or above which a top candidate is a hit (default: the model default)',
      parseUnitInterval,
    )
    .option('--out <file>', 'write {"top", "score"} per query, in order (JSON Lines)')
    .option('--kg <files...>', 'evaluate against these entity JSON Lines files instead of the data directory')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (queriesFile: string, options: EvalOptions) => {
      const lines = readFileSync(queriesFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '');
      const labelled = lines.map((line, i) => {
        try {
          return parseLabelledQuery(line);
        } catch (error) {
          throw new Error(`${queriesFile}:${i + 1}: ${(error as Error).message}`);
        }
      });
      let storage: Storage;
      if (options.kg?.length) {
        storage = openSqliteStorage(':memory:');
        for (const file of options.kg) writeEntities(storage.entities, readEntities(file));
      } else {
        const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
        // Writable like every other command, so that pending migrations are applied; eval
        // itself only reads.
        storage = openSqliteStorage(sqliteFileFor(config.dataDir));
      }
      try {
        const matcher = createMatcher(storage.entities);
        const threshold = options.threshold ?? matcher.defaultThreshold;
        const out = options.out ? createWriteStream(options.out) : undefined;
        const outcomes: QueryOutcome[] = [];
        const started = performance.now();
        for (let i = 0; i < labelled.length; i++) {
          const [top] = matcher.match(labelled[i].query, { limit: 1 });
          const outcome = { expected: labelled[i].expected, top: top?.id ?? null, score: top?.score ?? null };
          outcomes.push(outcome);
          out?.write(`${JSON.stringify({ top: outcome.top, score: outcome.score })}\n`);
          if ((i + 1) % 1000 === 0) process.stderr.write(`eval: ${i + 1}/${labelled.length} queries\n`);
        }
        if (out)
          await new Promise<void>((resolve, reject) =>
            out.end((error?: Error | null) => (error ? reject(error) : resolve())),
          );
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(`${formatMetrics(evaluateOutcomes(outcomes, threshold))}\n`);
        process.stderr.write(`eval: ${labelled.length} queries in ${seconds.toFixed(1)} s\n`);
      } finally {
        storage.close();
      }
    });
}
