import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  choiceProbabilities,
  linearScorer,
  logit,
  rivalsLogOdds,
  sigmoid,
  validateModelFile,
} from './model.ts';
import { loadDefaultModel } from './matcher.ts';
import { Random } from '../random.ts';

test('logit adds weighted features to the bias and reports each contribution', () => {
  const into: Record<string, number> = {};
  const z = logit({ bias: -2, weights: { a: 3, b: -1, c: 5 } }, { a: 1, b: 2, d: 9 }, into);
  assert.equal(z, -2 + 3 - 2);
  assert.deepEqual(into, { a: 3, b: -2 });
  assert.equal(sigmoid(0), 0.5);
  assert.ok(sigmoid(40) <= 1 && sigmoid(-40) >= 0 && sigmoid(-800) === 0);
});

test("a model's linear scorer gives logit's bits, whatever names its features have", () => {
  // Names a JSON string literal must escape, a zero weight, a feature absent or 0.
  const odd = { bias: 0.25, weights: { 'a"b': 1.5, 'c\\d>0.5': -2, e: 0, 'strongName*f': 0.1 } };
  assert.equal(
    linearScorer(odd)({ 'a"b': 2, 'c\\d>0.5': 0.3, e: 7, g: 1 }),
    logit(odd, { 'a"b': 2, 'c\\d>0.5': 0.3, e: 7, g: 1 }),
  );
  assert.equal(linearScorer(odd), linearScorer(odd));
  // The committed model over random vectors: sums in the same order, so equal to the last bit.
  const random = new Random(5);
  for (const type of ['Organization', 'Person'] as const) {
    const model = loadDefaultModel().models[type].base;
    const names = Object.keys(model.weights);
    for (let i = 0; i < 200; i++) {
      const features: Record<string, number> = {};
      for (const name of names)
        if (random.chance(0.5)) features[name] = random.chance(0.2) ? 0 : random.next() * 3 - 1;
      assert.equal(linearScorer(model)(features), logit(model, features));
    }
  }
});

test('choice probabilities: shares among the candidates and "none of these", summing to 1', () => {
  // Alone, a candidate's probability is the logistic of its score.
  assert.ok(Math.abs(choiceProbabilities([2])[0] - sigmoid(2)) < 1e-12);
  // Namesakes that nothing tells apart split it; with "none" the shares sum to 1.
  const [a, b] = choiceProbabilities([3, 3]);
  assert.equal(a, b);
  assert.ok(a < 0.5 && Math.abs(a + b + 1 / (1 + 2 * Math.exp(3)) - 1) < 1e-12);
  // Large scores do not overflow.
  const big = choiceProbabilities([800, 790]);
  assert.ok(big[0] > 0.99 && big[0] + big[1] <= 1 + 1e-12);
  // The log-odds the others take: the candidate's log-odds are its score plus them.
  const z = [1.5, 0.5, -1];
  const p = choiceProbabilities(z)[0];
  assert.ok(Math.abs(Math.log(p / (1 - p)) - (z[0] + rivalsLogOdds(z, 0))) < 1e-12);
  assert.equal(rivalsLogOdds([2], 0), -0);
});

test('validateModelFile names what is wrong', () => {
  const good = {
    format: 2,
    threshold: 0.3,
    models: {
      Organization: { base: { bias: 0, weights: { a: 1 } } },
      Person: { base: { bias: 0, weights: {} } },
    },
    provenance: {},
  };
  assert.equal(validateModelFile(good), good);
  assert.throws(() => validateModelFile({ ...good, format: 1 }), /format/);
  assert.throws(() => validateModelFile({ ...good, threshold: 2 }), /threshold/);
  assert.throws(
    () => validateModelFile({ ...good, models: { ...good.models, Person: {} } }),
    /models\.Person\.base/,
  );
  // The names an explanation gives the bias and the rivals' share are no feature's.
  for (const name of ['bias', 'otherCandidates']) {
    const weights = { a: 1, [name]: 0.5 };
    const reserved = { ...good, models: { ...good.models, Organization: { base: { bias: 0, weights } } } };
    assert.throws(
      () => validateModelFile(reserved),
      new RegExp(`Organization\\.base has a feature named ${name}`),
    );
  }
});

test('the committed model file is valid, with a calibrated default threshold per type', async () => {
  const { loadDefaultModel } = await import('./matcher.ts');
  const model = loadDefaultModel();
  for (const type of ['Organization', 'Person'] as const) {
    const threshold = model.thresholds?.[type];
    assert.ok(threshold !== undefined && threshold > 0 && threshold < 1, `${type} ${threshold}`);
  }
  assert.equal(typeof model.provenance.seed, 'number');
  assert.ok(Array.isArray(model.provenance.inputs));
});
