import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FIGURES,
  figureLine,
  isMet,
  matcherRatio,
  parseFigureLine,
  TARGET_PREFIX,
  targetLine,
} from '../bench/support/targets.ts';

test('bench targets: a lower bound is met at or above it, an upper bound at or below it', () => {
  const base = { name: 'x', unit: 'u' } as const;
  assert.equal(isMet({ ...base, value: 50_000, bound: 'min', limit: 50_000 }), true);
  assert.equal(isMet({ ...base, value: 49_999.5, bound: 'min', limit: 50_000 }), false);
  assert.equal(isMet({ ...base, value: 5, bound: 'max', limit: 5 }), true);
  assert.equal(isMet({ ...base, value: 5.01, bound: 'max', limit: 5 }), false);
});

test('bench targets: the line names the figure, the bound and the verdict, after the prefix run.ts looks for', () => {
  assert.equal(
    targetLine({
      name: 'import entities/s (issue 2)',
      value: 36557.4,
      bound: 'min',
      limit: 50_000,
      unit: 'entities/s',
    }),
    `${TARGET_PREFIX}import entities/s (issue 2): 36,557 entities/s (≥ 50,000 entities/s) short`,
  );
  assert.equal(
    targetLine({
      name: 'enhance in-process p99 (issue 2)',
      value: 1.0114,
      bound: 'max',
      limit: 5,
      unit: 'ms',
    }),
    `${TARGET_PREFIX}enhance in-process p99 (issue 2): 1.011 ms (≤ 5 ms) met`,
  );
  assert.equal(
    targetLine({ name: 'crawl RSS growth (issue 5)', value: 29.84, bound: 'max', limit: 100, unit: 'MiB' }),
    `${TARGET_PREFIX}crawl RSS growth (issue 5): 29.8 MiB (≤ 100 MiB) met`,
  );
});

test('bench figures: a figure line reads back as printed, and other lines are not figures', () => {
  const line = figureLine({ name: FIGURES.matcherCpu, value: 403.2, unit: 'µs' });
  assert.equal(line, 'figure: matcher CPU per query = 403.2 µs');
  assert.deepEqual(parseFigureLine(line), { name: FIGURES.matcherCpu, value: 403.2, unit: 'µs' });
  assert.equal(parseFigureLine('target: x: 1 ms (≤ 2 ms) met'), undefined);
  assert.equal(parseFigureLine('figure: no value here'), undefined);
});

test("bench figures: issue 30 divides a server's CPU by the mean of the matcher timed around it", () => {
  const http = matcherRatio('http', 1260, [380, 420]);
  assert.equal(http.value, 3.15);
  assert.equal(http.limit, 1.3);
  assert.equal(isMet(http), false);
  const bulk = matcherRatio('bulk', 380, [400]);
  assert.equal(bulk.value, 0.95);
  assert.equal(isMet(bulk), true);
  assert.equal(isMet(matcherRatio('bulk', 401, [400])), false);
  assert.throws(() => matcherRatio('http', 500, []), /at least one matcher timing/);
});
