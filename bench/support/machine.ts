/**
 * What the benchmark figures were measured on: the CPU as the kernel names it, and the time of a
 * fixed single-thread reference workload. Machines of the same nominal size differ: the same
 * import ran at 31,000 entities/s on one 2-core machine and 24,000 on another. The reference time,
 * printed before and after a run, lets figures of different runs be compared (a slower reference
 * means a slower machine or a busier host) and shows whether the machine's speed changed during
 * the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Random } from '../../src/random.ts';

/** The CPU model with its family, model and stepping when /proc/cpuinfo tells them. */
export function cpuDescription(): string {
  const name = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  let info = '';
  try {
    info = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return name;
  }
  const field = (label: string) => new RegExp(`^${label}\\s*:\\s*(.+)$`, 'm').exec(info)?.[1]?.trim();
  const parts = [
    ['family', field('cpu family')],
    ['model', field('model')],
    ['stepping', field('stepping')],
  ].filter((part): part is [string, string] => part[1] !== undefined);
  return parts.length > 0 ? `${name} (${parts.map(([k, v]) => `${k} ${v}`).join(', ')})` : name;
}

/** Times of the reference workload over several rounds. */
export interface ReferenceTimes {
  readonly bestMs: number;
  readonly medianMs: number;
}

/**
 * Milliseconds of a fixed workload shaped like the import's (JSON text parsed, strings split and
 * folded, records serialised, a sort) over `rounds` rounds: the best (the machine's speed) and
 * the median (how much host noise there was). Same work on every machine and run; only the
 * times differ.
 */
export function referenceTimes(rounds = 9): ReferenceTimes {
  // Seeded: every run does the same work.
  const random = new Random(42);
  const words = Array.from({ length: 2_000 }, () => random.int(2 ** 40).toString(36));
  const lines = Array.from({ length: 20_000 }, (_, i) =>
    JSON.stringify({
      id: `REF-${i}`,
      type: 'Organization',
      name: `${words[i % 2_000]} ${words[(i * 7) % 2_000]} Ltd`,
      allNames: [`${words[i % 2_000]} ${words[(i * 7) % 2_000]} Ltd`],
      homepageUri: `${words[(i * 13) % 2_000]}.example`,
      location: { city: { name: words[i % 97] }, country: { name: words[i % 31] } },
      industries: [words[i % 11], words[i % 17]],
      nbEmployees: i,
    }),
  );
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const keys: string[] = [];
    for (const line of lines) {
      const record = JSON.parse(line) as { name: string; homepageUri: string; location: unknown };
      for (const token of record.name.toLowerCase().split(/[^a-z0-9]+/)) if (token !== '') keys.push(token);
      keys.push(JSON.stringify(record.location), record.homepageUri);
    }
    keys.sort();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { bestMs: times[0], medianMs: times[Math.floor(times.length / 2)] };
}

/** One line for a benchmark report: `reference workload 98 ms best, 120 ms median of 9 rounds`. */
export function describeReference(rounds = 9): string {
  const { bestMs, medianMs } = referenceTimes(rounds);
  return `reference workload ${bestMs.toFixed(0)} ms best, ${medianMs.toFixed(0)} ms median of ${rounds} rounds (one thread, lower is faster)`;
}
