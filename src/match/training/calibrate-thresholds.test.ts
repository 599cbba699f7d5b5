import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueryOutcome } from '../evaluation.ts';
import { calibrateThresholds } from './calibrate-thresholds.ts';

/** `n` outcomes: correct hits at `score`, plus `wrong` wrong ones at `wrongScore`. */
function outcomes(correct: number, score: number, wrong: number, wrongScore: number): QueryOutcome[] {
  return [
    ...Array.from({ length: correct }, (_, i) => ({ expected: `E${i}`, top: `E${i}`, score })),
    ...Array.from({ length: wrong }, () => ({ expected: null, top: 'X', score: wrongScore })),
  ];
}

test('picks the lowest threshold at which every set of a type meets floor + margin', () => {
  const result = calibrateThresholds(
    [
      // 100 right at 0.9, 10 wrong at 0.4: precision 0.909 below 0.41, 1.0 from 0.41.
      { name: 'a', type: 'Person', outcomes: outcomes(100, 0.9, 10, 0.4) },
      // 100 right at 0.8, 3 wrong at 0.6: precision 0.971 below 0.61, short of the 0.98 wanted.
      { name: 'b', type: 'Person', outcomes: outcomes(100, 0.8, 3, 0.6) },
      { name: 'c', type: 'Organization', outcomes: outcomes(50, 0.95, 0, 0) },
    ],
    { floors: { Organization: 0.97, Person: 0.95 }, margin: 0.03 },
  );
  assert.equal(result.thresholds.Person, 0.61);
  assert.equal(result.thresholds.Organization, 0.01);
  assert.deepEqual(result.unmet, []);
  const b = result.sets.find((s) => s.name === 'b')!;
  assert.equal(b.metrics.precision, 1);
  assert.equal(b.metrics.recall, 1);
});

test('reports a type whose floor no threshold reaches, keeping the best effort', () => {
  // Wrong answers score as high as right ones: precision is 0.5 wherever there are hits.
  const result = calibrateThresholds([
    { name: 'x', type: 'Organization', outcomes: outcomes(5, 0.7, 5, 0.7) },
  ]);
  assert.deepEqual(result.unmet, ['Organization']);
  assert.equal(result.thresholds.Person, undefined);
  assert.ok(result.thresholds.Organization! > 0 && result.thresholds.Organization! < 1);
});
