/**
 * Where a server's CPU goes, by thread name: read from /proc before and after a measured phase.
 */
import fs from 'node:fs';

/**
 * `count(taskDir)` summed over the threads of process `pid` by thread name (threads alive now;
 * none once it ended). A thread that ends meanwhile is left out.
 */
function sumByThreadName(
  pid: number,
  count: (taskDir: string) => { name: string; value: number },
): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const { name, value } = count(`/proc/${pid}/task/${task}`);
      byName.set(name, (byName.get(name) ?? 0) + value);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** CPU seconds of each thread name of process `pid`, from /proc. */
export function threadCpu(pid: number): Map<string, number> {
  return sumByThreadName(pid, (taskDir) => {
    const stat = fs.readFileSync(`${taskDir}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      value: (Number(fields[11]) + Number(fields[12])) / 100,
    };
  });
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
  return sumByThreadName(pid, (taskDir) => ({
    name: fs.readFileSync(`${taskDir}/comm`, 'utf8').trim(),
    value: Number(/^syscr: (\d+)/m.exec(fs.readFileSync(`${taskDir}/io`, 'utf8'))?.[1] ?? 0),
  }));
}

/** The read calls each thread name made from `before` to `after`, per `units` (threads that made none left out). */
export function readCallsPer(before: Map<string, number>, after: Map<string, number>, units: number): string {
  return [...cpuGrowth(before, after)]
    .filter(([, calls]) => calls > 0)
    .map(([name, calls]) => `${name} ${(calls / Math.max(1, units)).toFixed(2)}`)
    .join(', ');
}
