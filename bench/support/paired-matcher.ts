/**
 * The in-process matcher's CPU per query on a server benchmark's own queries, timed just before
 * and just after the server's measured load: issue 30's ratios divide the server's CPU by it.
 *
 * Timed in the same minutes because a shared host's speed drifts: one closing run saw the same
 * code's matcher at 468 µs in the enhance benchmark and 703 µs in the next run, and a ratio
 * whose two sides were measured several minutes apart moved with that drift (bench/NOTES.md,
 * 2026-11-29). On the same queries because the enhance benchmark's own queries (noisy variants:
 * typos, more fields) are not the ones the HTTP and bulk benchmarks send.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchQuery } from './queries.ts';
import { FIGURES, parseFigureLine } from './targets.ts';

const SCRIPT = path.join(import.meta.dirname, '..', 'matcher-cpu.ts');

/** One timing of the matcher: whole process (V8's helper threads included) and its thread, µs/query. */
export interface MatcherTiming {
  readonly process: number;
  readonly thread: number;
}

/**
 * Times the matcher over `queries` (read as `source` reads them) in a process of its own on the
 * store in `dataDir`, opened read-only. Blocks until it is done (~10 s on 1M + 1M): the caller's
 * server sits idle meanwhile.
 */
export function timeMatcher(
  dataDir: string,
  queries: readonly BenchQuery[],
  source: 'post' | 'bulk-record',
  count = 8000,
): MatcherTiming {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-matcher-'));
  try {
    const file = path.join(dir, 'queries.jsonl');
    fs.writeFileSync(file, queries.map((q) => `${JSON.stringify(q)}\n`).join(''));
    const child = spawnSync(
      process.execPath,
      [SCRIPT, '--data', dataDir, '--queries-in', file, '--source', source, '--count', String(count)],
      { encoding: 'utf8', maxBuffer: 16 << 20 },
    );
    if (child.status !== 0) throw new Error(`matcher-cpu.ts failed (${child.status}): ${child.stderr}`);
    const figures = new Map<string, number>();
    for (const line of child.stdout.split('\n')) {
      const figure = parseFigureLine(line);
      if (figure) figures.set(figure.name, figure.value);
    }
    const whole = figures.get(FIGURES.matcherCpu);
    const thread = figures.get(FIGURES.matcherThreadCpu);
    if (whole === undefined || thread === undefined)
      throw new Error(`matcher-cpu.ts printed no figures: ${child.stdout}`);
    return { process: whole, thread };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The line that reports the two timings around a server's load, and their spread. */
export function describeTimings(before: MatcherTiming, after: MatcherTiming): string {
  const spread = Math.abs(after.process - before.process) / Math.min(before.process, after.process);
  return (
    `in-process matcher on the same queries (bench/matcher-cpu.ts, whole process; its thread): ` +
    `before ${before.process.toFixed(0)} (${before.thread.toFixed(0)}) µs, after ${after.process.toFixed(0)} ` +
    `(${after.thread.toFixed(0)}) µs per query, ${(100 * spread).toFixed(0)}% apart` +
    (spread > 0.15 ? ' (the host drifted during the load: distrust the ratio)' : '')
  );
}
