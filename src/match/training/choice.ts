/**
 * Fitting the choice model: for each query, the probability that candidate i is the entity the
 * query describes is `exp(zᵢ) / (1 + Σⱼ exp(zⱼ))`, with `z = bias + Σ w·x` over the candidate's
 * features, and the remaining `1 / (1 + Σⱼ exp(zⱼ))` is "none of these". Fitted by maximum
 * likelihood of the right choice (the expected entity when it was retrieved, else none) with an
 * L2 penalty, by Newton's method with step halving: convex, deterministic, no learning rate.
 */
import type { LogisticModel } from '../model.ts';

/** One training query: its candidates' feature rows and the index of the right one (-1: none). */
export interface ChoiceExample {
  readonly candidates: readonly Float32Array[];
  readonly answer: number;
}

/** Solves `A·x = b` (A symmetric positive definite) by Cholesky decomposition. */
function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  const l = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i][j];
      for (let k = 0; k < j; k++) sum -= l[i][k] * l[j][k];
      l[i][j] = i === j ? Math.sqrt(Math.max(sum, 1e-12)) : sum / l[j][j];
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= l[i][k] * y[k];
    y[i] = sum / l[i][i];
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i];
    for (let k = i + 1; k < n; k++) sum -= l[k][i] * x[k];
    x[i] = sum / l[i][i];
  }
  return x;
}

/** `bias + Σ w·x` with `w[0]` the bias. */
function score(w: Float64Array, x: Float32Array): number {
  let z = w[0];
  for (let i = 0; i < x.length; i++) if (x[i] !== 0) z += w[i + 1] * x[i];
  return z;
}

/** The penalised negative log-likelihood of `examples` under `w`. */
function objective(examples: readonly ChoiceExample[], w: Float64Array, lambda: number): number {
  let total = 0;
  for (const example of examples) {
    const z = example.candidates.map((x) => score(w, x));
    const top = Math.max(0, ...z);
    let sum = Math.exp(-top);
    for (const zj of z) sum += Math.exp(zj - top);
    total += top + Math.log(sum) - (example.answer >= 0 ? z[example.answer] : 0);
  }
  for (let i = 1; i < w.length; i++) total += lambda * w[i] * w[i];
  return total;
}

/**
 * Fits the choice model over the named `features` (each example's rows hold them in that order)
 * with penalty `lambda·Σw²` (not on the bias). Features never seen non-zero get weight 0.
 * `fixed` holds weights set beforehand (features the data cannot show): kept as given.
 */
export function fitChoiceModel(
  examples: readonly ChoiceExample[],
  features: readonly string[],
  lambda = 1,
  options: { fixed?: Readonly<Record<string, number>>; log?: (line: string) => void } = {},
): LogisticModel {
  const d = features.length + 1;
  const fixed = new Map<number, number>();
  for (const [name, weight] of Object.entries(options.fixed ?? {})) {
    const i = features.indexOf(name);
    if (i >= 0) fixed.set(i + 1, weight);
  }
  let w = new Float64Array(d);
  for (const [i, weight] of fixed) w[i] = weight;
  let current = objective(examples, w, lambda);
  const x = new Float64Array(d);
  const mean = new Float64Array(d);
  for (let iteration = 0; iteration < 60; iteration++) {
    const gradient = new Float64Array(d);
    const hessian = Array.from({ length: d }, () => new Float64Array(d));
    for (const example of examples) {
      const n = example.candidates.length;
      if (n === 0) continue;
      const z = example.candidates.map((row) => score(w, row));
      const top = Math.max(0, ...z);
      let sum = Math.exp(-top);
      const p = z.map((zj) => Math.exp(zj - top));
      for (const pj of p) sum += pj;
      mean.fill(0);
      for (let j = 0; j < n; j++) {
        const pj = p[j] / sum;
        if (pj < 1e-12) continue;
        const row = example.candidates[j];
        x[0] = 1;
        for (let i = 1; i < d; i++) x[i] = row[i - 1];
        for (let i = 0; i < d; i++) {
          if (x[i] === 0) continue;
          const pxi = pj * x[i];
          mean[i] += pxi;
          const hi = hessian[i];
          for (let k = 0; k <= i; k++) if (x[k] !== 0) hi[k] += pxi * x[k];
        }
      }
      for (let i = 0; i < d; i++) {
        if (mean[i] === 0) continue;
        gradient[i] += mean[i];
        const hi = hessian[i];
        for (let k = 0; k <= i; k++) if (mean[k] !== 0) hi[k] -= mean[i] * mean[k];
      }
      if (example.answer >= 0) {
        const row = example.candidates[example.answer];
        gradient[0] -= 1;
        for (let i = 1; i < d; i++) gradient[i] -= row[i - 1];
      }
    }
    for (let i = 0; i < d; i++) for (let k = 0; k < i; k++) hessian[k][i] = hessian[i][k];
    for (let i = 1; i < d; i++) {
      gradient[i] += 2 * lambda * w[i];
      hessian[i][i] += 2 * lambda;
    }
    hessian[0][0] += 1e-6;
    // Fixed weights do not move: their rows and columns leave the system.
    for (const [i] of fixed) {
      gradient[i] = 0;
      for (let k = 0; k < d; k++) {
        hessian[i][k] = 0;
        hessian[k][i] = 0;
      }
      hessian[i][i] = 1;
    }
    const step = solve(hessian, gradient);
    let scale = 1;
    let next = w;
    let value = current;
    for (let halving = 0; halving < 30; halving++) {
      next = w.map((wi, i) => wi - scale * step[i]);
      value = objective(examples, next, lambda);
      if (value <= current + 1e-9) break;
      scale /= 2;
    }
    const change = Math.max(...step.map((s) => Math.abs(s * scale)));
    options.log?.(
      `choice fit: iteration ${iteration + 1}, objective ${value.toFixed(3)}, step ${change.toExponential(2)}`,
    );
    w = next;
    const improved = current - value;
    current = value;
    if (change < 1e-6 || improved < 1e-7 * Math.max(1, Math.abs(value))) break;
  }
  const weights: Record<string, number> = {};
  features.forEach((f, i) => {
    weights[f] = Math.round(w[i + 1] * 1e6) / 1e6;
  });
  return { bias: Math.round(w[0] * 1e6) / 1e6, weights };
}
