/**
 * Downloads of a bulk extract job (docs/api.md#job-data): the extracted objects as a JSON array or
 * CSV, and the per-URL report. Both are streamed from the store in pages of rows, so a job of
 * any size is exported in constant memory.
 */
import { Readable } from 'node:stream';
import type { CrawlJobStore, CrawlUrlReport } from '../storage/index.ts';
import { csvText } from '../export/index.ts';

/** Rows read from the store per page. */
const PAGE = 500;
/** Columns that lead a CSV of objects when present, in this order. */
const LEADING_COLUMNS = ['pageUrl', 'resolvedPageUrl', 'type', 'timestamp'];
/** Columns of the per-URL report. */
export const URL_REPORT_COLUMNS = [
  'url',
  'status',
  'httpStatus',
  'attempts',
  'error',
  'resolvedPageUrl',
  'objects',
  'finishedAt',
] as const;

export type ExportFormat = 'json' | 'csv';

/** One line of the per-URL report as downloaded. */
export function urlReportLine(line: CrawlUrlReport): Record<(typeof URL_REPORT_COLUMNS)[number], unknown> {
  return {
    url: line.url,
    // What happened to the URL in the current round; `pending`/`in_progress` until it is done.
    status: line.outcome ?? line.state,
    httpStatus: line.httpStatus,
    attempts: line.attempts,
    error: line.error,
    resolvedPageUrl: line.finalUrl,
    objects: line.objects,
    finishedAt: line.finishedAt,
  };
}

async function* objectPages(
  store: CrawlJobStore,
  jobId: number,
): AsyncGenerator<Array<{ id: number; doc: string }>> {
  let after = 0;
  for (;;) {
    const page = await store.listObjects(jobId, after, PAGE);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1].id;
  }
}

async function* urlPages(store: CrawlJobStore, jobId: number): AsyncGenerator<CrawlUrlReport[]> {
  let after = -1;
  for (;;) {
    const page = await store.listUrls(jobId, after, PAGE);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1].seq;
  }
}

/** A CSV cell: scalars as text, lists of scalars joined with `;`, anything else as JSON. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) {
    return value.map((item) => (item === null ? '' : String(item))).join(';');
  }
  return JSON.stringify(value);
}

async function* jsonArray(pages: AsyncIterable<string[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const items of pages) {
    if (items.length === 0) continue;
    yield (first ? '\n' : ',\n') + items.join(',\n');
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}

/** The job's objects, in extraction order: a JSON array, or CSV with one column per field. */
export function exportObjects(store: CrawlJobStore, jobId: number, format: ExportFormat): Readable {
  if (format === 'json') {
    return Readable.from(jsonArray(mapPages(objectPages(store, jobId), (row) => row.doc)));
  }
  return Readable.from(objectsCsv(store, jobId));
}

async function* mapPages<T, U>(pages: AsyncIterable<T[]>, map: (item: T) => U): AsyncGenerator<U[]> {
  for await (const page of pages) yield page.map(map);
}

async function* objectsCsv(store: CrawlJobStore, jobId: number): AsyncGenerator<string> {
  // First pass: the columns (objects of different types have different fields).
  const seen = new Set<string>();
  for await (const page of objectPages(store, jobId)) {
    for (const row of page) for (const key of Object.keys(JSON.parse(row.doc))) seen.add(key);
  }
  const columns = [
    ...LEADING_COLUMNS.filter((column) => seen.has(column)),
    ...[...seen].filter((column) => !LEADING_COLUMNS.includes(column)),
  ];
  yield csvText([columns]);
  for await (const page of objectPages(store, jobId)) {
    const rows = page.map((row) => {
      const object = JSON.parse(row.doc) as Record<string, unknown>;
      return columns.map((column) => csvCell(object[column]));
    });
    yield csvText(rows);
  }
}

/** The per-URL report, in submitted order, as a JSON array or CSV. */
export function exportUrlReport(store: CrawlJobStore, jobId: number, format: ExportFormat): Readable {
  if (format === 'json') {
    return Readable.from(
      jsonArray(mapPages(urlPages(store, jobId), (line) => JSON.stringify(urlReportLine(line)))),
    );
  }
  return Readable.from(
    (async function* () {
      yield csvText([[...URL_REPORT_COLUMNS]]);
      for await (const page of urlPages(store, jobId)) {
        yield csvText(
          page.map((line) => {
            const out = urlReportLine(line);
            return URL_REPORT_COLUMNS.map((column) => csvCell(out[column]));
          }),
        );
      }
    })(),
  );
}
