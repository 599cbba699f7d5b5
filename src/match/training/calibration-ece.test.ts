import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  calibrationForTarget,
  choiceLogLikelihood,
  ECE_FIT_TARGET,
  topCandidateEce,
} from './calibration-ece.ts';
import type { ChoiceExample } from './choice.ts';

/** `count` queries of one candidate with linear score `z`, right (`answer` 0) or not (-1). */
const queries = (count: number, z: number, right: boolean): ChoiceExample[] =>
  Array.from({ length: count }, () => ({ candidates: [Float32Array.of(z)], answer: right ? 0 : -1 }));

test('the ECE of the top candidates: their share of "none" included, as the matcher scores them', () => {
  // One candidate at z = 0 scores 1 / (1 + 1) = 0.5; half right is calibrated, all right is 0.5 off.
  const half = [...queries(10, 0, true), ...queries(10, 0, false)];
  assert.ok(topCandidateEce(half, { scale: 1, offset: 0 }) < 1e-12);
  assert.ok(Math.abs(topCandidateEce(queries(10, 0, true), { scale: 1, offset: 0 }) - 0.5) < 1e-12);
  // Two candidates at z = 0: the top one scores 1 / 3.
  const pair: ChoiceExample[] = [{ candidates: [Float32Array.of(0), Float32Array.of(0)], answer: 0 }];
  assert.ok(Math.abs(topCandidateEce(pair, { scale: 1, offset: 0 }) - 2 / 3) < 1e-6);
  // Queries without candidates have no top candidate and do not count.
  assert.ok(topCandidateEce([...half, { candidates: [], answer: -1 }], { scale: 1, offset: 0 }) < 1e-12);
});

test('the likelihood fit stands when every set is within the target; otherwise the likeliest grid point within it', () => {
  const fitted = { scale: 1, offset: 0 };
  const calibrated = [...queries(10, 0, true), ...queries(10, 0, false)];
  assert.deepEqual(calibrationForTarget([calibrated], fitted).calibration, fitted);

  // A second set whose right answers all score 0.5 (ECE 0.5): a higher offset serves it better,
  // and the first set (still half right at z = 0) worse; the worst of the two is lowered.
  const underconfident = queries(20, 0, true);
  const result = calibrationForTarget([calibrated, underconfident], fitted);
  assert.ok(result.fittedWorstEce > ECE_FIT_TARGET);
  assert.ok(result.worstEce < result.fittedWorstEce, JSON.stringify(result));
  assert.ok(result.calibration.offset > 0 && result.calibration.offset <= 1.5, JSON.stringify(result));
  assert.ok(result.calibration.scale >= 0.75 && result.calibration.scale <= 1.25, JSON.stringify(result));
});

test('among the grid points within the target, the likeliest is taken, not the one of lowest ECE', () => {
  // 100 queries at z = 0 (score 0.5), 60 right: ECE 0.1 under the fit. An offset of ln 1.5
  // (≈ 0.4) calibrates them exactly; offsets near it are within 0.03 too, and the likeliest
  // of those is the one nearest ln 1.5 — the maximum of the likelihood.
  const set = [...queries(60, 0, true), ...queries(40, 0, false)];
  const result = calibrationForTarget([set], { scale: 1, offset: 0 });
  assert.ok(Math.abs(result.calibration.offset - 0.4) < 1e-9, JSON.stringify(result));
  assert.ok(result.worstEce <= ECE_FIT_TARGET);
  assert.ok(
    choiceLogLikelihood(set, result.calibration) > choiceLogLikelihood(set, { scale: 1, offset: 0.5 }),
  );
});
