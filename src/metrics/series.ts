/**
 * One labelled series of a prom-client counter or histogram, found once and then updated in
 * place. prom-client builds a hash string from the label object and validates it at every
 * `inc` and `observe` (its `labels()` children do too); an enhance request reports five such
 * calls on the main thread (~2.2 µs and five hash strings per request, measured with
 * bench/NOTES.md's issue 30 row). A series here is the metric's own record of those label
 * values (`hashMap`, what `Registry.metrics()` prints), so the printed text is exactly what
 * prom-client's own calls would give (`series.test.ts` checks it against them). When the record
 * cannot be found (another prom-client's internals) or the metric was reset, each call goes
 * through prom-client's public method instead.
 */
import type { Counter, Histogram, LabelValues } from 'prom-client';

/** prom-client's record of one histogram series. */
interface HistogramRecord {
  readonly labels: LabelValues<string>;
  sum: number;
  count: number;
  readonly bucketValues: Record<string, number>;
}

/** prom-client's record of one counter series. */
interface CounterRecord {
  readonly labels: LabelValues<string>;
  value: number;
}

/** The record map every prom-client metric keeps (replaced by `reset()`). */
interface Records<R> {
  readonly hashMap?: Record<string, R>;
  readonly labelNames?: readonly string[];
  readonly upperBounds?: readonly number[];
}

/** The record of `labels` in `metric`'s current map, if prom-client keeps one. */
function recordOf<R extends { labels: LabelValues<string> }>(
  metric: Records<R>,
  labels: LabelValues<string>,
): R | undefined {
  const names = metric.labelNames ?? [];
  return Object.values(metric.hashMap ?? {}).find((record) =>
    names.every((name) => String(record.labels[name]) === String(labels[name])),
  );
}

/** `histogram.observe(labels, value)`, the series found once. */
export class HistogramSeries {
  readonly #histogram: Histogram<string>;
  readonly #labels: LabelValues<string>;
  readonly #bounds: readonly number[];
  /** The bounds as the property names of `bucketValues` (a number key is converted at each use). */
  readonly #keys: readonly string[];
  #map: Record<string, HistogramRecord> | undefined;
  #record: HistogramRecord | undefined;

  constructor(histogram: Histogram<string>, labels: LabelValues<string>) {
    this.#histogram = histogram;
    this.#labels = labels;
    this.#bounds = (histogram as unknown as Records<HistogramRecord>).upperBounds ?? [];
    this.#keys = this.#bounds.map(String);
  }

  observe(value: number): void {
    const metric = this.#histogram as unknown as Records<HistogramRecord>;
    if (metric.hashMap !== this.#map || !this.#record) {
      // The first call, or after a reset: a series starts as prom-client's `zero` makes it.
      if (!recordOf(metric, this.#labels)) this.#histogram.zero(this.#labels);
      this.#map = metric.hashMap;
      this.#record = recordOf(metric, this.#labels);
    }
    const record = this.#record;
    if (!record || !Number.isFinite(value)) {
      this.#histogram.observe(this.#labels, value);
      return;
    }
    record.sum += value;
    record.count += 1;
    // The first bucket that holds it (prom-client's `findBound`); above all: +Inf, counted by `count`.
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        record.bucketValues[this.#keys[i]] += 1;
        break;
      }
    }
  }
}

/** `counter.inc(labels, by)`, the series found once. */
export class CounterSeries {
  readonly #counter: Counter<string>;
  readonly #labels: LabelValues<string>;
  #map: Record<string, CounterRecord> | undefined;
  #record: CounterRecord | undefined;

  constructor(counter: Counter<string>, labels: LabelValues<string>) {
    this.#counter = counter;
    this.#labels = labels;
  }

  inc(by = 1): void {
    const metric = this.#counter as unknown as Records<CounterRecord>;
    if (metric.hashMap !== this.#map || !this.#record) {
      this.#counter.inc(this.#labels, 0);
      this.#map = metric.hashMap;
      this.#record = recordOf(metric, this.#labels);
    }
    // What prom-client refuses (negative, not finite) goes to it, to be refused.
    if (!this.#record || !(by >= 0) || !Number.isFinite(by)) {
      this.#counter.inc(this.#labels, by);
      return;
    }
    this.#record.value += by;
  }
}
