/**
 * The issues' targets as the benchmarks measure them. Each benchmark prints one `target:` line
 * per target it measures, beside its own figures; `bench/run.ts` gathers them into a summary at
 * the end of the run, next to the machine's reference workload (bench/support/machine.ts): a
 * figure is only met or short on the machine it was measured on.
 */

/** The prefix of a target line (`run.ts` looks for it). */
export const TARGET_PREFIX = 'target: ';

export interface Target {
  /** What is measured, e.g. `import entities/s` (issue 2). */
  readonly name: string;
  readonly value: number;
  /** `min`: the value must be at least `limit`; `max`: at most. */
  readonly bound: 'min' | 'max';
  readonly limit: number;
  readonly unit: string;
}

function figure(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 3;
  return value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Whether `target` holds. */
export function isMet(target: Target): boolean {
  return target.bound === 'min' ? target.value >= target.limit : target.value <= target.limit;
}

/**
 * The target's line, e.g.
 * `target: import entities/s (issue 2): 36,557 entities/s (≥ 50,000 entities/s) short`.
 */
export function targetLine(target: Target): string {
  const sign = target.bound === 'min' ? '≥' : '≤';
  const unit = target.unit === '' ? '' : ` ${target.unit}`;
  return (
    `${TARGET_PREFIX}${target.name}: ${figure(target.value)}${unit} (${sign} ${figure(target.limit)}${unit}) ` +
    (isMet(target) ? 'met' : 'short')
  );
}

/** Prints the target's line (see `targetLine`). */
export function printTarget(target: Target): void {
  console.log(targetLine(target));
}
