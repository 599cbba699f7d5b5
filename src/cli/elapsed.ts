/**
 * A long step without progress of its own (the key pass of an import), shown as it runs: the
 * label and the seconds elapsed, redrawn each second on one line of stderr when it is a
 * terminal. Elsewhere (a log file, a pipe) nothing is drawn; the caller's summary says the rest.
 */
export async function withElapsed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const stream = process.stderr;
  if (!stream.isTTY) return work();
  const started = performance.now();
  const draw = () => stream.write(`\r${label} ${secondsSince(started)} s`);
  draw();
  const timer = setInterval(draw, 1000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    stream.write('\r\x1b[2K');
  }
}

/** The seconds since `started` (a `performance.now()` reading), for a phase label. */
export function secondsSince(started: number): number {
  return Math.floor((performance.now() - started) / 1000);
}
