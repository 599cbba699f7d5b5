import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { CounterSeries, HistogramSeries } from './series.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A registry with one counter and one histogram, as `MetricsRegistry` declares them. */
function metrics() {
  const registry = new Registry();
  const counter = new Counter({
    name: 'c_total',
    help: 'c',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'h_seconds',
    help: 'h',
    labelNames: ['route'],
    buckets: BUCKETS,
    registers: [registry],
  });
  return { registry, counter, histogram };
}

/** Deterministic values: on bucket bounds, between them, above all of them, zero. */
function values(count: number): number[] {
  let seed = 7;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const pick = seed % 4;
    out.push(
      pick === 0
        ? BUCKETS[seed % BUCKETS.length]
        : pick === 1
          ? 0
          : pick === 2
            ? 40 + (seed % 9)
            : (seed % 3000) / 97,
    );
  }
  return out;
}

test('series print exactly what prom-client’s own inc and observe print', async () => {
  const own = metrics();
  const ours = metrics();
  // A series observed through prom-client before its series object is made keeps its counts.
  own.histogram.observe({ route: '/a' }, 0.3);
  ours.histogram.observe({ route: '/a' }, 0.3);
  const series = {
    a: new HistogramSeries(ours.histogram, { route: '/a' }),
    b: new HistogramSeries(ours.histogram, { route: '/b' }),
    ok: new CounterSeries(ours.counter, { method: 'GET', status: '200' }),
    bad: new CounterSeries(ours.counter, { method: 'GET', status: '400' }),
  };
  values(2000).forEach((value, i) => {
    const route = i % 3 === 0 ? '/b' : '/a';
    own.histogram.observe({ route }, value);
    series[route === '/a' ? 'a' : 'b'].observe(value);
    const status = i % 5 === 0 ? '400' : '200';
    own.counter.inc({ method: 'GET', status }, i % 4);
    series[status === '200' ? 'ok' : 'bad'].inc(i % 4);
  });
  own.counter.inc({ method: 'GET', status: '200' });
  series.ok.inc();
  assert.equal(await ours.registry.metrics(), await own.registry.metrics());
});

test('after a reset, series count from zero as prom-client does', async () => {
  const own = metrics();
  const ours = metrics();
  const histogram = new HistogramSeries(ours.histogram, { route: '/a' });
  const counter = new CounterSeries(ours.counter, { method: 'POST', status: '201' });
  histogram.observe(0.2);
  counter.inc(3);
  ours.registry.resetMetrics();
  own.histogram.observe({ route: '/a' }, 7);
  histogram.observe(7);
  own.counter.inc({ method: 'POST', status: '201' }, 2);
  counter.inc(2);
  assert.equal(await ours.registry.metrics(), await own.registry.metrics());
});

test('what prom-client refuses, a series refuses the same way', () => {
  const { histogram, counter } = metrics();
  const h = new HistogramSeries(histogram, { route: '/a' });
  const c = new CounterSeries(counter, { method: 'GET', status: '200' });
  assert.throws(() => h.observe(Number.NaN), TypeError);
  assert.throws(() => c.inc(-1), /decrease/);
  assert.throws(() => c.inc(Number.POSITIVE_INFINITY), TypeError);
});
