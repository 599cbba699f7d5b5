/**
 * Why the top candidate of a Person query is wrong, on a graph and queries of
 * `bench/enhance-inprocess.ts` (`--queries-out`).
 *
 *   npx node bench/crowd-misses.ts --data DIR --queries-in FILE [--count N] [--list CLASS]
 *
 * Each Person query made from a graph entity whose entity is not the top candidate is put in
 * one class, counted by the query's shape (the fields it gives):
 *   unresolvable  name only, or name and a place, and another person has the entity's full name
 *                 (and the place, at the most specific level the query's location names): no
 *                 matcher can tell them apart;
 *   same title    name and title (and a place), and another such person also has the entity's
 *                 current title: the title does not tell them apart either;
 *   free-mail     e-mails (and a name, a place) at free-mail providers where the entity holds
 *                 no address, local parts none of its addresses has: a name query in effect,
 *                 and another person of its full name (in the place) fits them as well;
 *   same phone    a phone number (and a place) the entity holds, and another person holds it
 *                 in that place too (the rule: bench/support/namesakes.ts);
 *   cut           retrieved, but not among the candidates kept for scoring (found with a
 *                 candidate limit of 2,000 instead of 30);
 *   not found     no lookup of the query finds it, whatever the candidate limit;
 *   tied          scored exactly as the top one;
 *   outranked     scored lower than the top one: the features that favour the top one most
 *                 (its contribution minus the entity's) are counted.
 * Prints a table by shape and the features that outrank; `--list CLASS` prints those queries.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { createMatcher, type MatchQuery } from '../src/match/index.ts';
import { DEFAULT_LIMITS } from '../src/match/retrieval.ts';
import { UNRESOLVABLE, unresolvable } from './support/namesakes.ts';
import { queryShape } from './support/queries.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    'queries-in': { type: 'string' },
    count: { type: 'string', default: '20000' },
    list: { type: 'string', default: '' },
  },
});
if (!values.data || !values['queries-in']) throw new Error('--data DIR and --queries-in FILE are required');
const storage = openSqliteStorage(sqliteFileFor(values.data), { readOnly: true });
const store = storage.entities;
const matcher = createMatcher(store);
const wide = createMatcher(store, { limits: { ...DEFAULT_LIMITS, maxCandidates: 2000 } });

interface BenchQuery {
  readonly query: MatchQuery;
  readonly expected: string | null;
}
const queries = readFileSync(values['queries-in'], 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .slice(0, Number(values.count))
  .map((line) => JSON.parse(line) as BenchQuery);

const classes = [...UNRESOLVABLE, 'cut', 'not found', 'tied', 'outranked'] as const;
type Class = (typeof classes)[number];
const table = new Map<
  string,
  Record<Class | 'queries' | 'right' | 'resolvable' | 'resolvableRight', number>
>();
const outrankedBy = new Map<string, number>();
const listed = new Set(values.list.split(',').filter(Boolean));
let persons = 0;
for (const { query, expected } of queries) {
  if (query.type !== 'Person' || expected === null) continue;
  persons++;
  const shape = queryShape(query);
  let row = table.get(shape);
  if (!row) {
    row = {
      queries: 0,
      right: 0,
      resolvable: 0,
      resolvableRight: 0,
      ...(Object.fromEntries(classes.map((c) => [c, 0])) as Record<Class, number>),
    };
    table.set(shape, row);
  }
  row.queries++;
  const tie = unresolvable(store, query, expected);
  if (tie === undefined) row.resolvable++;
  const candidates = matcher.match(query, { limit: 30 });
  if (candidates[0]?.id === expected) {
    row.right++;
    if (tie === undefined) row.resolvableRight++;
    continue;
  }
  const own = candidates.find((c) => c.id === expected);
  let klass: Class;
  let detail = '';
  if (tie !== undefined) klass = tie;
  else if (!own) {
    const found = wide.match(query, { limit: 2000 }).findIndex((c) => c.id === expected);
    klass = found >= 0 ? 'cut' : 'not found';
    detail = found >= 0 ? `at ${found}` : '';
  } else if (own.score === candidates[0].score) klass = 'tied';
  else {
    klass = 'outranked';
    const top = candidates[0].explanation.contributions;
    const mine = own.explanation.contributions;
    const diffs = new Map<string, number>();
    for (const name of new Set([...Object.keys(top), ...Object.keys(mine)])) {
      if (name === 'otherCandidates') continue;
      diffs.set(name, (top[name] ?? 0) - (mine[name] ?? 0));
    }
    const ranked = [...diffs].filter(([, d]) => d > 0).sort((a, b) => b[1] - a[1]);
    const first = ranked[0]?.[0] ?? '(none)';
    outrankedBy.set(`${shape}: ${first}`, (outrankedBy.get(`${shape}: ${first}`) ?? 0) + 1);
    detail = ranked
      .slice(0, 3)
      .map(([n, d]) => `${n}+${d.toFixed(2)}`)
      .join(' ');
  }
  row[klass]++;
  if (listed.has(klass)) {
    const shown = candidates
      .slice(0, 3)
      .map((c) => `${c.id}=${c.score.toFixed(3)}`)
      .join(' ');
    process.stdout.write(`${klass}\t${JSON.stringify(query)}\t${expected} ${detail}\t${shown}\n`);
  }
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
const total: Record<string, number> = {};
process.stdout.write(`Person queries: ${persons}\n`);
process.stdout.write(
  `| shape | queries | top right | resolvable (neither): top right | wrong: ${classes.join(' | ')} |\n`,
);
for (const [shape, row] of [...table].sort(
  (a, b) => b[1].queries - b[1].right - (a[1].queries - a[1].right),
)) {
  for (const [k, v] of Object.entries(row)) total[k] = (total[k] ?? 0) + v;
  process.stdout.write(
    `| ${shape} | ${row.queries} | ${row.right} (${pct(row.right, row.queries)}) | ${row.resolvable}: ${row.resolvableRight} (${pct(row.resolvableRight, row.resolvable)}) | ${classes.map((c) => row[c]).join(' | ')} |\n`,
  );
}
process.stdout.write(
  `| all | ${total.queries} | ${total.right} (${pct(total.right, total.queries)}) | ${total.resolvable}: ${total.resolvableRight} (${pct(total.resolvableRight, total.resolvable)}) | ${classes.map((c) => total[c]).join(' | ')} |\n`,
);
process.stdout.write('outranked by (shape: the feature favouring the top one most):\n');
for (const [what, n] of [...outrankedBy].sort((a, b) => b[1] - a[1]).slice(0, 25))
  process.stdout.write(`  ${n}\t${what}\n`);
storage.close();
