/**
 * The wrong answers of some realistic kinds, with what the graph holds for each.
 *
 *   npx node bench/kind-misses.ts QUERIES.jsonl --data DIR --kinds person-title,person-typo
 *
 * Per query of those kinds that is not right at the default threshold: the query, the expected
 * entity and the top three candidates (id, score, name, current title, city), and why: (a) not
 * retrieved, (b) top below the threshold, (c) another ranked first.
 */
import { parseArgs } from 'node:util';
import { openEvaluationStore, readLabelledQueries } from '../src/cli/eval.ts';
import { createMatcher } from '../src/match/index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string' },
    kinds: { type: 'string', default: '' },
    features: { type: 'boolean' },
  },
});
const kinds = new Set(values.kinds.split(',').filter(Boolean));
const storage = openEvaluationStore({ data: values.data });
const matcher = createMatcher(storage.entities);
function describe(id: string): string {
  // biome-ignore lint/suspicious/noExplicitAny: a bench's look at stored entities
  const e = storage.entities.getByIds([id]).get(id) as any;
  const v = e?.doc;
  const title = (v?.employments ?? [])
    .map((x: { isCurrent?: boolean; title?: string }) => `${x.title}${x.isCurrent ? '' : ' (past)'}`)
    .join('; ');
  return `${id} ${v?.name ?? '?'} | ${title} | ${v?.location?.city?.name ?? ''}, ${v?.location?.region?.name ?? ''}, ${v?.location?.country?.name ?? ''}`;
}
for (const q of readLabelledQueries(positionals[0])) {
  const kind = q.kinds?.find((k) => kinds.has(k));
  if (!kind) continue;
  const threshold = matcher.defaultThresholdFor(q.query.type);
  const candidates = matcher.match(q.query, { limit: 10 });
  const top = candidates[0];
  if (q.expected === null) {
    // An absent entity: wrong only when some candidate is a hit.
    if (!top || top.score < threshold) continue;
    process.stdout.write(`\n${kind} (hit) ${JSON.stringify(q.query)}\n`);
    for (const c of candidates.slice(0, 3)) {
      process.stdout.write(`  other ${c.score.toFixed(3)} ${describe(c.id)}\n`);
      if (values.features) process.stdout.write(`    ${JSON.stringify(c.explanation)}\n`);
    }
    continue;
  }
  if (top?.id === q.expected && top.score >= threshold) continue;
  const at = candidates.findIndex((c) => c.id === q.expected);
  const why = at < 0 ? 'a' : at === 0 ? 'b' : 'c';
  process.stdout.write(`\n${kind} (${why}) ${JSON.stringify(q.query)}\n`);
  process.stdout.write(
    `  expected #${at} ${at >= 0 ? candidates[at].score.toFixed(3) : '-'} ${describe(q.expected)}\n`,
  );
  if (at >= 0 && values.features) process.stdout.write(`    ${JSON.stringify(candidates[at].explanation)}\n`);
  for (const c of candidates.slice(0, 3)) {
    if (c.id === q.expected) continue;
    process.stdout.write(`  other ${c.score.toFixed(3)} ${describe(c.id)}\n`);
    if (values.features) process.stdout.write(`    ${JSON.stringify(c.explanation)}\n`);
  }
}
await storage.close();
