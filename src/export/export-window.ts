/**
 * `from` / `size` / `head` of a download (docs/api.md#downloads): which records of
 * the job, by position, an export covers.
 */
import { InvalidParameterError } from '../errors.ts';
import type { ResultRecord } from './result-record.ts';

export interface ExportWindowOptions {
  /** Return the first n results; 0 (default) means no cap. */
  head?: number | string;
  /** 1-based index of the first result; 0 (default) and 1 both mean the first. */
  from?: number | string;
  /** Most results counted from `from`; -1 (default) means all. */
  size?: number | string;
}

/** Records `[offset, offset + limit)` of the job, by 0-based position. */
export interface ExportWindow {
  /** 0-based index of the first record. */
  readonly offset: number;
  /** Most records; `undefined` means up to the end. */
  readonly limit: number | undefined;
}

/**
 * Combines the parameters: `from`/`size` select a window first, then `head` caps it
 * (docs/api.md#downloads). Windowing is by position in the job; `onlyMatches` then filters inside
 * the window (so `head=10&onlyMatches=true` gives the matches among the first ten records).
 *
 * @throws InvalidParameterError naming `head`, `from` or `size` when not an integer in range
 *   (`head` ≥ 0, `from` ≥ 0, `size` ≥ -1).
 */
export function exportWindow(options: ExportWindowOptions = {}): ExportWindow {
  const head = integer(options.head, 'head', 0, 0);
  const from = integer(options.from, 'from', 0, 0);
  const size = integer(options.size, 'size', -1, -1);
  let limit = size === -1 ? undefined : size;
  if (head > 0) limit = limit === undefined ? head : Math.min(limit, head);
  return Object.freeze({ offset: Math.max(from - 1, 0), limit });
}

/** Yields the records of `records` (all of a job, in order) that fall in `window`. */
export async function* windowRecords(
  records: AsyncIterable<ResultRecord> | Iterable<ResultRecord>,
  window: ExportWindow,
): AsyncGenerator<ResultRecord> {
  if (window.limit === 0) return;
  const end = window.limit === undefined ? Number.POSITIVE_INFINITY : window.offset + window.limit;
  let position = 0;
  for await (const record of records) {
    if (position >= window.offset) yield record;
    position++;
    if (position >= end) return;
  }
}

function integer(
  value: number | string | undefined,
  parameter: string,
  fallback: number,
  min: number,
): number {
  if (value === undefined || value === '') return fallback;
  const number = typeof value === 'number' ? value : /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min) {
    throw new InvalidParameterError(
      parameter,
      `Invalid parameter '${parameter}': expected an integer ≥ ${min}, got '${value}'`,
    );
  }
  return number;
}
