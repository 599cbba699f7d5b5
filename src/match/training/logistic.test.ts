import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitLogistic, type TrainingRow } from './logistic.ts';
import { Random } from '../../random.ts';

test('fitLogistic recovers the weights that generated the labels, deterministically', () => {
  const random = new Random(42);
  const rows: TrainingRow[] = [];
  for (let i = 0; i < 20_000; i++) {
    const a = random.next();
    const b = random.chance(0.5) ? 1 : 0;
    const z = -1 + 3 * a - 2 * b;
    rows.push({ x: [a, b, 0], y: random.next() < 1 / (1 + Math.exp(-z)) ? 1 : 0 });
  }
  const model = fitLogistic(rows, ['a', 'b', 'never'], 0.01);
  assert.ok(Math.abs(model.bias + 1) < 0.15, `bias ${model.bias}`);
  assert.ok(Math.abs(model.weights.a - 3) < 0.25, `a ${model.weights.a}`);
  assert.ok(Math.abs(model.weights.b + 2) < 0.15, `b ${model.weights.b}`);
  assert.equal(model.weights.never, 0);
  assert.deepEqual(fitLogistic(rows, ['a', 'b', 'never'], 0.01), model);
});
