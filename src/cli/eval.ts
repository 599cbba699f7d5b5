import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import type { EntityType } from '../kg/index.ts';
import {
  createMatcher,
  type EvaluationMetrics,
  evaluateKinds,
  evaluateOutcomes,
  type KindReport,
  type LabelledQuery,
  type Matcher,
  NAMESAKE_BOUNDS,
  parseLabelledQuery,
  type QueryOutcome,
  runLabelledQueries,
} from '../match/index.ts';
import { readEntities, writeEntities } from '../match/training/graph-loader.ts';
import { configuredStore } from '../runtime.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { parseUnitInterval } from './options.ts';

interface EvalOptions {
  threshold?: number;
  out?: string;
  data?: string;
  kg?: string[];
}

/** Formats metrics as the labelled lines `quarry eval` prints. */
export function formatMetrics(m: EvaluationMetrics, thresholdLabel = String(m.threshold)): string {
  const f = (x: number) => x.toFixed(4);
  return [
    `queries      ${m.queries} (${m.matchable} matchable, ${m.queries - m.matchable} expected null)`,
    `threshold    ${thresholdLabel}`,
    `precision    ${f(m.precision)}`,
    `recall       ${f(m.recall)}`,
    `f1           ${f(m.f1)}`,
    `top1         ${f(m.top1)}`,
    `ece          ${f(m.ece)}`,
    ...(m.eceNamesakesCounted !== m.ece ? [`ece-namesakes-counted ${f(m.eceNamesakesCounted)}`] : []),
    `counts       tp=${m.truePositives} fp=${m.falsePositives} fn=${m.falseNegatives} tn=${m.trueNegatives}`,
  ].join('\n');
}

/**
 * One line per kind of query (`meta.kinds`): how many were answered right (the expected entity
 * is the top hit; no hit when none is expected; namesakes' scores within their bounds), then the
 * kind's precision, recall and ECE, or for namesakes the largest sum and single score.
 */
export function formatKinds(reports: readonly KindReport[]): string {
  const width = Math.max(4, ...reports.map((r) => r.kind.length));
  const f = (x: number) => x.toFixed(4);
  const lines = reports.map((r) => {
    const head = `  ${r.kind.padEnd(width)} ${String(r.queries).padStart(5)}  right ${f(r.right / r.queries)}`;
    if (r.namesakes) {
      const n = r.namesakes;
      return `${head}  namesakes' sum max ${f(n.maxSum)} mean ${f(n.meanSum)} (≤ ${NAMESAKE_BOUNDS.sum}), top max ${f(n.maxTop)} (≤ ${NAMESAKE_BOUNDS.top})`;
    }
    const m = r.metrics!;
    return `${head}  precision ${f(m.precision)}  recall ${f(m.recall)}  ece ${f(m.ece)}`;
  });
  return ['kinds', ...lines].join('\n');
}

/**
 * The digest of every answer (the lines `--out` writes): two runs, or two machines, that print
 * the same digest gave the same top candidate and the same score to every query; when they
 * differ, `--out` on both shows which queries.
 */
function outcomesLine(lines: readonly string[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line);
  return `outcomes     sha256 ${hash.digest('hex').slice(0, 16)} (of the ${lines.length} --out lines)`;
}

/** Reads a labelled queries file (bench format); errors name the file and line. */
export function readLabelledQueries(file: string): LabelledQuery[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, number }) => {
      try {
        return parseLabelledQuery(line);
      } catch (error) {
        throw new Error(`${file}:${number}: ${(error as Error).message}`);
      }
    });
}

/**
 * The graph to evaluate against: the data directory's store, or (with `kg`) the given entity
 * files loaded into a throwaway in-memory store.
 */
export function openEvaluationStore(options: { data?: string; kg?: string[] }): Storage {
  if (options.kg?.length) {
    const storage = openStorage({ adapter: 'sqlite', file: ':memory:' });
    for (const file of options.kg) writeEntities(storage.entities, readEntities(file));
    return storage;
  }
  const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
  // Writable like every other command, so that pending migrations are applied; eval only reads.
  return openStorage(configuredStore(config));
}

/** Metrics of `outcomes` per entity type, each at its threshold (`threshold` overrides all). */
export function evaluateByType(
  labelled: readonly LabelledQuery[],
  outcomes: readonly QueryOutcome[],
  matcher: Pick<Matcher, 'defaultThresholdFor'>,
  threshold?: number,
): Map<EntityType, EvaluationMetrics> {
  const byType = new Map<EntityType, QueryOutcome[]>();
  labelled.forEach((q, i) => {
    const list = byType.get(q.query.type) ?? [];
    list.push(outcomes[i]);
    byType.set(q.query.type, list);
  });
  return new Map(
    [...byType].map(([type, list]) => [
      type,
      evaluateOutcomes(list, threshold ?? matcher.defaultThresholdFor(type)),
    ]),
  );
}

/**
 * `quarry eval QUERIES.jsonl [--threshold x] [--out RESULTS.jsonl] [--kg FILE...]`: runs every
 * labelled query through the matcher against the graph in the data directory (or, with `--kg`,
 * against those entity files loaded into a throwaway in-memory store) and prints precision,
 * recall, F1, top-1 accuracy and ECE as the bench defines them, at the default threshold of the
 * queries' type (one block per type when a file mixes them). Progress goes to stderr.
 */
export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('measure matching quality on a labelled queries file (JSON Lines, bench format)')
    .argument('<queries>', 'labelled queries: {"query": {...}, "expected": id|null} per line')
    .option(
      '--threshold <x>',
      'score at or above which a top candidate is a hit (default: the default of the query type)',
      parseUnitInterval,
    )
    .option('--out <file>', 'write {"top", "score"} per query, in order (JSON Lines)')
    .option('--kg <files...>', 'evaluate against these entity JSON Lines files instead of the data directory')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (queriesFile: string, options: EvalOptions) => {
      const labelled = readLabelledQueries(queriesFile);
      const storage = openEvaluationStore(options);
      try {
        const matcher = createMatcher(storage.entities);
        const started = performance.now();
        const outcomes = runLabelledQueries(matcher, labelled, (done) =>
          process.stderr.write(`eval: ${done}/${labelled.length} queries\n`),
        );
        const lines = outcomes.map((o) => `${JSON.stringify({ top: o.top, score: o.score })}\n`);
        if (options.out) {
          const out = createWriteStream(options.out);
          for (const line of lines) out.write(line);
          await new Promise<void>((resolve, reject) =>
            out.end((error?: Error | null) => (error ? reject(error) : resolve())),
          );
        }
        const seconds = (performance.now() - started) / 1000;
        const byType = evaluateByType(labelled, outcomes, matcher, options.threshold);
        if (byType.size > 1) {
          // A file mixing types: all queries together, each at its type's threshold, then per type.
          const own = outcomes.map((o, i) => ({
            ...o,
            threshold: options.threshold ?? matcher.defaultThresholdFor(labelled[i].query.type),
          }));
          const label =
            options.threshold !== undefined
              ? String(options.threshold)
              : [...byType.keys()].map((type) => `${type} ${matcher.defaultThresholdFor(type)}`).join(', ');
          process.stdout.write(`all\n${formatMetrics(evaluateOutcomes(own, 0), label)}\n`);
          for (const [type, metrics] of byType) process.stdout.write(`${type}\n${formatMetrics(metrics)}\n`);
        } else {
          for (const metrics of byType.values()) process.stdout.write(`${formatMetrics(metrics)}\n`);
        }
        if (labelled.some((q) => q.kinds?.length)) {
          const thresholdOf = (q: LabelledQuery) =>
            options.threshold ?? matcher.defaultThresholdFor(q.query.type);
          process.stdout.write(`${formatKinds(evaluateKinds(labelled, outcomes, thresholdOf))}\n`);
        }
        process.stdout.write(`${outcomesLine(lines)}\n`);
        process.stderr.write(`eval: ${labelled.length} queries in ${seconds.toFixed(1)} s\n`);
      } finally {
        await storage.close();
      }
    });
}
