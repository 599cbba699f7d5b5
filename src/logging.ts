import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Token secrets in a log line, wherever they are: a `token=` query parameter (request URLs,
 * download links, fetch errors), a `"token":"…"` field, an `Authorization: Bearer …` value.
 */
const SECRETS: readonly [RegExp, string][] = [
  [/([?&;]token=)[^&#\s"\\]+/gi, '$1[REDACTED]'],
  [/("token"\s*:\s*")(?:[^"\\]|\\.)+"/gi, '$1[REDACTED]"'],
  [/(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[REDACTED]'],
];

/** `line` with every token secret replaced by `[REDACTED]`. */
export function redactSecrets(line: string): string {
  // Most lines carry none: one cheap test before the replacements.
  if (!/token|bearer/i.test(line)) return line;
  let out = line;
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * The structured logger: JSON lines on stdout for the server, on stderr for CLI commands (so a
 * command's stdout stays machine-readable, e.g. `quarry token create`). Token secrets never
 * reach a log line (`redactSecrets`). `stream` replaces the destination (tests).
 */
export function createLogger(
  options: {
    level?: string;
    destination?: 'stdout' | 'stderr';
    name?: string;
    stream?: DestinationStream;
  } = {},
): Logger {
  const fd = options.destination === 'stderr' ? 2 : 1;
  const target = options.stream ?? pino.destination({ fd, sync: fd === 2 });
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name ?? 'quarry',
      base: { pid: process.pid },
      hooks: { streamWrite: redactSecrets },
    },
    target,
  );
}

export type { Logger };
