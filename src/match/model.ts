/**
 * The scoring model: per entity type, a logistic "base" model over the compared features, then
 * a logistic "final" model that adds competition among the candidates of the same query (gap to
 * the best rival, number of near-equal rivals). Its output is the calibrated probability.
 * Weights come from a fitted model file (`model.json`, written by `quarry fit`).
 */
import type { EntityType } from '../kg/index.ts';
import type { FeatureVector } from './features.ts';

/** A logistic model: log-odds = bias + Σ weight·feature. */
export interface LogisticModel {
  readonly bias: number;
  readonly weights: Readonly<Record<string, number>>;
}

export interface TypeModel {
  readonly base: LogisticModel;
  readonly final: LogisticModel;
}

/** The model file's shape. */
export interface ModelFile {
  readonly format: 1;
  /** Recall-favouring cut: F2-optimal on the fitting run's validation split. */
  readonly threshold: number;
  /**
   * Default `threshold` per entity type, chosen by `quarry calibrate` on labelled queries (the
   * lowest score at which every labelled set of the type meets its precision floor with a
   * margin). A type without one falls back to `threshold`.
   */
  readonly thresholds?: Readonly<Partial<Record<EntityType, number>>>;
  readonly models: Readonly<Record<EntityType, TypeModel>>;
  /** How the weights were fitted: command, seed, input hashes, validation metrics. */
  readonly provenance: Readonly<Record<string, unknown>>;
}

/** Names of the competition features the final model reads. */
export const FINAL_FEATURES = Object.freeze(['baseLogit', 'bestRival', 'rivalMass'] as const);

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

// Models are read-only: their weights are listed once, not per candidate.
const compiled = new WeakMap<LogisticModel, { names: string[]; weights: number[] }>();

function compile(model: LogisticModel): { names: string[]; weights: number[] } {
  let c = compiled.get(model);
  if (!c) {
    const entries = Object.entries(model.weights).filter(([, w]) => w !== 0);
    c = { names: entries.map(([n]) => n), weights: entries.map(([, w]) => w) };
    compiled.set(model, c);
  }
  return c;
}

/** log-odds of `model` for `features`, with each feature's contribution when `into` is given. */
export function logit(model: LogisticModel, features: FeatureVector, into?: Record<string, number>): number {
  const { names, weights } = compile(model);
  let sum = model.bias;
  for (let i = 0; i < names.length; i++) {
    const value = features[names[i]];
    if (value === undefined || value === 0) continue;
    const contribution = weights[i] * value;
    sum += contribution;
    if (into) into[names[i]] = contribution;
  }
  return sum;
}

/**
 * Competition features of candidate `i` given the base log-odds of all candidates of a query:
 * its own base log-odds, the base probability of the best other candidate (`bestRival`, 0 when
 * alone) and the sum of the others' base probabilities (`rivalMass`, capped at 3): a query that
 * fits several entities about equally says less about each of them.
 */
export function competitionFeatures(baseLogits: readonly number[], i: number): FeatureVector {
  let bestRival = 0;
  let rivalMass = 0;
  for (let j = 0; j < baseLogits.length; j++) {
    if (j === i) continue;
    const p = sigmoid(baseLogits[j]);
    if (p > bestRival) bestRival = p;
    rivalMass += p;
  }
  return { baseLogit: baseLogits[i], bestRival, rivalMass: Math.min(3, rivalMass) };
}

/** Checks the shape of a parsed model file; throws a TypeError naming what is wrong. */
export function validateModelFile(value: unknown): ModelFile {
  const file = value as ModelFile;
  if (file?.format !== 1) throw new TypeError('model file: format must be 1');
  if (typeof file.threshold !== 'number' || file.threshold < 0 || file.threshold > 1) {
    throw new TypeError('model file: threshold must be a number in [0, 1]');
  }
  for (const [type, t] of Object.entries(file.thresholds ?? {})) {
    if (typeof t !== 'number' || t < 0 || t > 1) {
      throw new TypeError(`model file: thresholds.${type} must be a number in [0, 1]`);
    }
  }
  for (const type of ['Organization', 'Person'] as const) {
    const model = file.models?.[type];
    for (const stage of ['base', 'final'] as const) {
      const m = model?.[stage];
      if (!m || typeof m.bias !== 'number' || typeof m.weights !== 'object') {
        throw new TypeError(`model file: models.${type}.${stage} must have a numeric bias and weights`);
      }
      for (const [name, w] of Object.entries(m.weights)) {
        if (!Number.isFinite(w))
          throw new TypeError(`model file: weight ${type}.${stage}.${name} is not finite`);
      }
    }
  }
  return file;
}

/** The default threshold of `type` under `model`: its calibrated one, else the F2 cut. */
export function defaultThresholdOf(model: ModelFile, type: EntityType): number {
  return model.thresholds?.[type] ?? model.threshold;
}
