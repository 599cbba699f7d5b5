/**
 * Import preparation, this working tree against a git ref, in one process: does a change keep
 * the prepared records byte-identical, and how much CPU per line does it save?
 *
 *   npx node bench/ab-prepare.ts --ref HEAD [--file LINES.jsonl | --lines 200000 --graph 1000000]
 *                                [--rounds 2]
 *
 * The ref is checked out in a temporary git worktree, and both `JobPreparer`s run over the same
 * blocks of 500 lines, alternating which goes first. Timing them side by side in one process is
 * what makes a change of a few percent measurable on a shared host, where one workload's time
 * varies by 1.5x from process to process (bench/support/machine.ts): separate runs cannot show
 * it. The ratio still moves between runs (by 2-4% on a noisy 2-core host): run it twice or more.
 * Without --file, the input is the first lines of the organizations and of the persons of the
 * seeded demo graph with --graph of each (generating it takes ~30 s).
 * Prints each side's thread CPU per line, their ratio, and whether a SHA-256 over every prepared
 * record and rejection is the same. Never fails on timing; exits 1 when the outputs differ.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DEMO_SEED, demoRecords } from '../src/kg/index.ts';
import type { PrepareJob, PrepareOptions } from '../src/import/record-preparer.ts';
import { JobPreparer } from '../src/import/record-preparer.ts';

const ROOT = path.join(import.meta.dirname, '..');
const BLOCK = 500;

const { values } = parseArgs({
  options: {
    ref: { type: 'string', default: 'HEAD' },
    file: { type: 'string' },
    lines: { type: 'string', default: '200000' },
    graph: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '2' },
  },
});
const rounds = Number(values.rounds);

function inputLines(): string[] {
  if (values.file) return fs.readFileSync(values.file, 'utf8').split('\n');
  const half = Math.floor(Number(values.lines) / 2);
  const size = Number(values.graph);
  // The first lines of each half of the seeded demo graph at `npm run bench`'s size. A smaller
  // graph is not the same input: its hosts and employers all fit the normalisers' memos.
  const lines: string[] = [];
  let persons = 0;
  for (const record of demoRecords({ organizations: size, persons: size, seed: DEFAULT_DEMO_SEED })) {
    if (record.type === 'Person') {
      if (persons++ === half) break;
      lines.push(JSON.stringify(record));
    } else if (lines.length < half) {
      lines.push(JSON.stringify(record));
    }
  }
  return lines;
}

interface Side {
  readonly name: string;
  readonly preparer: { prepare(job: PrepareJob): ReturnType<JobPreparer['prepare']> };
  readonly hash: ReturnType<typeof createHash>;
  cpuMicros: number;
}

const worktree = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ab-'));
execFileSync('git', ['worktree', 'add', '--detach', worktree, values.ref], { cwd: ROOT, stdio: 'ignore' });
try {
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  const commit = execFileSync('git', ['rev-parse', '--short', values.ref], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const refModule = (await import(path.join(worktree, 'src/import/record-preparer.ts'))) as {
    JobPreparer: typeof JobPreparer;
  };
  const options: PrepareOptions = { format: 'jsonl', fileName: 'ab.jsonl' };
  const sides: Side[] = [
    {
      name: `ref ${commit}`,
      preparer: new refModule.JobPreparer(options),
      hash: createHash('sha256'),
      cpuMicros: 0,
    },
    { name: 'working tree', preparer: new JobPreparer(options), hash: createHash('sha256'), cpuMicros: 0 },
  ];
  const lines = inputLines();
  console.log(
    `ab-prepare: ${lines.length} lines (${values.file ?? 'demo graph'}), ${rounds} rounds, blocks of ${BLOCK}`,
  );
  for (let round = 0; round < rounds; round++) {
    for (let start = 0; start < lines.length; start += BLOCK) {
      const job: PrepareJob = {
        lines: lines.slice(start, start + BLOCK).map((text, i) => ({ line: start + i + 1, text })),
        header: undefined,
      };
      const order = (start / BLOCK + round) % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const before = process.threadCpuUsage();
        const chunk = side.preparer.prepare(job);
        const used = process.threadCpuUsage(before);
        side.cpuMicros += used.user + used.system;
        if (round === 0) {
          for (const record of chunk.prepared) side.hash.update(JSON.stringify(record));
          for (const reject of chunk.rejects) side.hash.update(JSON.stringify(reject));
        }
      }
    }
  }
  const perLine = (side: Side) => side.cpuMicros / (lines.length * rounds);
  const digests = sides.map((side) => side.hash.digest('hex'));
  for (const [i, side] of sides.entries()) {
    console.log(
      `  ${side.name.padEnd(14)} ${perLine(side).toFixed(2)} µs CPU per line   sha256 ${digests[i].slice(0, 16)}…`,
    );
  }
  console.log(`  working tree / ref: ${(perLine(sides[1]) / perLine(sides[0])).toFixed(3)}`);
  const same = digests[0] === digests[1];
  console.log(`  prepared records: ${same ? 'byte-identical' : 'DIFFERENT'}`);
  if (!same) process.exitCode = 1;
} finally {
  execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
}
