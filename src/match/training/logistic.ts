/**
 * L2-regularised logistic regression fitted by Newton's method (iteratively reweighted least
 * squares): deterministic, no learning rate, converges in a few iterations on our few features.
 */
import type { LogisticModel } from '../model.ts';

/** One example: feature values in the order of the feature names given to `fitLogistic`. */
export interface TrainingRow {
  readonly x: Float32Array | readonly number[];
  readonly y: 0 | 1;
}

/** The values of `features` (in that order) of a feature vector, compactly. */
export function featureArray(
  vector: Readonly<Record<string, number>>,
  features: readonly string[],
): Float32Array {
  const out = new Float32Array(features.length);
  for (let i = 0; i < features.length; i++) out[i] = vector[features[i]] ?? 0;
  return out;
}

/** Solves `A·x = b` (A symmetric positive definite) by Cholesky decomposition. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i][j];
      for (let k = 0; k < j; k++) sum -= l[i][k] * l[j][k];
      l[i][j] = i === j ? Math.sqrt(Math.max(sum, 1e-12)) : sum / l[j][j];
    }
  }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= l[i][k] * y[k];
    y[i] = sum / l[i][i];
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i];
    for (let k = i + 1; k < n; k++) sum -= l[k][i] * x[k];
    x[i] = sum / l[i][i];
  }
  return x;
}

/**
 * Fits `P(y=1) = σ(bias + Σ w·x)` on `rows` over the named `features`, with an L2 penalty
 * `lambda·Σw²` (not on the bias). Features never seen non-zero get weight 0.
 */
export function fitLogistic(
  rows: readonly TrainingRow[],
  features: readonly string[],
  lambda = 1,
): LogisticModel {
  const d = features.length + 1;
  let w = new Array<number>(d).fill(0);
  const x = new Float64Array(d);
  x[0] = 1;
  for (let iteration = 0; iteration < 50; iteration++) {
    const gradient = new Array<number>(d).fill(0);
    const hessian = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let r = 0; r < rows.length; r++) {
      const values = rows[r].x;
      for (let i = 1; i < d; i++) x[i] = values[i - 1];
      let z = 0;
      for (let i = 0; i < d; i++) z += w[i] * x[i];
      const p = 1 / (1 + Math.exp(-z));
      const err = p - rows[r].y;
      const s = Math.max(p * (1 - p), 1e-9);
      for (let i = 0; i < d; i++) {
        if (x[i] === 0) continue;
        gradient[i] += err * x[i];
        for (let j = 0; j <= i; j++) if (x[j] !== 0) hessian[i][j] += s * x[i] * x[j];
      }
    }
    for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) hessian[j][i] = hessian[i][j];
    for (let i = 1; i < d; i++) {
      gradient[i] += 2 * lambda * w[i];
      hessian[i][i] += 2 * lambda;
    }
    hessian[0][0] += 1e-6;
    const step = solve(hessian, gradient);
    const next = w.map((wi, i) => wi - step[i]);
    const change = Math.max(...step.map(Math.abs));
    w = next;
    if (change < 1e-7) break;
  }
  const weights: Record<string, number> = {};
  features.forEach((f, i) => {
    weights[f] = Math.round(w[i + 1] * 1e6) / 1e6;
  });
  return { bias: Math.round(w[0] * 1e6) / 1e6, weights };
}
