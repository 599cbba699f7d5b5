import { InvalidArgumentError } from 'commander';

/** Parses a TCP port option (0–65535). */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('must be an integer between 0 and 65535');
  }
  return port;
}

/** Parses a non-negative integer option. */
export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

/** Parses a number in [0, 1]. */
export function parseUnitInterval(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
}
