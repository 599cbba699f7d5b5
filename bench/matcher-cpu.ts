/**
 * The in-process matcher's CPU per query over given enhance queries: the denominator of issue
 * 30's two ratios, measured on the very queries a server benchmark sends, next to it in time.
 *
 *   npx node bench/matcher-cpu.ts --data DIR --queries-in FILE [--source post|bulk-record]
 *                                 [--count 8000] [--warm 2000]
 *
 * FILE holds one enhance query per line as a client sends it (`bench/support/queries.ts`'s
 * `BenchQuery`). Each is read as the server reads it (`parseEnhanceQuery` with `--source`) and
 * matched as an answer matches it (`matcher.search(matchQueryOf(query), {limit:
 * candidateLimit(options)})`), on DIR's store opened read-only, after the vocabularies and
 * `--warm` untimed queries. Then `--count` queries are timed (cycling through the file).
 *
 * Prints two `figure:` lines: the whole process's CPU per query (V8's helper threads included,
 * as the servers' figures count theirs), then the matching thread's alone. Run as a
 * child by `bench/support/paired-matcher.ts`; figures only.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { candidateLimit, matchQueryOf, parseEnhanceQuery, type QuerySource } from '../src/enhance/index.ts';
import { createMatcher } from '../src/match/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { FIGURES, printFigure } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    'queries-in': { type: 'string' },
    source: { type: 'string', default: 'post' },
    count: { type: 'string', default: '8000' },
    warm: { type: 'string', default: '2000' },
  },
});
if (!values.data || !values['queries-in']) {
  throw new Error(
    'usage: matcher-cpu.ts --data DIR --queries-in FILE [--source post|bulk-record] [--count N]',
  );
}
const source = values.source as QuerySource;
if (source !== 'post' && source !== 'bulk-record') throw new Error('--source is post or bulk-record');
const count = Number(values.count);
const warm = Number(values.warm);

const requests = readFileSync(values['queries-in'], 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => parseEnhanceQuery(JSON.parse(line) as Record<string, unknown>, source));
if (requests.length === 0) throw new Error(`no queries in ${values['queries-in']}`);
const work = requests.map(({ query, options }) => ({
  query: matchQueryOf(query),
  options: { limit: candidateLimit(options) },
}));

const storage = openSqliteStorage(sqliteFileFor(values.data), { readOnly: true });
const matcher = createMatcher(storage.entities);
matcher.search({ type: 'Organization', names: ['warm up'], urls: [], emails: [], phones: [] });
matcher.search({ type: 'Person', names: ['warm up'], urls: [], emails: [], phones: [] });
for (let i = 0; i < warm; i++) matcher.search(work[i % work.length].query, work[i % work.length].options);

const thread = process.threadCpuUsage();
const whole = process.cpuUsage();
for (let i = 0; i < count; i++) {
  const { query, options } = work[(warm + i) % work.length];
  matcher.search(query, options);
}
const threadUsed = process.threadCpuUsage(thread);
const wholeUsed = process.cpuUsage(whole);
storage.close();
const perQuery = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / count;
printFigure({ name: FIGURES.matcherCpu, value: Number(perQuery(wholeUsed).toFixed(1)), unit: 'µs' });
printFigure({ name: FIGURES.matcherThreadCpu, value: Number(perQuery(threadUsed).toFixed(1)), unit: 'µs' });
