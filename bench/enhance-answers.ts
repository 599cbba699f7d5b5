/**
 * Every answer of the four dev sets, as a real server sends it: for checking that a change to
 * the serving path (HTTP, threads, charging, bulk, downloads) leaves each answer byte-identical.
 *
 *   npx node bench/enhance-answers.ts --out DIR [--data DIR] [--concurrency 8] [--store sqlite|postgres]
 *     [--mask-kgversion]
 *
 * Imports the four KG files of ../shared/bench in `npm run fit`'s order into `--data` (a fresh
 * temporary directory unless given one that holds them already), starts `quarry serve` over it,
 * and writes to `--out`: each dev query's `GET /kg/v3/enhance` body (one line each, in order),
 * its `POST` body, the `combine` body of every Person query, a bulk job of all queries downloaded
 * as JSON Lines and as CSV (the job id replaced by `JOB`), and the credits left on a token with a
 * finite balance that paid for all of it. Prints a SHA-256 per file: compare two runs with
 * `diff -r` or the digests. `--store postgres` serves the same graph from a fresh PostgreSQL
 * database (bench/support/store.ts), so the answers of the two stores compare the same way;
 * each store names its graph version differently, so `--mask-kgversion` writes every `kgversion`
 * as `KG` for that comparison (leave it off to compare runs on one store, version included).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hashSecret } from '../src/accounts/index.ts';
import { openStorage, storeLocator } from '../src/storage/index.ts';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { type BenchQuery, toQueryString } from './support/queries.ts';
import { quarryCli, startServer } from './support/server.ts';
import { openBenchStore, parseStoreKind } from './support/store.ts';

const SETS = ['organizations', 'persons', 'historical', 'febrl'];
const SHARED = path.join(import.meta.dirname, '..', '..', 'shared', 'bench');
/** The token's starting balance: more than every answer together costs. */
const CREDITS = 10_000_000;

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    data: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    store: { type: 'string', default: 'sqlite' },
    'mask-kgversion': { type: 'boolean', default: false },
  },
});
if (!values.out) throw new Error('--out DIR is required');
const outDir = values.out;
fs.mkdirSync(outDir, { recursive: true });

const dataDir = values.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-answers-'));
if (!fs.existsSync(sqliteFileFor(dataDir))) {
  console.error(`importing the four KG files into ${dataDir} …`);
  quarryCli(['import', ...SETS.map((set) => path.join(SHARED, `kg-${set}.jsonl`))], dataDir);
}
const queries: BenchQuery[] = SETS.flatMap((set) =>
  fs
    .readFileSync(path.join(SHARED, `queries-${set}.dev.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { query: BenchQuery }).query),
);
const store = await openBenchStore(parseStoreKind(values.store), dataDir);
const token = quarryCli(['token', 'create', '--credits', String(CREDITS)], dataDir, store.env).trim();

/** Runs `fn` over `items` with `concurrency` at a time; the results in the items' order. */
async function inOrder<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, lane));
  return results;
}

/** A response as one line: its status and its body as sent. */
async function line(response: Response): Promise<string> {
  return `${response.status} ${(await response.text()).replaceAll('\n', '\\n')}\n`;
}

function write(name: string, written: string): void {
  const text = values['mask-kgversion']
    ? written.replaceAll(/"kgversion":"[^"]*"/g, '"kgversion":"KG"')
    : written;
  fs.writeFileSync(path.join(outDir, name), text);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  console.log(`${name.padEnd(20)} ${digest}  (${text.length} bytes)`);
}

const server = await startServer(dataDir, { env: store.env });
try {
  const url = server.url;
  const get = await inOrder(queries, async (q) =>
    line(await fetch(`${url}/kg/v3/enhance?${toQueryString(q)}&token=${token}`)),
  );
  write('enhance-get.txt', get.join(''));
  const post = await inOrder(queries, async (q) =>
    line(
      await fetch(`${url}/kg/v3/enhance?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(q),
      }),
    ),
  );
  write('enhance-post.txt', post.join(''));
  const persons = queries.filter((q) => q.type === 'Person');
  const combine = await inOrder(persons, async (q) =>
    line(await fetch(`${url}/kg/v3/enhance/combine?${toQueryString(q)}&token=${token}`)),
  );
  write('combine.txt', combine.join(''));

  const records = queries.map((q, i) => ({ ...q, customId: `q${i}` }));
  const submitted = await fetch(`${url}/kg/v3/enhance/bulk?token=${token}&name=answers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${await submitted.text()}`);
  const { job_id: id } = (await submitted.json()) as { job_id: string };
  for (;;) {
    const res = await fetch(`${url}/kg/v3/enhance/bulk/${id}/status?token=${token}`);
    const { content } = (await res.json()) as { content: { status: string } };
    if (content.status !== 'IN_PROCESS' && content.status !== 'NOT_STARTED') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const download = async (format: string) => {
    const res = await fetch(`${url}/kg/v3/enhance/bulk/${id}?token=${token}&format=${format}&wait=600`);
    return (await res.text()).replaceAll(id, 'JOB');
  };
  write('bulk.jsonl', await download('jsonl'));
  write('bulk.csv', await download('csv'));
} finally {
  await server.stop();
}
// The balance as the store the server ran on keeps it. A writing connection (the server has
// stopped): tokens live in the accounts file, which read-only connections never attach.
const storage = openStorage(storeLocator({ dataDir, databaseUrl: store.env.QUARRY_DATABASE_URL }));
const record = await storage.tokens.findBySecretHash(hashSecret(token));
await storage.close();
await store.drop();
if (record?.credits == null) throw new Error('the token this run created has no finite balance');
write('credits.txt', `${CREDITS - record.credits} credits spent\n`);
console.log(`data directory: ${dataDir}`);
