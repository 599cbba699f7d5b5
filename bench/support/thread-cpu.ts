/**
 * Where a server's CPU goes, by thread name: read from /proc before and after a measured phase.
 */
import fs from 'node:fs';

/** CPU seconds of each thread name of process `pid` (threads alive now; none once it ended), from /proc. */
export function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** What each name's CPU seconds grew by from `before` to `after` (a name new in `after` from 0). */
export function cpuGrowth(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const growth = new Map<string, number>();
  for (const [name, cpu] of after) growth.set(name, cpu - (before.get(name) ?? 0));
  return growth;
}

/**
 * Read system calls (`read`, `pread64`, …: /proc's `syscr`) of each thread name of process `pid`
 * so far: a count the machine's load does not move (on SQLite, the page reads that missed the
 * connection's page cache).
 */
export function threadReadCalls(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const name = fs.readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      const io = fs.readFileSync(`/proc/${pid}/task/${task}/io`, 'utf8');
      const calls = Number(/^syscr: (\d+)/m.exec(io)?.[1] ?? 0);
      byName.set(name, (byName.get(name) ?? 0) + calls);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}
