/**
 * A demo graph in which some persons have two surnames, and labelled queries that name them by
 * one (issue 22: the graph has "Ada Amir Rossi Santos", the query "Ada Rossi"). The demo
 * generator gives everyone one surname, so this bench gives `--count` persons a second one,
 * half of them hyphenated ("Rossi-Santos"), in the name and in `nameDetail.lastName`.
 *
 *   npx node bench/second-surnames.ts --seed 11 [--organizations 3000] [--persons 3000]
 *                                     [--count 80] --graph G.jsonl --out Q.jsonl
 *   npm run quarry -- import G.jsonl --data DIR
 *   npm run quarry -- eval Q.jsonl --data DIR
 *
 * Every query is decidable: the persons chosen have one record, a full name no one else has, a
 * given name and surname no one else has (or, in a graph too large for that, a given name,
 * middle name and surname: then only the queries with the middle name are asked), and a second
 * surname that no one (chosen before included) has with that given name. Kinds: `one-surname` ("Ada Rossi"), `one-surname-middle` ("Ada Amir Rossi"),
 * `one-surname-comma` ("Rossi, Ada"), `last-surname` ("Ada Santos"), `as-stored`,
 * `two-surnames-spaced` ("Ada Rossi Santos" for Ada Rossi-Santos), and three that must find
 * no one: `wrong-surname` (another surname of the graph no one has with that given name),
 * `unknown-surname` ("Ada Vostrel"), `second-surname-unknown-first` ("Ada Santos Vostrel").
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { demoRecords, type Entity } from '../src/kg/index.ts';
import { Random } from '../src/random.ts';
import { SECOND_SURNAMES } from './support/name-words.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '11' },
    organizations: { type: 'string', default: '3000' },
    persons: { type: 'string', default: '3000' },
    count: { type: 'string', default: '80' },
    graph: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!values.graph || !values.out) throw new Error('--graph and --out are required');
const seed = Number(values.seed);
const records = [
  ...demoRecords({ organizations: Number(values.organizations), persons: Number(values.persons), seed }),
];
const random = new Random(seed * 7919 + 23);

/** Surnames no demo person has. */
const UNKNOWN = 'Vostrel';

const key = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s-]+/g, ' ')
    .trim();
const persons = records.filter((r) => r.type === 'Person' && r.nameDetail);
const count = (keys: Iterable<string>) => {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
};
const first = (p: Entity) => p.nameDetail?.firstName ?? '';
const last = (p: Entity) => p.nameDetail?.lastName ?? '';
// Counted over records: a person stated twice is not chosen (its other record keeps one surname).
const byFirstLast = count(persons.map((p) => key(`${first(p)} ${last(p)}`)));
const byName = count(persons.map((p) => key(p.name ?? '')));
const middleOf = (p: Entity) => p.nameDetail?.middleName?.[0];
const byFirstMiddleLast = count(persons.map((p) => key(`${first(p)} ${middleOf(p) ?? ''} ${last(p)}`)));
const taken = new Set(byFirstLast.keys());
const surnames = [...new Set(persons.map(last))].sort();

const chosen: { p: Entity; given: string; middle?: string; one: string; extra: string; alone: boolean }[] =
  [];
/** Whether the person's given name and surname alone are decidable (else the middle name is needed). */
const alone = (p: Entity) => byFirstLast.get(key(`${first(p)} ${last(p)}`)) === 1;
const candidates = persons.filter(
  (p) =>
    byName.get(key(p.name ?? '')) === 1 &&
    (alone(p) || (middleOf(p) && byFirstMiddleLast.get(key(`${first(p)} ${middleOf(p)} ${last(p)}`)) === 1)),
);
for (let i = candidates.length - 1; i > 0; i--) {
  const j = random.int(i + 1);
  [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
}
// Those decidable by given name and surname alone first: they answer every kind.
for (const p of [...candidates.filter(alone), ...candidates.filter((p) => !alone(p))]) {
  if (chosen.length >= Number(values.count)) break;
  const extras = SECOND_SURNAMES.filter(
    (e) => key(e) !== key(last(p)) && !taken.has(key(`${first(p)} ${e}`)),
  );
  if (extras.length === 0) continue;
  const extra = random.pick(extras);
  taken.add(key(`${first(p)} ${extra}`));
  const one = last(p);
  const two = chosen.length % 2 === 1 ? `${one}-${extra}` : `${one} ${extra}`;
  const middle = p.nameDetail?.middleName?.[0];
  const byOne = alone(p);
  const name = [first(p), middle, two].filter(Boolean).join(' ');
  // The record is the demo's own object: the graph written below carries the change.
  Object.assign(p, { name, allNames: [name], nameDetail: { ...p.nameDetail, lastName: two } });
  chosen.push({ p, given: first(p), middle, one, extra, alone: byOne });
}

const lines: string[] = [];
const add = (name: string, expected: string | null, kind: string) =>
  lines.push(
    JSON.stringify({
      query: { type: 'Person', name },
      expected,
      meta: { set: `second-surnames-${seed}`, kinds: [kind] },
    }),
  );
for (const { p, given, middle, one, extra, alone } of chosen) {
  if (middle) add(`${given} ${middle} ${one}`, p.id, 'one-surname-middle');
  add(p.name ?? '', p.id, 'as-stored');
  if (!alone) continue;
  add(`${given} ${one}`, p.id, 'one-surname');
  add(`${one}, ${given}`, p.id, 'one-surname-comma');
  add(`${given} ${extra}`, p.id, 'last-surname');
  add(`${given} ${one} ${extra}`, p.id, 'two-surnames-spaced');
  const others = surnames.filter((s) => key(s) !== key(one) && !taken.has(key(`${given} ${s}`)));
  if (others.length) add(`${given} ${random.pick(others)}`, null, 'wrong-surname');
  add(`${given} ${UNKNOWN}`, null, 'unknown-surname');
  add(`${given} ${extra} ${UNKNOWN}`, null, 'second-surname-unknown-first');
}
writeFileSync(values.graph, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
writeFileSync(values.out, `${lines.join('\n')}\n`);
process.stderr.write(`${chosen.length} persons given a second surname; ${lines.length} queries\n`);
