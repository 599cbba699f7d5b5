import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadDemoGraph } from '../import/index.ts';
import type { EntityType } from '../kg/index.ts';
import {
  createMatcher,
  type LabelledQuery,
  type Matcher,
  type ModelFile,
  runLabelledQueries,
  type TypeModel,
  validateModelFile,
} from '../match/index.ts';
import {
  type CalibrationSet,
  calibrateThresholds,
  DEFAULT_MARGIN,
  PRECISION_FLOORS,
} from '../match/training/calibrate-thresholds.ts';
import { calibrationForTarget } from '../match/training/calibration-ece.ts';
import { type ChoiceExample, fitChoiceModel } from '../match/training/choice.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { formatMetrics, openEvaluationStore, readLabelledQueries } from './eval.ts';
import { parseNonNegativeInt, parseUnitInterval } from './options.ts';

const DEFAULT_MODEL = new URL('../match/model.json', import.meta.url).pathname;

/**
 * `quarry calibrate QUERIES.jsonl... [--kg FILES | --data DIR] [--margin m] [--model FILE]`:
 * recalibrates the model on labelled query sets and writes into the model file, per entity
 * type: the scale and offset of the linear score that make the probabilities fit the share of
 * right answers on the sets (maximum likelihood of the right choice, `TypeModel.calibration`),
 * then the default threshold: the lowest score at which every set of that type reaches its
 * precision floor (Organization 0.97, Person 0.95) plus the margin. The sets, their hashes, the
 * rule and the resulting metrics are recorded in the model's provenance. Deterministic.
 *
 * `--demo-queries FILE...` adds labelled sets about a demo graph (`shared/bench/realistic`),
 * matched against that graph (`--demo-seed`, `--demo-organizations`, `--demo-persons`), built
 * in memory as `quarry demo-data` + `quarry import` would store it; a file mixing types is one
 * set per type.
 */
export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description('choose the default thresholds per entity type on labelled query sets')
    .argument('<queries...>', 'labelled query files (bench format), each of one entity type')
    .option('--kg <files...>', 'entity JSON Lines files to match against instead of the data directory')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .option('--margin <m>', `added to each precision floor (default ${DEFAULT_MARGIN})`, parseUnitInterval)
    .option('--model <file>', 'model file to update', DEFAULT_MODEL)
    .option('--demo-queries <files...>', 'labelled query files about the demo graph below')
    .option('--demo-seed <n>', 'seed of the demo graph of --demo-queries', parseNonNegativeInt, 42)
    .option('--demo-organizations <n>', 'its organizations', parseNonNegativeInt, 20000)
    .option('--demo-persons <n>', 'its persons', parseNonNegativeInt, 20000)
    .action(async (files: string[], options: CalibrateOptions) => {
      const fitted = validateModelFile(JSON.parse(readFileSync(options.model, 'utf8')));
      const storage = openEvaluationStore(options);
      let demo: Storage | undefined;
      try {
        const labelledSets = files.flatMap((file) => readSets(file, storage, true));
        if (options.demoQueries?.length) {
          demo = openStorage({ adapter: 'sqlite', file: ':memory:' });
          const sizes = { organizations: options.demoOrganizations, persons: options.demoPersons };
          loadDemoGraph(demo.entities, { ...sizes, seed: options.demoSeed });
          for (const file of options.demoQueries) labelledSets.push(...readSets(file, demo, false));
        }
        const model: ModelFile = { ...fitted, models: fitCalibrations(fitted, labelledSets) };
        const matchers = new Map<Storage, Matcher>();
        const matcherOf = (s: Storage) =>
          matchers.get(s) ?? matchers.set(s, createMatcher(s.entities, { model })).get(s)!;
        const sets: CalibrationSet[] = labelledSets.map((set) => ({
          name: set.name,
          type: set.type,
          outcomes: runLabelledQueries(matcherOf(set.storage), set.labelled),
        }));
        const margin = options.margin ?? DEFAULT_MARGIN;
        const result = calibrateThresholds(sets, { margin });
        const updated: ModelFile = {
          ...model,
          thresholds: { ...model.thresholds, ...result.thresholds },
          provenance: {
            ...model.provenance,
            thresholdCalibration: {
              scoreCalibration:
                'per type, scale and offset of the linear score by maximum likelihood of the right choice on the sets (namesake queries left out); when a set is then above ECE 0.025 (the promise 0.03 less a margin), the likeliest point of a grid around it (scale × 0.75–1.25, offset ± 1.5) under which every set is within 0.025',
              rule: 'per type, the lowest threshold (0.01 steps) at which every set reaches precision floor + margin',
              floors: PRECISION_FLOORS,
              margin,
              ...(demo
                ? {
                    demoGraph: {
                      seed: options.demoSeed,
                      organizations: options.demoOrganizations,
                      persons: options.demoPersons,
                    },
                  }
                : {}),
              sets: labelledSets.map((set, i) => ({
                file: set.name,
                sha256: createHash('sha256').update(readFileSync(set.file)).digest('hex'),
                type: sets[i].type,
                precision: round4(result.sets[i].metrics.precision),
                recall: round4(result.sets[i].metrics.recall),
                ece: round4(result.sets[i].metrics.ece),
              })),
              unmet: result.unmet,
            },
          },
        };
        writeFileSync(options.model, `${JSON.stringify(updated, null, 2)}\n`);
        for (const set of result.sets) process.stdout.write(`${set.name}\n${formatMetrics(set.metrics)}\n`);
        process.stderr.write(
          `calibrate: wrote ${options.model}: thresholds ${JSON.stringify(result.thresholds)}` +
            (result.unmet.length ? `; floors NOT reached for ${result.unmet.join(', ')}` : '') +
            '\n',
        );
      } finally {
        await storage.close();
        await demo?.close();
      }
    });
}

interface CalibrateOptions {
  kg?: string[];
  data?: string;
  margin?: number;
  model: string;
  demoQueries?: string[];
  demoSeed: number;
  demoOrganizations: number;
  demoPersons: number;
}

/** A labelled set of one type and the graph its queries are about. */
interface LabelledSet {
  readonly name: string;
  readonly file: string;
  readonly type: EntityType;
  readonly labelled: LabelledQuery[];
  readonly storage: Storage;
}

/**
 * The labelled sets of `file`: itself, which must hold one type (`oneType`), or one set per
 * type it holds (named `file (Type)`).
 */
function readSets(file: string, storage: Storage, oneType: boolean): LabelledSet[] {
  const labelled = readLabelledQueries(file);
  const types = [...new Set(labelled.map((q) => q.query.type))];
  if (oneType && types.length !== 1) {
    throw new InvalidArgumentError(`${file}: a calibration set must hold queries of one entity type`);
  }
  return types.map((type) => {
    const own = labelled.filter((q) => q.query.type === type);
    const name = oneType ? path.basename(file) : `${path.basename(file)} (${type})`;
    process.stderr.write(`calibrate: ${name}: ${own.length} queries\n`);
    return { name, file, type, labelled: own, storage };
  });
}

/**
 * Per type, the scale and offset of the linear score fitted on the sets of the type (maximum
 * likelihood of the right choice), or when that leaves a set above the ECE target, the likeliest
 * nearby one that keeps every set within it (`calibrationForTarget`). Namesake queries are left out:
 * their label names none of the candidates that fit it equally.
 */
function fitCalibrations(fitted: ModelFile, sets: readonly LabelledSet[]): ModelFile['models'] {
  const raw = new Map<Storage, Matcher>();
  const rawOf = (s: Storage) =>
    raw.get(s) ?? raw.set(s, createMatcher(s.entities, { model: withoutCalibration(fitted) })).get(s)!;
  const models = { ...fitted.models };
  for (const type of ['Organization', 'Person'] as const) {
    const perSet = sets
      .filter((set) => set.type === type)
      .map((set) => set.labelled.filter((q) => !q.namesakes).map((q) => choiceOf(rawOf(set.storage), q)));
    const examples = perSet.flat();
    if (examples.length === 0) continue;
    const line = fitChoiceModel(examples, ['z'], 0);
    // Bounded: a small or perfectly separated set would otherwise push the scale to
    // extremes (all right answers: the likelihood grows without bound with the scale).
    const likeliest = {
      scale: Math.min(4, Math.max(0.25, line.weights.z)),
      offset: Math.min(10, Math.max(-10, line.bias)),
    };
    const { calibration, worstEce, fittedWorstEce } = calibrationForTarget(perSet, likeliest);
    process.stderr.write(
      `calibrate: ${type}: likeliest score × ${likeliest.scale} + ${likeliest.offset} (worst set ECE ${round4(fittedWorstEce)}); ` +
        `kept score × ${calibration.scale} + ${calibration.offset} (worst set ECE ${round4(worstEce)})\n`,
    );
    models[type] = { ...fitted.models[type], calibration } satisfies TypeModel;
  }
  return models;
}

/** `model` without the recalibration of its types. */
function withoutCalibration(model: ModelFile): ModelFile {
  const models = { ...model.models };
  for (const type of ['Organization', 'Person'] as const) models[type] = { base: model.models[type].base };
  return { ...model, models };
}

/** A labelled query as a choice among its candidates' linear scores (-1: none is right). */
function choiceOf(matcher: Matcher, query: LabelledQuery): ChoiceExample {
  const candidates = matcher.match(query.query, { limit: 100 });
  return {
    candidates: candidates.map((c) => Float32Array.of(c.linear)),
    answer: query.expected === null ? -1 : candidates.findIndex((c) => c.id === query.expected),
  };
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
