import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestThreshold, evaluateKinds, evaluateOutcomes, isRight, parseLabelledQuery } from './evaluation.ts';

test('evaluateOutcomes counts as the bench defines: a wrong hit is both FP and FN', () => {
  const m = evaluateOutcomes(
    [
      { expected: 'A', top: 'A', score: 0.9 }, // TP
      { expected: 'B', top: 'C', score: 0.8 }, // FP + FN
      { expected: 'D', top: 'D', score: 0.2 }, // FN (below threshold), top-1 correct
      { expected: null, top: 'E', score: 0.7 }, // FP
      { expected: null, top: 'F', score: 0.1 }, // TN
      { expected: null, top: null, score: null }, // TN, not in calibration
    ],
    0.5,
  );
  assert.deepEqual([m.truePositives, m.falsePositives, m.falseNegatives, m.trueNegatives], [1, 2, 2, 2]);
  assert.equal(m.precision, 1 / 3);
  assert.equal(m.recall, 1 / 3);
  assert.equal(m.top1, 2 / 3);
  // Bins: 0.9 correct, 0.8 wrong, 0.2 correct, 0.7 wrong, 0.1 wrong; each its own bin.
  const expectedEce = (0.1 + 0.8 + 0.8 + 0.7 + 0.1) / 5;
  assert.ok(Math.abs(m.ece - expectedEce) < 1e-12);
});

test('namesake queries count in precision and recall but not in the ECE: no top candidate of theirs is right or wrong', () => {
  const plain = [
    { expected: 'A', top: 'A', score: 0.9 },
    { expected: 'B', top: 'B', score: 0.75 },
  ];
  const namesake = {
    expected: null,
    top: 'N1',
    score: 0.5,
    candidates: [
      { id: 'N1', score: 0.5 },
      { id: 'N2', score: 0.49 },
    ],
  };
  const without = evaluateOutcomes(plain, 0.5);
  const withNamesake = evaluateOutcomes([...plain, namesake], 0.5);
  assert.equal(withNamesake.ece, without.ece);
  // Counted as the label says (no entity expected), the namesake is a wrong top at 0.5.
  assert.equal(without.eceNamesakesCounted, without.ece);
  assert.ok(withNamesake.eceNamesakesCounted > without.ece);
  assert.equal(
    withNamesake.eceNamesakesCounted,
    evaluateOutcomes([...plain, { expected: null, top: 'N1', score: 0.5 }], 0.5).ece,
  );
  assert.equal(withNamesake.falsePositives, 1, 'a namesake above the threshold is still a false hit');
  // The same query without its candidates (not a namesake query) is a wrong top at 0.5.
  assert.ok(evaluateOutcomes([...plain, { expected: null, top: 'N1', score: 0.5 }], 0.5).ece > without.ece);
});

test('bestThreshold picks the F2-optimal cut', () => {
  const outcomes = [
    { expected: 'A', top: 'A', score: 0.95 },
    { expected: 'B', top: 'B', score: 0.35 },
    { expected: null, top: 'X', score: 0.3 },
    { expected: null, top: 'Y', score: 0.1 },
  ];
  // At 0.31–0.35 both matches are hits and one null is excluded: P=1, R=1.
  const t = bestThreshold(outcomes, 2);
  assert.ok(t > 0.3 && t <= 0.35, `threshold ${t}`);
});

test('parseLabelledQuery reads the bench format and names bad fields', () => {
  const q = parseLabelledQuery(
    '{"query":{"type":"Person","name":["Ann Lee"],"email":"a@b.com","location":"Leeds"},"expected":null}',
  );
  assert.deepEqual(q.query, {
    type: 'Person',
    names: ['Ann Lee'],
    urls: [],
    emails: ['a@b.com'],
    phones: [],
    location: 'Leeds',
  });
  assert.equal(q.expected, null);
  assert.throws(() => parseLabelledQuery('{"query":{"type":"Robot"},"expected":null}'), /query\.type/);
  assert.throws(
    () => parseLabelledQuery('{"query":{"type":"Person","name":[1]},"expected":null}'),
    /query\.name/,
  );
  assert.throws(() => parseLabelledQuery('{"query":{"type":"Person"},"expected":5}'), /expected/);
});

test('evaluateKinds: right per kind, namesakes judged by the sum and the largest of their scores', () => {
  const q = (line: object) => parseLabelledQuery(JSON.stringify(line));
  const labelled = [
    q({ query: { type: 'Organization', name: 'A' }, expected: 'A', meta: { kinds: ['dotted'] } }),
    q({ query: { type: 'Organization', name: 'B' }, expected: 'B', meta: { kinds: ['dotted'] } }),
    q({ query: { type: 'Organization', name: 'Z' }, expected: null, meta: { kinds: ['absent'] } }),
    q({
      query: { type: 'Person', name: 'Al Lee' },
      expected: null,
      meta: { kinds: ['same-name'] },
      namesakes: ['P1', 'P2'],
    }),
    q({
      query: { type: 'Person', name: 'Bo Lee' },
      expected: null,
      meta: { kinds: ['same-name'] },
      namesakes: ['P3', 'P4'],
    }),
  ];
  assert.deepEqual(labelled[3].namesakes, ['P1', 'P2']);
  assert.deepEqual(labelled[0].kinds, ['dotted']);
  const outcomes = [
    { expected: 'A', top: 'A', score: 0.9 },
    { expected: 'B', top: 'B', score: 0.4 }, // below the threshold: not right
    { expected: null, top: 'Y', score: 0.3 }, // no hit: right
    {
      expected: null,
      top: 'P1',
      score: 0.5,
      candidates: [
        { id: 'P1', score: 0.5 },
        { id: 'P2', score: 0.45 },
        { id: 'X', score: 0.04 }, // not a namesake: not summed
      ],
    },
    {
      expected: null,
      top: 'P3',
      score: 0.8, // above 0.75: wrong
      candidates: [
        { id: 'P3', score: 0.8 },
        { id: 'P4', score: 0.1 },
      ],
    },
  ];
  const reports = evaluateKinds(labelled, outcomes, () => 0.5);
  assert.deepEqual(
    reports.map((r) => [r.kind, r.queries, r.right]),
    [
      ['dotted', 2, 1],
      ['absent', 1, 1],
      ['same-name', 2, 1],
    ],
  );
  assert.equal(reports[0].metrics?.recall, 0.5);
  assert.ok(Math.abs((reports[2].namesakes?.maxSum ?? 0) - 0.95) < 1e-12);
  assert.equal(reports[2].namesakes?.maxTop, 0.8);
  assert.equal(isRight(labelled[2], { expected: null, top: 'Y', score: 0.6 }, 0.5), false);
});
