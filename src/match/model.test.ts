import assert from 'node:assert/strict';
import { test } from 'node:test';
import { competitionFeatures, logit, sigmoid, validateModelFile } from './model.ts';

test('logit adds weighted features to the bias and reports each contribution', () => {
  const into: Record<string, number> = {};
  const z = logit({ bias: -2, weights: { a: 3, b: -1, c: 5 } }, { a: 1, b: 2, d: 9 }, into);
  assert.equal(z, -2 + 3 - 2);
  assert.deepEqual(into, { a: 3, b: -2 });
  assert.equal(sigmoid(0), 0.5);
  assert.ok(sigmoid(40) <= 1 && sigmoid(-40) >= 0 && sigmoid(-800) === 0);
});

test('competition features: the best rival and the mass of rivals', () => {
  const alone = competitionFeatures([2], 0);
  assert.deepEqual(alone, { baseLogit: 2, bestRival: 0, rivalMass: 0 });
  const pair = competitionFeatures([0, 0], 0);
  assert.equal(pair.bestRival, 0.5);
  assert.equal(pair.rivalMass, 0.5);
  const crowd = competitionFeatures([5, 5, 5, 5, 5, 5, 5], 0);
  assert.equal(crowd.rivalMass, 3, 'capped at 3');
});

test('validateModelFile names what is wrong', () => {
  const good = {
    format: 1,
    threshold: 0.3,
    models: {
      Organization: { base: { bias: 0, weights: {} }, final: { bias: 0, weights: { baseLogit: 1 } } },
      Person: { base: { bias: 0, weights: {} }, final: { bias: 0, weights: { baseLogit: 1 } } },
    },
    provenance: {},
  };
  assert.equal(validateModelFile(good), good);
  assert.throws(() => validateModelFile({ ...good, format: 2 }), /format/);
  assert.throws(() => validateModelFile({ ...good, threshold: 2 }), /threshold/);
  assert.throws(
    () =>
      validateModelFile({ ...good, models: { ...good.models, Person: { base: good.models.Person.base } } }),
    /models\.Person\.final/,
  );
});

test('the committed model file is valid and its threshold favours recall', async () => {
  const { loadDefaultModel } = await import('./matcher.ts');
  const model = loadDefaultModel();
  assert.ok(model.threshold > 0 && model.threshold < 0.5);
  assert.equal(typeof model.provenance.seed, 'number');
  assert.ok(Array.isArray(model.provenance.inputs));
});
