/**
 * The scoring model: per entity type, a linear score `z = bias + Σ w·x` over a candidate's
 * compared features, and each candidate's probability its share among the plausible candidates
 * and "none of these": `exp(zᵢ) / (1 + Σⱼ exp(zⱼ))`. Namesakes that nothing tells apart split
 * the probability; the candidates and "none" always sum to 1. Weights come from a fitted model
 * file (`model.json`, written by `quarry fit`: maximum likelihood of the right choice).
 */
import type { EntityType } from '../kg/index.ts';
import type { FeatureVector } from './features.ts';

/** A logistic model: log-odds = bias + Σ weight·feature. */
export interface LogisticModel {
  readonly bias: number;
  readonly weights: Readonly<Record<string, number>>;
}

/** A type's model: the linear score of a candidate (the "none" option scores 0). */
export interface TypeModel {
  readonly base: LogisticModel;
  /**
   * Recalibration of the linear score on labelled queries (`quarry calibrate`): the score used
   * is `scale · z + offset`. The fit's own data are generated queries; the labelled sets are
   * how people query, and their shares of right answers set these two numbers.
   */
  readonly calibration?: { readonly scale: number; readonly offset: number };
}

/** The model file's shape. */
export interface ModelFile {
  readonly format: 2;
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

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** A model's features with a weight other than 0, in the model's order, listed once. */
export interface CompiledModel {
  readonly names: readonly string[];
  readonly weights: readonly number[];
  /** The position of each name in `names`. */
  readonly slots: ReadonlyMap<string, number>;
}

// Models are read-only: their weights are listed once, not per candidate.
const compiled = new WeakMap<LogisticModel, CompiledModel>();

/** `model`'s weights as lists (built once per model). */
export function compile(model: LogisticModel): CompiledModel {
  let c = compiled.get(model);
  if (!c) {
    const entries = Object.entries(model.weights).filter(([, w]) => w !== 0);
    const names = entries.map(([n]) => n);
    c = { names, weights: entries.map(([, w]) => w), slots: new Map(names.map((name, i) => [name, i])) };
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

// One scorer per model, built on first use (models are read-only).
const scorers = new WeakMap<LogisticModel, (features: FeatureVector) => number>();

/**
 * `logit(model, ·)` as a function made for `model`: the same terms added in the same order (so
 * the same bits), each feature read by its name written in the code. `logit` reads
 * `features[names[i]]` with a different name at every step: the read is megamorphic (a hash
 * lookup per feature), and it boxes each double it returns, ~600 heap numbers per query on the
 * 1M + 1M graph (7% of the matcher's allocated bytes). Here each read sees one object shape per
 * model (feature vectors are clones of one template, features.ts) and stays unboxed.
 * The feature names are written as JSON string literals and the weights passed as data: nothing
 * of the model file is executed.
 */
export function linearScorer(model: LogisticModel): (features: FeatureVector) => number {
  let scorer = scorers.get(model);
  if (!scorer) {
    const { names, weights } = compile(model);
    const terms = names.map(
      (name, i) => `v = f[${JSON.stringify(name)}]; if (v !== undefined && v !== 0) s += w[${i}] * v;`,
    );
    const body = `return function linear(f) { let s = bias; let v;\n${terms.join('\n')}\nreturn s; };`;
    scorer = new Function('w', 'bias', body)(Float64Array.from(weights), model.bias) as (
      features: FeatureVector,
    ) => number;
    scorers.set(model, scorer);
  }
  return scorer;
}

/**
 * Each candidate's share of the probability, given the linear scores `z` of all candidates of a
 * query: `exp(zᵢ) / (1 + Σⱼ exp(zⱼ))` ("none of these" scores 0). Computed shifted by the
 * largest score, so that no exponential overflows.
 */
export function choiceProbabilities(z: readonly number[]): number[] {
  let top = 0;
  for (const zi of z) if (zi > top) top = zi;
  let sum = Math.exp(-top);
  const e = z.map((zi) => Math.exp(zi - top));
  for (const ei of e) sum += ei;
  return e.map((ei) => ei / sum);
}

/**
 * The log-odds that the other candidates take from candidate `i`: its probability's log-odds
 * are `zᵢ − log(1 + Σⱼ≠ᵢ exp(zⱼ))` (0 when it is alone).
 */
export function rivalsLogOdds(z: readonly number[], i: number): number {
  let top = 0;
  for (let j = 0; j < z.length; j++) if (j !== i && z[j] > top) top = z[j];
  let sum = Math.exp(-top);
  for (let j = 0; j < z.length; j++) if (j !== i) sum += Math.exp(z[j] - top);
  return -(top + Math.log(sum));
}

/** Checks the shape of a parsed model file; throws a TypeError naming what is wrong. */
export function validateModelFile(value: unknown): ModelFile {
  const file = value as ModelFile;
  if (file?.format !== 2) throw new TypeError('model file: format must be 2');
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
    const calibration = model?.calibration;
    if (
      calibration !== undefined &&
      (!Number.isFinite(calibration.scale) || calibration.scale <= 0 || !Number.isFinite(calibration.offset))
    ) {
      throw new TypeError(
        `model file: models.${type}.calibration needs a positive scale and a finite offset`,
      );
    }
    for (const stage of ['base'] as const) {
      const m = model?.[stage];
      if (!m || typeof m.bias !== 'number' || typeof m.weights !== 'object') {
        throw new TypeError(`model file: models.${type}.${stage} must have a numeric bias and weights`);
      }
      for (const [name, w] of Object.entries(m.weights)) {
        // An explanation lists the bias and the rivals' share under these names, beside the
        // features' contributions: a feature may not take them.
        if (name === 'bias' || name === 'otherCandidates')
          throw new TypeError(`model file: ${type}.${stage} has a feature named ${name}, a reserved name`);
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
