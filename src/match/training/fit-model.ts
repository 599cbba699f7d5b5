/**
 * Fitting the scoring model on training queries generated from a graph: hold out ~8% of the
 * entities (their queries expect no match), generate noisy queries, drop the undecidable ones
 * (another entity fits at least as well on every query field), retrieve and compare candidates
 * exactly as the matcher does, fit the base and final logistic models on 80% of the queries, and
 * choose the default threshold (F2-optimal) and report calibration on the other 20%.
 * Same inputs + seed → the same model, byte for byte.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { demoRecords, type Entity, type EntityType } from '../../kg/index.ts';
import {
  bestThreshold,
  type EvaluationMetrics,
  evaluateOutcomes,
  type LabelledQuery,
  type QueryOutcome,
} from '../evaluation.ts';
import {
  type FeatureVector,
  modelFeatureNames,
  ORGANIZATION_FEATURES,
  PERSON_FEATURES,
} from '../features.ts';
import { candidateFeatures, collectCandidates, withQueryOrganizations } from '../matcher.ts';
import { choiceProbabilities, type LogisticModel, type ModelFile, type TypeModel } from '../model.ts';
import { indexEntity, type MatchProfile } from '../profile.ts';
import { type AnalyzedQuery, analyzeQuery } from '../query-analysis.ts';
import { VocabularyCache } from '../vocabularies.ts';
import { readEntities, writeEntities } from './graph-loader.ts';
import { type ChoiceExample, fitChoiceModel } from './choice.ts';
import { featureArray } from './logistic.ts';
import { generateQuery, rememberRanges } from './query-generator.ts';
import type { ScratchEntityStore } from './scratch-store.ts';
import { Random, stableFraction } from '../../random.ts';

export interface FitInputs {
  /** Entity JSON Lines files (the training graph). */
  readonly files: readonly string[];
  readonly seed: number;
  /** Queries generated per entity (default 1). */
  readonly rounds?: number;
  /** Share of entities held out of the index (default 0.08). */
  readonly holdout?: number;
  /**
   * Queries generated per held-out entity and round (default 5): with 8% held out this makes
   * about 30% of the queries expect no match, as in the bench's query files.
   */
  readonly nullRepeats?: number;
  /** The command line to record in the provenance. */
  readonly command?: string;
  /**
   * Also train on a seeded synthetic demo graph (`kg/demo-data.ts`): the only training data with
   * employers and phone numbers, so their weights are fitted rather than set by hand.
   */
  readonly demo?: { readonly organizations: number; readonly persons: number; readonly seed: number };
  /**
   * Labelled queries about the demo graph above, written the way people type them
   * (`bench/realistic-queries.ts` against the same seed and sizes), trained on besides the
   * generated ones: the generator's noise is the bench sets' kinds, these are the shapes of
   * everyday queries. Each is asked `demoQueryRepeats` times (default 1). A query about an
   * entity held out of the training index expects no match; namesake queries (nothing tells
   * their entities apart) are left out: the choice model splits equal scores by itself.
   */
  readonly demoQueries?: readonly LabelledQuery[];
  readonly demoQueryRepeats?: number;
  /**
   * Opens an empty, throwaway entity store to index the training graph in (the caller picks the
   * adapter: `match/` opens no storage of its own); closed when the examples are built.
   */
  readonly scratchStore: () => { readonly entities: ScratchEntityStore; close(): void };
}

export interface FitResult {
  readonly model: ModelFile;
  /** Validation metrics per type and overall at the chosen threshold. */
  readonly validation: Readonly<Record<string, EvaluationMetrics>>;
}

interface Example {
  readonly type: EntityType;
  readonly validation: boolean;
  readonly expected: string | null;
  /** Candidates with their feature values in the order of `featureNamesOf(type)`. */
  readonly candidates: readonly { id: string; features: Float32Array }[];
}

const FEATURE_NAMES: Readonly<Record<EntityType, readonly string[]>> = {
  Organization: modelFeatureNames(ORGANIZATION_FEATURES),
  Person: modelFeatureNames(PERSON_FEATURES),
};

function arrayLogit(model: LogisticModel, names: readonly string[], values: Float32Array): number {
  let z = model.bias;
  for (let i = 0; i < names.length; i++) if (values[i] !== 0) z += (model.weights[names[i]] ?? 0) * values[i];
  return z;
}

const HOLDOUT_SALT = 'quarry-fit-holdout';

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** How well a candidate fits each query field (for the "undecidable query" rule). */
function fieldFits(query: AnalyzedQuery, f: FeatureVector, profile: MatchProfile): number[] {
  const fits: number[] = [];
  const missing = Number.POSITIVE_INFINITY;
  if (query.names.length)
    fits.push(
      Math.max(
        f.acronymMatch ?? 0,
        0.35 * (f.nameCoverQuery + f.nameCoverCandidate) +
          0.3 * f.nameJaroWinkler +
          0.3 * ((f.middleNameMatch ?? 0) - (f.middleNameConflict ?? 0)),
      ),
    );
  if (query.urls.length) fits.push(Math.max(f.urlHostMatch ?? 0, f.urlDomainMatch ?? 0));
  if (query.emails.length)
    fits.push(profile.e?.length ? Math.max(f.emailExact ?? 0, f.emailSimilarity ?? 0) : missing);
  if (query.location) {
    fits.push(
      profile.k === 'O'
        ? (f.countryMatch ?? 0) +
            (f.regionMatch ?? 0) +
            (f.locationTokensMatch ?? 0) -
            (f.countryConflict ?? 0)
        : profile.ci?.length || profile.ad?.length
          ? Math.max(f.locationCover ?? 0, f.postcodeMatch ?? 0) +
            (f.countryMatch ?? 0) +
            (f.regionMatch ?? 0)
          : missing,
    );
  }
  if (query.titleTokens.length)
    fits.push(profile.k === 'P' && profile.t?.length ? (f.titleSimilarity ?? 0) : missing);
  if (query.employerTokens.length)
    fits.push(profile.k === 'P' && profile.w?.length ? (f.employerSimilarity ?? 0) : missing);
  if (query.schoolTokens.length)
    fits.push(profile.k === 'P' && profile.s?.length ? (f.schoolSimilarity ?? 0) : missing);
  if (query.phones.length) fits.push(profile.p?.length ? (f.phoneMatch ?? 0) : missing);
  if (query.ip) fits.push(f.ipMatch ?? 0);
  return fits;
}

function dominates(other: readonly number[], own: readonly number[], missingFits: boolean): boolean {
  return other.every((value, i) =>
    value === Number.POSITIVE_INFINITY ? missingFits : value >= own[i] - 1e-9,
  );
}

/** Top-1 outcome of an example under `model`: the best candidate and its share. */
function outcome(example: Example, model: TypeModel): QueryOutcome {
  if (example.candidates.length === 0) return { expected: example.expected, top: null, score: null };
  const z = example.candidates.map((c) => arrayLogit(model.base, FEATURE_NAMES[example.type], c.features));
  const p = choiceProbabilities(z);
  let best = 0;
  for (let i = 1; i < z.length; i++) if (z[i] > z[best]) best = i;
  return { expected: example.expected, top: example.candidates[best].id, score: p[best] };
}

/**
 * Weights (log-odds) for evidence the training graph cannot show, used only when a feature is
 * never non-zero in the training data. Hand-set, conservative, and listed in the model's
 * provenance.
 */
export const PRIOR_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  phoneMatch: 4,
  ipMatch: 2.5,
  emailDomainMatch: 2.5,
  employerSimilarity: 2,
});

/** L2 penalty of the choice model's weights. */
const L2 = 0.5;

function fitType(
  examples: readonly Example[],
  features: readonly string[],
  priors: Record<string, number>,
  log: (line: string) => void,
): TypeModel {
  const seen = features.map((_, j) => examples.some((e) => e.candidates.some((c) => c.features[j] !== 0)));
  const fixed: Record<string, number> = {};
  features.forEach((name, j) => {
    if (!seen[j] && PRIOR_WEIGHTS[name] !== undefined) {
      fixed[name] = PRIOR_WEIGHTS[name];
      priors[name] = PRIOR_WEIGHTS[name];
    }
  });
  const choices: ChoiceExample[] = examples.map((example) => ({
    candidates: example.candidates.map((c) => c.features),
    answer: example.expected === null ? -1 : example.candidates.findIndex((c) => c.id === example.expected),
  }));
  const base: LogisticModel = fitChoiceModel(choices, features, L2, { fixed, log });
  return { base };
}

/** Generates the training examples of `entities` (see the module comment). */
function buildExamples(
  entities: readonly Entity[],
  inputs: FitInputs,
  log: (line: string) => void,
): Example[] {
  const holdout = inputs.holdout ?? 0.08;
  const isHeldOut = (id: string) => stableFraction(`${HOLDOUT_SALT}:${inputs.seed}:${id}`) < holdout;
  const storage = inputs.scratchStore();
  try {
    writeEntities(storage.entities, entities);
    const heldOutRefs = new Set<number>();
    for (const entity of entities) {
      if (isHeldOut(entity.id)) {
        const stored = storage.entities.getById(entity.id);
        if (stored) heldOutRefs.add(stored.ref);
      }
    }
    const context = new VocabularyCache(storage.entities);
    rememberRanges(entities.filter((e) => e.type === 'Organization'));
    const random = new Random(inputs.seed);
    const byType = new Map<EntityType, Entity[]>([
      ['Organization', entities.filter((e) => e.type === 'Organization')],
      ['Person', entities.filter((e) => e.type === 'Person')],
    ]);
    const examples: Example[] = [];
    let dropped = 0;
    for (let round = 0; round < (inputs.rounds ?? 1); round++) {
      for (const [index, entity] of entities.entries()) {
        const repeats = isHeldOut(entity.id) ? (inputs.nullRepeats ?? 5) : 1;
        for (let repeat = 0; repeat < repeats; repeat++) {
          const query = generateQuery(entity, random, byType.get(entity.type) ?? []);
          if (!query) continue;
          const analyzed = withQueryOrganizations(analyzeQuery(query), storage.entities, context);
          const vocabularies = context.vocabularies(entity.type);
          const all = collectCandidates(analyzed, storage.entities, vocabularies);
          // A query another entity fits at least as well on every field is dropped, as the
          // bench's labelled sets drop them: its right answer cannot be told. (Namesakes that
          // nothing tells apart still split their probability: the choice model gives equal
          // scores equal shares.)
          const heldOut = isHeldOut(entity.id);
          const ownProfile = indexEntity(entity).profile;
          const ownFits = fieldFits(
            analyzed,
            candidateFeatures(analyzed, ownProfile, vocabularies),
            ownProfile,
          );
          const undecidable = all.some(
            (c) =>
              c.id !== entity.id &&
              (!heldOut || !heldOutRefs.has(c.ref)) &&
              dominates(
                fieldFits(analyzed, candidateFeatures(analyzed, c.profile, vocabularies), c.profile),
                ownFits,
                heldOut,
              ),
          );
          if (undecidable) {
            dropped++;
            continue;
          }
          const candidates = all
            .filter((c) => !heldOutRefs.has(c.ref))
            .map((c) => ({
              id: c.id,
              features: featureArray(
                candidateFeatures(analyzed, c.profile, vocabularies),
                FEATURE_NAMES[entity.type],
              ),
            }));
          examples.push({
            type: entity.type,
            validation:
              stableFraction(`quarry-fit-split:${inputs.seed}:${round}:${index}:${entity.id}`) < 0.2,
            expected: heldOut ? null : entity.id,
            candidates,
          });
        }
      }
    }
    log(`fit: ${examples.length} queries generated, ${dropped} undecidable ones dropped`);
    const labelled = labelledExamples(inputs, storage.entities, context, heldOutRefs);
    log(`fit: ${labelled.length} labelled demo queries`);
    examples.push(...labelled);
    return examples;
  } finally {
    void storage.close();
  }
}

/** The training examples of `inputs.demoQueries` (see `FitInputs.demoQueries`). */
function labelledExamples(
  inputs: FitInputs,
  source: ScratchEntityStore,
  context: VocabularyCache,
  heldOutRefs: ReadonlySet<number>,
): Example[] {
  const examples: Example[] = [];
  const queries = inputs.demoQueries ?? [];
  for (let repeat = 0; repeat < (inputs.demoQueryRepeats ?? 1); repeat++) {
    for (const [index, labelled] of queries.entries()) {
      if (labelled.namesakes?.length) continue;
      const type = labelled.query.type;
      const analyzed = withQueryOrganizations(analyzeQuery(labelled.query), source, context);
      const vocabularies = context.vocabularies(type);
      const all = collectCandidates(analyzed, source, vocabularies).filter((c) => !heldOutRefs.has(c.ref));
      const expected = labelled.expected;
      const present = expected !== null && all.some((c) => c.id === expected);
      const storedRef = expected === null ? undefined : source.getById(expected)?.ref;
      const heldOut = storedRef !== undefined && heldOutRefs.has(storedRef);
      // A query whose entity is indexed but not retrieved teaches nothing about scores.
      if (expected !== null && !heldOut && !present) continue;
      examples.push({
        type,
        validation: stableFraction(`quarry-fit-split:${inputs.seed}:labelled:${index}`) < 0.2,
        expected: heldOut ? null : expected,
        candidates: all.map((c) => ({
          id: c.id,
          features: featureArray(candidateFeatures(analyzed, c.profile, vocabularies), FEATURE_NAMES[type]),
        })),
      });
    }
  }
  return examples;
}

/** Fits the model (see the module comment). `log` receives progress lines. */
export function fitModel(inputs: FitInputs, log: (line: string) => void = () => {}): FitResult {
  const entities = inputs.files.flatMap((file) => readEntities(file));
  log(`fit: ${entities.length} entities from ${inputs.files.length} files`);
  if (inputs.demo) {
    // Each demo entity once (a few are stated by two sources; the first statement will do).
    const seen = new Set<string>();
    for (const record of demoRecords(inputs.demo)) {
      if (seen.has(record.id)) continue;
      seen.add(record.id);
      entities.push(record);
    }
    log(`fit: ${seen.size} synthetic demo entities (seed ${inputs.demo.seed})`);
  }
  const examples = buildExamples(entities, inputs, log);
  const models = {} as Record<EntityType, TypeModel>;
  const priors = {} as Record<EntityType, Record<string, number>>;
  const featureNames = FEATURE_NAMES;
  for (const type of ['Organization', 'Person'] as const) {
    const train = examples.filter((e) => e.type === type && !e.validation);
    priors[type] = {};
    models[type] = fitType(train, featureNames[type], priors[type], log);
    log(`fit: ${type}: ${train.length} training queries`);
  }
  const outcomesByType = new Map<string, QueryOutcome[]>();
  const allOutcomes: QueryOutcome[] = [];
  for (const example of examples.filter((e) => e.validation)) {
    const o = outcome(example, models[example.type]);
    allOutcomes.push(o);
    const list = outcomesByType.get(example.type);
    if (list) list.push(o);
    else outcomesByType.set(example.type, [o]);
  }
  const threshold = bestThreshold(allOutcomes, 2);
  const validation: Record<string, EvaluationMetrics> = { all: evaluateOutcomes(allOutcomes, threshold) };
  for (const [type, outcomes] of outcomesByType) validation[type] = evaluateOutcomes(outcomes, threshold);
  const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
  const model: ModelFile = {
    format: 2,
    threshold,
    models,
    provenance: {
      command: inputs.command ?? 'quarry fit',
      seed: inputs.seed,
      rounds: inputs.rounds ?? 1,
      nullRepeats: inputs.nullRepeats ?? 5,
      holdout: inputs.holdout ?? 0.08,
      inputs: inputs.files.map((file) => ({ file: file.split('/').pop(), sha256: sha256(file) })),
      ...(inputs.demo ? { demo: inputs.demo } : {}),
      ...(inputs.demoQueries?.length
        ? { demoQueries: { queries: inputs.demoQueries.length, repeats: inputs.demoQueryRepeats ?? 1 } }
        : {}),
      queries: { total: examples.length, validation: allOutcomes.length },
      thresholdRule: 'F2-optimal on the validation split (20% of generated queries)',
      scoring: 'choice model: exp(z) / (1 + sum of exp(z) over the candidates), fitted by maximum likelihood',
      l2: L2,
      priorWeights: priors,
      validation: Object.fromEntries(
        Object.entries(validation).map(([k, m]) => [
          k,
          {
            queries: m.queries,
            precision: round4(m.precision),
            recall: round4(m.recall),
            f1: round4(m.f1),
            top1: round4(m.top1),
            ece: round4(m.ece),
          },
        ]),
      ),
    },
  };
  return { model, validation };
}
