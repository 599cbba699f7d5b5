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

/** The prefix of a figure line: a value that `run.ts` relates to another benchmark's. */
export const FIGURE_PREFIX = 'figure: ';

/** A figure another benchmark of the same run is compared with (`run.ts`, `crossTargets`). */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
}

/** The figure's line, e.g. `figure: matcher CPU per query = 403.2 µs`. */
export function figureLine(f: Figure): string {
  return `${FIGURE_PREFIX}${f.name} = ${f.value} ${f.unit}`;
}

/** Reads a figure line back (undefined when `line` is not one). */
export function parseFigureLine(line: string): Figure | undefined {
  const match = /^figure: (.+) = (-?[\d.]+(?:e[-+]?\d+)?) (.*)$/.exec(line);
  if (!match) return undefined;
  return { name: match[1], value: Number(match[2]), unit: match[3] };
}

/** Prints the figure's line (see `figureLine`). */
export function printFigure(f: Figure): void {
  console.log(figureLine(f));
}

/** Figure names shared by the benchmarks that print them and those that read them. */
export const FIGURES = {
  /** The in-process matcher's whole process (its thread and V8's helper threads), as the servers'. */
  matcherCpu: 'matcher CPU per query',
  /** The matching thread's alone (`bench/matcher-cpu.ts`). */
  matcherThreadCpu: 'matcher thread CPU per query',
} as const;

/**
 * Issue 30's two ratios: a server's CPU per HTTP enhance (≤ 1.3×) or per bulk record (≤ 1×)
 * over the in-process matcher's CPU per query on the same queries, the matcher timed just before
 * and just after the server's load (`matcherTimings`, their mean: bench/support/paired-matcher.ts).
 * Both sides count a whole process's threads, V8's helpers included.
 */
export function matcherRatio(
  of: 'http' | 'bulk',
  serverCpu: number,
  matcherTimings: readonly number[],
): Target {
  if (matcherTimings.length === 0) throw new Error('matcherRatio needs at least one matcher timing');
  const matcher = matcherTimings.reduce((sum, t) => sum + t, 0) / matcherTimings.length;
  return of === 'http'
    ? {
        name: 'HTTP enhance server CPU / in-process matcher CPU, same queries (issue 30)',
        value: serverCpu / matcher,
        bound: 'max',
        limit: 1.3,
        unit: '×',
      }
    : {
        name: 'bulk server CPU per record / in-process matcher CPU per query, same queries (issue 30)',
        value: serverCpu / matcher,
        bound: 'max',
        limit: 1,
        unit: '×',
      };
}
