/**
 * Export benchmark: throughput of the download writers and their memory on large exports.
 *
 *   npx node bench/export.ts            # default sizes (about a minute on 2 cores)
 *   npx node bench/export.ts --quick    # 20,000 records / 100,000 for the memory runs
 *
 * Records are generated on the fly (seeded, realistic KG-shaped entities: names, aliases,
 * locations, phones, e-mails, employments, descriptions; 1 in 7 without a match, 1 in 5 with
 * two matches), never held in memory, and written to a temp file. Default columns
 * (`id,name,type,score` + query fields + `customId`). Each memory run is a fresh child process;
 * "RSS" samples are taken every 10% of the records, "peak" is the process's max RSS; the V8
 * old space of those children is capped (64 MiB), so finishing proves memory is bounded.
 * Figures only — this never fails on timing.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExportEntity, ResultRecord } from '../src/export/index.ts';
import { applyEntityFilter, createExportPlan, parseEntityFilter, writeExport } from '../src/export/index.ts';
import { seededRandom } from './support/queries.ts';
import { printTarget } from './support/targets.ts';

const quick = process.argv.includes('--quick');
const THROUGHPUT_RECORDS = quick ? 20_000 : 200_000;
const MEMORY_ROWS = quick ? 100_000 : 1_000_000;
/** V8 old-space limit of the memory runs: far below what holding a 1M-row export would need. */
const HEAP_CAP_MB = 64;

const FIRST = ['Ada', 'Grace', 'Alan', 'Émilie', 'Søren', 'Yuki', 'José', 'Chiara', 'Oluwaseun', 'Anaïs'];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'du Châtelet',
  'Kierkegaard',
  'Tanaka',
  'García',
  'Rossi',
  'Adeyemi',
];
const ORG = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Vandelay',
  'Stark',
  'Wayne',
  'Tyrell',
  'Cyberdyne',
];
const SUFFIX = ['Inc.', 'GmbH', 'S.A.', 'Ltd', 'Corporation', 'Holdings, LLC', 'K.K.'];
const CITY = ['London', 'Zürich', 'São Paulo', 'Tokyo', 'New York', 'Lagos', 'Paris', 'Berlin'];
const COUNTRY = [
  'United Kingdom',
  'Switzerland',
  'Brazil',
  'Japan',
  'United States',
  'Nigeria',
  'France',
  'Germany',
];
const LOREM =
  'builds tools for data teams, with offices across Europe and Asia; "quality first", founded by engineers'.split(
    ' ',
  );

/** A pool of base entities; each record gets a copy with its own id and name so no two rows are equal. */
function entityPool(size: number): ExportEntity[] {
  const random = seededRandom(2024);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  return Array.from({ length: size }, (_, i) => {
    const city = Math.floor(random() * CITY.length);
    const location = { city: { name: CITY[city] }, country: { name: COUNTRY[city] } };
    if (i % 2 === 0) {
      const name = `${pick(ORG)} ${pick(ORG)} ${pick(SUFFIX)}`;
      const domain = `${name.split(' ')[0].toLowerCase()}${i}.example.com`;
      return {
        type: 'Organization',
        name,
        allNames: [name, name.split(' ').slice(0, 2).join(' ')],
        homepageUri: domain,
        allUris: [domain, `www.${domain}`],
        location,
        locations: [location],
        phoneNumbers: [
          { string: `+1 555 01${String(i % 100).padStart(2, '0')}`, digits: `+155501${i % 100}` },
        ],
        nbEmployees: Math.floor(random() * 50_000),
        industries: [pick(['Software', 'Retail', 'Banking']), pick(['Cloud', 'Logistics'])],
        description: Array.from({ length: 25 }, () => pick(LOREM)).join(' '),
        importance: Math.round(random() * 1e4) / 100,
      };
    }
    const name = `${pick(FIRST)} ${pick(LAST)}`;
    return {
      type: 'Person',
      name,
      allNames: [name],
      nameDetail: { firstName: name.split(' ')[0], lastName: name.split(' ').slice(1).join(' ') },
      location,
      emailAddresses: [{ contactString: `${name.split(' ')[0].toLowerCase()}.${i}@example.org` }],
      employments: [
        {
          employer: { name: `${pick(ORG)} ${pick(SUFFIX)}` },
          title: pick(['CTO', 'Engineer', 'Analyst']),
          isCurrent: true,
        },
        { employer: { name: `${pick(ORG)} ${pick(SUFFIX)}` }, title: 'Intern' },
      ],
      birthDate: { str: `d19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`, precision: 3 },
    };
  });
}

const POOL = entityPool(997);

/** `count` records, generated lazily. */
function* records(count: number): Generator<ResultRecord> {
  for (let i = 0; i < count; i++) {
    const query: Record<string, unknown> = {
      type: i % 2 === 0 ? 'Organization' : 'Person',
      name: [`Query name ${i}`],
      customId: `row-${i}`,
    };
    if (i % 3 === 0) query.url = [`site${i}.example.com`];
    const hits = i % 7 === 0 ? 0 : i % 5 === 0 ? 2 : 1;
    const data = Array.from({ length: hits }, (_, k) => {
      const base = POOL[(i * 31 + k) % POOL.length];
      return {
        score: ((i * 7919 + k) % 1000) / 1000,
        esscore: ((i * 104729) % 5000) / 100,
        entity: { ...base, id: `E-${i}-${k}`, name: `${base.name} #${i}` },
      };
    });
    yield {
      index: i,
      query,
      response: {
        version: 3,
        hits,
        kgversion: 'bench',
        request_ctx: { query, query_ctx: { index: i } },
        data,
        errors: [],
      },
    };
  }
}

/** Records needed for at least `rows` columnar rows. */
function recordsForRows(rows: number): number {
  let count = 0;
  for (let made = 0; made < rows; count++) made += count % 7 === 0 ? 1 : count % 5 === 0 ? 2 : 1;
  return count;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

async function timedExport(format: string, count: number, dir: string) {
  const path = join(dir, `bench.${format}`);
  const start = performance.now();
  const summary = await writeExport(records(count), createWriteStream(path), createExportPlan({ format }), {
    tempDir: dir,
  });
  const seconds = (performance.now() - start) / 1000;
  const { size } = await stat(path);
  await rm(path);
  return { ...summary, seconds, size };
}

/** Child mode: one large export, reporting RSS samples and peak as JSON on stdout. */
async function child(format: string, rows: number, dir: string) {
  const count = recordsForRows(rows);
  const samples: number[] = [];
  const heap: number[] = [];
  const step = Math.ceil(count / 10);
  const sample = () => {
    const usage = process.memoryUsage();
    samples.push(usage.rss);
    heap.push(usage.heapUsed + usage.external + usage.arrayBuffers);
  };
  function* sampled(): Generator<ResultRecord> {
    let i = 0;
    for (const record of records(count)) {
      if (i++ % step === 0) sample();
      yield record;
    }
  }
  const path = join(dir, `memory.${format}`);
  const start = performance.now();
  const summary = await writeExport(sampled(), createWriteStream(path), createExportPlan({ format }), {
    tempDir: dir,
  });
  const seconds = (performance.now() - start) / 1000;
  sample();
  const { size } = await stat(path);
  await rm(path);
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ...summary, seconds, size, samples, heap, peak }));
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'quarry-bench-export-'));
  try {
    console.log(`# export benchmark (node ${process.version}, ${quick ? '--quick' : 'default sizes'})`);
    console.log(`# command: npx node bench/export.ts${quick ? ' --quick' : ''}`);

    let start = performance.now();
    let hits = 0;
    for (const record of records(THROUGHPUT_RECORDS)) hits += record.response.hits;
    const generation = (performance.now() - start) / 1000;
    console.log(
      `generate only: ${fmt(THROUGHPUT_RECORDS)} records (${fmt(hits)} matches) in ${fmt(generation, 2)} s` +
        ' (included in every figure below)',
    );

    const csv = await timedExport('csv', THROUGHPUT_RECORDS, dir);
    console.log(
      `csv: ${fmt(csv.records)} records, ${fmt(csv.rows)} rows, ${fmt(csv.size / 1e6, 1)} MB in ${fmt(csv.seconds, 2)} s` +
        ` → ${fmt(csv.rows / csv.seconds)} rows/s (target ≥ 100,000 rows/s)`,
    );

    const xlsxRecords = recordsForRows(200_000 * (THROUGHPUT_RECORDS / 200_000));
    const xlsx = await timedExport('xlsx', xlsxRecords, dir);
    console.log(
      `xlsx: ${fmt(xlsx.rows)} rows, ${fmt(xlsx.size / 1e6, 1)} MB in ${fmt(xlsx.seconds, 2)} s` +
        ` → ${fmt(xlsx.rows / xlsx.seconds)} rows/s (target: 200,000 rows ≤ 5 s)`,
    );
    printTarget({
      name: 'CSV export rows/s, writer alone (issue 3)',
      value: csv.rows / csv.seconds,
      bound: 'min',
      limit: 100_000,
      unit: 'rows/s',
    });
    printTarget({
      name: 'xlsx export of 200,000 rows, writer alone (issue 3)',
      value: (xlsx.seconds * 200_000) / xlsx.rows,
      bound: 'max',
      limit: 5,
      unit: 's',
    });

    const xls = await timedExport('xls', xlsxRecords, dir);
    console.log(
      `xls: ${fmt(xls.rows)} rows, ${fmt(xls.size / 1e6, 1)} MB in ${fmt(xls.seconds, 2)} s` +
        ` → ${fmt(xls.rows / xls.seconds)} rows/s`,
    );

    const jsonl = await timedExport('jsonl', THROUGHPUT_RECORDS, dir);
    console.log(
      `jsonl: ${fmt(jsonl.records)} records, ${fmt(jsonl.size / 1e6, 1)} MB in ${fmt(jsonl.seconds, 2)} s` +
        ` → ${fmt(jsonl.size / 1e6 / jsonl.seconds, 1)} MB/s`,
    );

    // Filters run on every enhance response and every exported entity.
    for (const [label, filter, filterExclude] of [
      ['filter, 3 dot paths', 'name;location.city.name;employments.title', undefined],
      ['filter, JSONPath', '$.employments[?@.isCurrent == true].employer.name;$.allNames[:2]', undefined],
      ['filterExclude, dot paths', undefined, 'description;allUris;locations'],
      ['filterExclude, $..name (descendants)', undefined, '$..name'],
    ] as const) {
      const compiled = parseEntityFilter(filter, filterExclude)!;
      const count = THROUGHPUT_RECORDS;
      start = performance.now();
      for (let i = 0; i < count; i++) applyEntityFilter(POOL[i % POOL.length], compiled);
      const seconds = (performance.now() - start) / 1000;
      console.log(`${label}: ${fmt(count / seconds)} entities/s`);
    }

    const script = fileURLToPath(import.meta.url);
    for (const format of ['csv', 'xls', 'xlsx']) {
      start = performance.now();
      // A capped V8 heap: the export must complete within it whatever the number of rows.
      const args = [
        `--max-old-space-size=${HEAP_CAP_MB}`,
        script,
        '--child',
        format,
        String(MEMORY_ROWS),
        dir,
      ];
      const output = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
      const run = JSON.parse(output) as {
        rows: number;
        size: number;
        seconds: number;
        samples: number[];
        heap: number[];
        peak: number;
      };
      const mb = (bytes: number) => fmt(bytes / 2 ** 20);
      console.log(
        `memory ${format}: ${fmt(run.rows)} rows, ${fmt(run.size / 1e6)} MB file in ${fmt(run.seconds, 1)} s` +
          ` (old-space capped at ${HEAP_CAP_MB} MiB); peak RSS ${mb(run.peak)} MiB\n` +
          `  RSS every 10% (MiB):          ${run.samples.map(mb).join(' ')}\n` +
          `  heap+external every 10% (MiB): ${run.heap.map(mb).join(' ')}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]), process.argv[5]);
} else {
  await main();
}
