import pino, { type Logger } from 'pino';

/**
 * The structured logger: JSON lines on stdout for the server, on stderr for CLI commands (so a
 * command's stdout stays machine-readable, e.g. `quarry token create`).
 */
export function createLogger(
  options: { level?: string; destination?: 'stdout' | 'stderr'; name?: string } = {},
): Logger {
  const fd = options.destination === 'stderr' ? 2 : 1;
  return pino(
    { level: options.level ?? 'info', name: options.name ?? 'quarry', base: { pid: process.pid } },
    pino.destination({ fd, sync: fd === 2 }),
  );
}

export type { Logger };
