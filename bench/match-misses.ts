/**
 * Why the matchable queries of a labelled set are missed at the default threshold.
 *
 *   npx node bench/match-misses.ts QUERIES.jsonl --kg FILE... [--list a,b,c] [--limit 30]
 *
 * Each matchable query whose expected entity is not a hit is put in one class:
 *   (a) the expected entity is not among the retrieved candidates;
 *   (b) it is the top candidate, scored below the threshold;
 *   (c) another candidate is ranked first (split by whether that one is a hit: a wrong hit).
 * Prints the counts, and with `--list` the queries of those classes with their top candidates.
 */
import { parseArgs } from 'node:util';
import { openEvaluationStore, readLabelledQueries } from '../src/cli/eval.ts';
import { createMatcher } from '../src/match/index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kg: { type: 'string', multiple: true },
    list: { type: 'string', default: '' },
    limit: { type: 'string', default: '30' },
  },
});
const labelled = readLabelledQueries(positionals[0]);
// `--kg a b c`: the files after the first positional are entity files too.
const storage = openEvaluationStore({ kg: [...(values.kg ?? []), ...positionals.slice(1)] });
const matcher = createMatcher(storage.entities);
const listed = new Set(values.list.split(',').filter(Boolean));
const counts = { hit: 0, a: 0, b: 0, cWrongHit: 0, cBelow: 0 };
for (const q of labelled) {
  if (q.expected === null) continue;
  const threshold = matcher.defaultThresholdFor(q.query.type);
  const candidates = matcher.match(q.query, { limit: Number(values.limit) });
  const top = candidates[0];
  const at = candidates.findIndex((c) => c.id === q.expected);
  let klass: string;
  if (top?.id === q.expected && top.score >= threshold) klass = 'hit';
  else if (at < 0) klass = 'a';
  else if (at === 0) klass = 'b';
  else klass = top.score >= threshold ? 'cWrongHit' : 'cBelow';
  counts[klass as keyof typeof counts]++;
  if (listed.has(klass) || (klass.startsWith('c') && listed.has('c'))) {
    const shown = candidates
      .slice(0, 3)
      .map((c) => `${c.id}=${c.score.toFixed(3)}`)
      .join(' ');
    const own = at >= 0 ? ` expected#${at}=${candidates[at].score.toFixed(3)}` : '';
    process.stdout.write(`${klass}\t${JSON.stringify(q.query)}\t${q.expected}${own}\t${shown}\n`);
  }
}
const missed = counts.a + counts.b + counts.cWrongHit + counts.cBelow;
process.stdout.write(
  `${positionals[0]}: ${counts.hit} hits, ${missed} missed: (a) not retrieved ${counts.a}, ` +
    `(b) top below threshold ${counts.b}, (c) another ranked first ${counts.cWrongHit + counts.cBelow} ` +
    `(${counts.cWrongHit} of them a wrong hit)\n`,
);
await storage.close();
