import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadClientConfig } from '../config.ts';

/** Where the server is and who is asking (`--url`/`QUARRY_URL`, `--token`/`QUARRY_TOKEN`). */
interface Connection {
  readonly base: string;
  readonly token: string;
}

interface GlobalOptions {
  url?: string;
  token?: string;
}

function connection(command: Command): Connection {
  const options = command.optsWithGlobals<GlobalOptions>();
  const { url: base, token } = loadClientConfig(process.env, options);
  if (!token) throw new InvalidArgumentError('a token is required: --token or QUARRY_TOKEN');
  return { base, token };
}

/** Sends a request; on an error answer, throws with the server's message. */
async function call(conn: Connection, path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${conn.base}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${conn.token}`, ...(init.headers ?? {}) },
    });
  } catch (error) {
    throw new Error(`cannot reach ${conn.base}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  if (!response.ok) {
    const text = await response.text();
    let message = text;
    try {
      const body = JSON.parse(text) as { error?: string; errorCode?: number };
      if (body.error) message = `${body.error} (errorCode ${body.errorCode}, HTTP ${response.status})`;
    } catch {
      // not JSON: print the text as is
    }
    throw new Error(message);
  }
  return response;
}

async function printJson(response: Response): Promise<void> {
  process.stdout.write(`${JSON.stringify(await response.json(), null, 2)}\n`);
}

function control(conn: Connection, name: string, action: Record<string, string>): Promise<Response> {
  const query = new URLSearchParams({ name, ...action });
  return call(conn, `/v3/bulk?${query.toString()}`);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function readUrls(options: { urls?: string; urlsFile?: string }): string {
  const parts: string[] = [];
  if (options.urls) parts.push(options.urls);
  if (options.urlsFile) parts.push(fs.readFileSync(options.urlsFile === '-' ? 0 : options.urlsFile, 'utf8'));
  const text = parts.join(' ').split(/\s+/).filter(Boolean).join(' ');
  if (text === '') throw new InvalidArgumentError('give the URLs with --urls or --urls-file');
  return text;
}

interface CreateOptions {
  apiUrl: string;
  urls?: string;
  urlsFile?: string;
  header?: string[];
  notifyWebhook?: string;
  obeyRobots?: string;
  repeat?: string;
  maxRounds?: string;
  pageProcessPattern?: string;
  crawlDelay?: string;
  kgIngest?: boolean;
}

/**
 * `quarry extract-job create|status|pause|resume|restart|delete|download`: bulk extract jobs of
 * a running server, over HTTP (`--url`/`QUARRY_URL`, default http://localhost:8080;
 * `--token`/`QUARRY_TOKEN`). Answers are printed as JSON on stdout; errors on stderr with a
 * non-zero exit code.
 */
export function registerExtractJob(program: Command): void {
  const job = program
    .command('extract-job')
    .description('create and control bulk extract jobs on a running server')
    .option('--url <base>', 'server base URL (default: $QUARRY_URL or http://localhost:8080)')
    .option('--token <token>', 'API token (default: $QUARRY_TOKEN)');
  registerCreate(job);
  registerStatus(job);
  registerControls(job);
  registerDownload(job);
}

/** `extract-job create NAME --api-url API --urls …`. */
function registerCreate(job: Command): void {
  job
    .command('create')
    .description('create a job that extracts every URL with an extraction API')
    .argument('<name>', 'job name (letters, digits, _ and -)')
    .requiredOption('--api-url <api>', 'extraction API, e.g. /v3/article or /v3/<custom API>')
    .option('--urls <urls>', 'space-separated URLs')
    .option('--urls-file <file>', 'file with URLs separated by spaces or lines (- for stdin)')
    .option('--header <Name:Value>', 'custom request header (repeatable)', collect)
    .option('--notify-webhook <url>', 'URL POSTed the job record at the end of each round')
    .option('--obey-robots <0|1>', 'obey robots.txt (default 1)')
    .option('--repeat <days>', 'days between rounds (fractions allowed)')
    .option('--max-rounds <n>', 'rounds at most (0 = one round, -1 = unlimited)')
    .option('--page-process-pattern <p>', '||-separated substrings a URL must contain to be processed')
    .option('--crawl-delay <seconds>', 'seconds between fetches on one host (default 0.25)')
    .option('--kg-ingest', 'merge extracted organizations and people into the knowledge graph')
    .action(createJob);
}

/** Posts the creation form of `create` and prints the answer. */
async function createJob(name: string, options: CreateOptions, command: Command): Promise<void> {
  const conn = connection(command);
  const form = new URLSearchParams({ name, apiUrl: options.apiUrl, urls: readUrls(options) });
  for (const header of options.header ?? []) form.append('customHeaders', header);
  const optional: Array<[string, string | undefined]> = [
    ['notifyWebhook', options.notifyWebhook],
    ['obeyRobots', options.obeyRobots],
    ['repeat', options.repeat],
    ['maxRounds', options.maxRounds],
    ['pageProcessPattern', options.pageProcessPattern],
    ['crawlDelay', options.crawlDelay],
    ['kgIngest', options.kgIngest ? '1' : undefined],
  ];
  for (const [key, value] of optional) if (value !== undefined) form.set(key, value);
  await printJson(
    await call(conn, '/v3/bulk', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    }),
  );
}

/** `extract-job status [NAME]`. */
function registerStatus(job: Command): void {
  job
    .command('status')
    .description('show one job, or list every job of the token')
    .argument('[name]', 'job name')
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const conn = connection(command);
      const query = name ? `?${new URLSearchParams({ name }).toString()}` : '';
      await printJson(await call(conn, `/v3/bulk${query}`));
    });
}

/** `extract-job pause|resume|restart|delete NAME`. */
function registerControls(job: Command): void {
  const actions: Array<[string, string, Record<string, string>]> = [
    ['pause', 'stop fetching (in-flight fetches finish)', { pause: '1' }],
    ['resume', 'continue a paused job with what is left', { pause: '0' }],
    ['restart', 'erase results and counters and process every URL again', { restart: '1' }],
    ['delete', 'delete the job and all its data', { delete: '1' }],
  ];
  for (const [verb, description, action] of actions) {
    job
      .command(verb)
      .description(description)
      .argument('<name>', 'job name')
      .action(async (name: string, _options: unknown, command: Command) => {
        await printJson(await control(connection(command), name, action));
      });
  }
}

/** `extract-job download NAME [--format json|csv] [--report] [--output FILE]`. */
function registerDownload(job: Command): void {
  job
    .command('download')
    .description('download the extracted objects (or the per-URL report with --report)')
    .argument('<name>', 'job name')
    .option('--format <format>', 'json or csv', 'json')
    .option('--report', 'the per-URL report instead of the objects')
    .option('--output <file>', 'write to a file instead of stdout')
    .action(
      async (
        name: string,
        options: { format: string; report?: boolean; output?: string },
        command: Command,
      ) => {
        const conn = connection(command);
        const query = new URLSearchParams({ name, format: options.format });
        if (options.report) query.set('type', 'urls');
        const response = await call(conn, `/v3/bulk/data?${query.toString()}`);
        if (!response.body) return;
        const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
        if (options.output) await pipeline(body, fs.createWriteStream(options.output));
        else await pipeline(body, process.stdout, { end: false });
      },
    );
}
