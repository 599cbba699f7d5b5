import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parse as parseCsv } from 'csv-parse';
import { loadClientConfig } from '../config.ts';
import { QUERY_RECORD_FIELDS } from '../kg/index.ts';
import { parseNonNegativeInt, parseUnitInterval } from './options.ts';

/**
 * `quarry bulk …`: bulk enhance jobs of a running server, over HTTP. The server is `--url`
 * (`QUARRY_URL`, default http://localhost:8080), the token `--token` (`QUARRY_TOKEN`).
 * Machine-readable results (a job id, a status record, a download) go to stdout; progress and
 * messages to stderr.
 */

interface Connection {
  readonly url: string;
  readonly token: string;
}

interface ConnectionOptions {
  url?: string;
  token?: string;
}

/** Query fields a bulk record may carry; CSV columns with these names map to them. */
const RECORD_FIELDS = QUERY_RECORD_FIELDS;

const FINAL = new Set(['COMPLETE', 'COMPLETE_WITH_FAILURES', 'STOPPED']);

class CliError extends Error {}

function connection(options: ConnectionOptions): Connection {
  const { url, token } = loadClientConfig(process.env, options);
  if (!token) throw new CliError('no token: pass --token or set QUARRY_TOKEN');
  return { url, token };
}

function endpoint(conn: Connection, suffix: string, params: Record<string, string | undefined> = {}): string {
  const url = new URL(`${conn.url}/kg/v3/enhance/bulk${suffix}`);
  url.searchParams.set('token', conn.token);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

async function request(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    // The body failed as it was read (a malformed input file): that is the error to report.
    const cause = (error as Error).cause;
    if (cause instanceof CliError) throw cause;
    throw new CliError(`cannot reach ${new URL(url).origin}: ${cause ?? (error as Error).message}`);
  }
  if (response.status >= 400) {
    const text = await response.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // Not JSON: show the text.
    }
    throw new CliError(`HTTP ${response.status}: ${message}`);
  }
  return response;
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const response = await request(url);
  return { status: response.status, body: (await response.json()) as T };
}

/** Parses `field=column,field=column` (`--map`). */
function parseMapping(value: string): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const pair of value.split(',')) {
    const [field, column] = pair.split('=').map((s) => s.trim());
    if (!field || !column) throw new InvalidArgumentError(`expected field=column, got "${pair}"`);
    if (!RECORD_FIELDS.includes(field)) {
      throw new InvalidArgumentError(`unknown field "${field}" (fields: ${RECORD_FIELDS.join(', ')})`);
    }
    mapping[field] = column;
  }
  return mapping;
}

interface SubmitOptions extends ConnectionOptions {
  name?: string;
  wait?: boolean;
  format?: 'jsonl' | 'json' | 'csv';
  type?: string;
  map?: Record<string, string>;
  size?: number;
  threshold?: number;
  webhook?: string;
  refresh?: boolean;
  search?: string;
}

/** The file's records as a stream of JSON-array text, never holding the whole file. */
async function* jsonArrayOf(file: string, format: 'jsonl' | 'json' | 'csv', options: SubmitOptions) {
  if (format === 'json') {
    yield* fs.createReadStream(file);
    return;
  }
  yield '[';
  let first = true;
  const emit = (text: string) => {
    const out = first ? text : `,\n${text}`;
    first = false;
    return out;
  };
  if (format === 'jsonl') {
    const lines = (await import('node:readline')).createInterface({
      input: fs.createReadStream(file),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let lineNo = 0;
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw new CliError(`${file}:${lineNo}: not JSON: ${(error as Error).message}`);
      }
      if (options.type && record && typeof record === 'object' && !('type' in record) && !('id' in record)) {
        (record as Record<string, unknown>).type = options.type;
      }
      yield emit(JSON.stringify(record));
    }
  } else {
    const parser = fs
      .createReadStream(file)
      .pipe(parseCsv({ columns: true, bom: true, skip_empty_lines: true }));
    const mapping = options.map ?? {};
    const rows = (async function* () {
      try {
        yield* parser as AsyncIterable<Record<string, string>>;
      } catch (error) {
        throw new CliError(`${file}: not valid CSV: ${(error as Error).message}`);
      }
    })();
    for await (const row of rows) {
      const record: Record<string, string> = {};
      for (const field of RECORD_FIELDS) {
        const column =
          mapping[field] ??
          Object.keys(row).find((name) => name.trim().toLowerCase() === field.toLowerCase());
        const value = column === undefined ? undefined : row[column]?.trim();
        if (value) record[field] = value;
      }
      if (!record.type && !record.id && options.type) record.type = options.type;
      yield emit(JSON.stringify(record));
    }
  }
  yield ']';
}

function formatOf(file: string, explicit?: string): 'jsonl' | 'json' | 'csv' {
  const format = explicit ?? path.extname(file).slice(1).toLowerCase();
  if (format === 'ndjson') return 'jsonl';
  if (format === 'jsonl' || format === 'json' || format === 'csv') return format;
  throw new CliError(`cannot tell the format of ${file}: use --format jsonl|json|csv`);
}

/** Polls the job and draws a progress bar on stderr until it reaches a final state. */
async function watch(conn: Connection, id: string): Promise<Record<string, unknown>> {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: ' {bar} {percentage}% | {value}/{total} records | {status}{pages} | ETA {eta_server}',
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 5_000,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  try {
    for (;;) {
      const { body } = await getJson<{ content: Record<string, unknown> }>(endpoint(conn, `/${id}/status`));
      const record = body.content;
      const total = Number(record.jobs_total);
      const fetchedPages = Number(record.pagesFetched ?? 0);
      const failedPages = Number(record.pagesFailed ?? 0);
      const payload = {
        status: record.status,
        pages:
          record.refresh === true || (record.search !== undefined && record.search !== 'OFF')
            ? ` | ${fetchedPages} pages fetched, ${failedPages} failed`
            : '',
        eta_server: record.estimate_remaining_time === null ? '-' : `${record.estimate_remaining_time}s`,
      };
      if (!started) {
        bar.start(total, Number(record.jobs_completed), payload);
        started = true;
      } else bar.update(Number(record.jobs_completed), payload);
      if (FINAL.has(String(record.status))) return record;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    bar.stop();
  }
}

async function submit(file: string, options: SubmitOptions): Promise<void> {
  const conn = connection(options);
  const format = formatOf(file, options.format);
  if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
  const params: Record<string, string | undefined> = {
    name: options.name ?? path.basename(file),
    size: options.size?.toString(),
    threshold: options.threshold?.toString(),
    webhookurl: options.webhook,
    refresh: options.refresh ? 'true' : undefined,
    search: options.search,
  };
  const body = Readable.from(jsonArrayOf(file, format, options));
  process.stderr.write(`submitting ${file} (${format}, ${fs.statSync(file).size} bytes) to ${conn.url}\n`);
  const response = await request(endpoint(conn, '', params), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Readable.toWeb(body) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const { job_id: id } = (await response.json()) as { job_id: string };
  process.stdout.write(`${id}\n`);
  if (!options.wait) return;
  const final = await watch(conn, id);
  process.stderr.write(`${final.message}\n`);
  if (final.status !== 'COMPLETE') process.exitCode = 2;
}

async function status(
  id: string | undefined,
  options: ConnectionOptions & { json?: boolean },
): Promise<void> {
  const conn = connection(options);
  if (id) {
    const { body } = await getJson<{ content: unknown }>(endpoint(conn, `/${id}/status`));
    process.stdout.write(`${JSON.stringify(body.content, null, 2)}\n`);
    return;
  }
  const { body: jobs } = await getJson<Record<string, unknown>[]>(endpoint(conn, '/status'));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`);
    return;
  }
  const rows = jobs.map((job) => [
    String(job.job_id),
    String(job.status),
    `${job.jobs_completed}/${job.jobs_total}`,
    new Date(Number(job.submit_time_ms)).toISOString(),
    String(job.name),
  ]);
  const header = ['JOB', 'STATUS', 'DONE', 'SUBMITTED', 'NAME'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  for (const row of [header, ...rows]) {
    process.stdout.write(
      `${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')}\n`,
    );
  }
}

interface DownloadOptions extends ConnectionOptions {
  format?: string;
  output?: string;
  exportspec?: string;
  exportseparator?: string;
  exportquery?: boolean;
  onlyMatches?: boolean;
  filter?: string;
  filterExclude?: string;
  head?: number;
  from?: number;
  size?: number;
}

async function download(id: string, options: DownloadOptions): Promise<void> {
  const conn = connection(options);
  const params: Record<string, string | undefined> = {
    format: options.format,
    exportspec: options.exportspec,
    exportseparator: options.exportseparator,
    exportquery: options.exportquery ? 'true' : undefined,
    onlyMatches: options.onlyMatches ? 'true' : undefined,
    filter: options.filter,
    filterExclude: options.filterExclude,
    head: options.head?.toString(),
    from: options.from?.toString(),
    size: options.size?.toString(),
    wait: '30',
  };
  for (;;) {
    const response = await request(endpoint(conn, `/${id}`, params));
    // 201 is "not ready" (a general error body), or a stopped job's file (with its report id).
    if (response.status === 201 && !response.headers.has('x-diffbot-reportid')) {
      const body = (await response.json()) as { message?: string };
      process.stderr.write(`${body.message ?? 'not ready'}; waiting…\n`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      continue;
    }
    const out = options.output ? fs.createWriteStream(options.output) : process.stdout;
    await pipeline(Readable.fromWeb(response.body! as never), out);
    const bytes = Number(response.headers.get('content-length'));
    process.stderr.write(
      `downloaded ${Number.isFinite(bytes) ? `${bytes} bytes` : ''}${options.output ? ` to ${options.output}` : ''}` +
        ` (report ${response.headers.get('x-diffbot-reportid')})\n`,
    );
    return;
  }
}

async function control(id: string, action: 'stop' | 'delete', options: ConnectionOptions): Promise<void> {
  const conn = connection(options);
  const response = await request(endpoint(conn, `/${id}/${action}`));
  if (action === 'delete') process.stderr.write(`deleted ${id}\n`);
  else process.stdout.write(`${JSON.stringify(await response.json())}\n`);
}

function withConnection(command: Command): Command {
  return command
    .option('--url <url>', 'server base URL (default: $QUARRY_URL or http://localhost:8080)')
    .option('--token <token>', 'API token (default: $QUARRY_TOKEN)');
}

/** Runs an action, turning expected failures into a message and exit code 1. */
function run<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      process.stderr.write(`quarry bulk: ${error.message}\n`);
      process.exitCode = 1;
    }
  };
}

/** Registers `quarry bulk submit|status|download|stop|delete`. */
export function registerBulk(program: Command): void {
  const bulk = program.command('bulk').description('bulk enhance jobs on a running server');

  withConnection(
    bulk
      .command('submit')
      .description('submit a file of queries (.jsonl, .json array, or .csv); prints the job id')
      .argument('<file>', 'the queries')
      .option('--name <name>', 'job name (default: the file name)')
      .option('--wait', 'wait for the job to finish, with a progress bar')
      .addOption(
        new Option('--format <format>', 'file format (default: from the extension)').choices([
          'jsonl',
          'json',
          'csv',
        ]),
      )
      .option('--type <type>', 'type of records that give none (Organization or Person)')
      .option(
        '--map <field=column,...>',
        'CSV: which column holds each field (default: same-named columns)',
        parseMapping,
      )
      .option('--size <n>', 'matches per record (1-100)', parseNonNegativeInt)
      .option('--threshold <x>', 'minimum score of a match (0-1)', parseUnitInterval)
      .option('--webhook <url>', 'URL to POST the job status to when it ends')
      .option('--refresh', "refetch each matched entity's origins and rebuild it from them")
      .addOption(
        new Option('--search <mode>', 'search the web per record (default OFF)')
          .choices(['ON', 'OFF', 'SEARCHONLY', 'FALLBACK'])
          .argParser((value: string) => {
            const mode = value.toUpperCase();
            if (!['ON', 'OFF', 'SEARCHONLY', 'FALLBACK'].includes(mode)) {
              throw new InvalidArgumentError('Allowed choices are ON, OFF, SEARCHONLY, FALLBACK.');
            }
            return mode;
          }),
      ),
  ).action(run(submit));

  withConnection(
    bulk
      .command('status')
      .description("a job's status record, or a table of the token's jobs")
      .argument('[id]', 'job id')
      .option('--json', 'the list as JSON'),
  ).action(run(status));

  withConnection(
    bulk
      .command('download')
      .description('download the results of a job')
      .argument('<id>', 'job id')
      .addOption(
        new Option('--format <format>', 'jsonl (default), json, csv, xls, xlsx').choices([
          'jsonl',
          'json',
          'csv',
          'xls',
          'xlsx',
        ]),
      )
      .option('-o, --output <file>', 'write to a file instead of stdout')
      .option('--exportspec <spec>', 'columns for csv/xls/xlsx')
      .option('--exportseparator <sep>', 'separator of list values')
      .option('--exportquery', 'prefix rows with the query fields')
      .option('--only-matches', 'only records with a match')
      .option('--filter <paths>', 'entity paths to keep')
      .option('--filter-exclude <paths>', 'entity paths to remove')
      .option('--head <n>', 'first n results', parseNonNegativeInt)
      .option('--from <n>', '1-based first result', parseNonNegativeInt)
      .option('--size <n>', 'most results from --from', parseNonNegativeInt),
  ).action(run(download));

  withConnection(bulk.command('stop').description('stop a job').argument('<id>', 'job id')).action(
    run((id: string, options: ConnectionOptions) => control(id, 'stop', options)),
  );
  withConnection(
    bulk.command('delete').description('delete a job and its results').argument('<id>', 'job id'),
  ).action(run((id: string, options: ConnectionOptions) => control(id, 'delete', options)));
}
