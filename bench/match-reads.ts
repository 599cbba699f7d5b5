/**
 * What a matcher query reads from the store (issue 30): per query, the profile rows read (those
 * the matcher's profile cache did not hold) and their JSON size, by field; which fields of them
 * anything reads (a field-recording proxy around each parsed profile: the figures are counts,
 * its timing means nothing); the postings keys read, by prefix and limit, their refs and how many
 * came back empty; and the candidates answered.
 *
 *   npx node bench/match-reads.ts --data DIR --queries FILE [--warm 2000] [--count 6000]
 *                                 [--profile-mib 16]
 *
 * FILE holds `{"query": …}` lines (`enhance-inprocess.ts --queries-out`); the store is opened
 * read-only. The first WARM queries fill the caches uncounted. `--profile-mib` bounds the profile
 * cache (default as the matcher's, 16 MiB): a larger one shows how many reads are compulsory.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CandidateProfile, createMatcher, type MatchQuery } from '../src/match/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    queries: { type: 'string' },
    warm: { type: 'string', default: '2000' },
    count: { type: 'string', default: '6000' },
    'profile-mib': { type: 'string', default: '16' },
  },
});
if (!values.data || !values.queries) throw new Error('usage: match-reads.ts --data DIR --queries FILE');
const warm = Number(values.warm);
const count = Number(values.count);
const queries: MatchQuery[] = [];
for (const line of readFileSync(values.queries, 'utf8').split('\n'))
  if (line.trim() && queries.length < warm + count)
    queries.push((JSON.parse(line) as { query: MatchQuery }).query);
const storage = openSqliteStorage(sqliteFileFor(values.data), { readOnly: true });
const store = storage.entities;

let counting = false;
const totals = { statements: 0, rows: 0, characters: 0, postingReads: 0, keys: 0, empty: 0, refs: 0 };
/** Per `<kind>.<field>`: rows having it, characters of it (name and value), rows where it was read. */
const fields = new Map<string, { rows: number; characters: number; read: number }>();
/** Per `<prefix>@<limit>`: keys, refs, empty keys. */
const postings = new Map<string, { keys: number; refs: number; empty: number }>();
const readSets: Set<string>[] = [];

const field = (name: string) => {
  let entry = fields.get(name);
  if (!entry) {
    entry = { rows: 0, characters: 0, read: 0 };
    fields.set(name, entry);
  }
  return entry;
};

/** The profile behind a proxy that records which of its fields are read. */
function recorded(profile: Record<string, unknown>): unknown {
  const read = new Set<string>();
  readSets.push(read);
  const kind = String(profile.k);
  return new Proxy(profile, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(`${kind}.${key}`);
      return Reflect.get(target, key, receiver);
    },
  });
}

const source = {
  refsForKeys(keys: readonly string[], limit: number) {
    const out = store.refsForKeys(keys, limit);
    if (!counting) return out;
    totals.postingReads++;
    totals.keys += keys.length;
    for (const [key, refs] of out) {
      const name = `${key.slice(0, key.indexOf(':') + 1)}@${limit}`;
      let entry = postings.get(name);
      if (!entry) {
        entry = { keys: 0, refs: 0, empty: 0 };
        postings.set(name, entry);
      }
      entry.keys++;
      entry.refs += refs.length;
      totals.refs += refs.length;
      if (refs.length === 0) {
        entry.empty++;
        totals.empty++;
      }
    }
    return out;
  },
  profiles(refs: readonly number[]): CandidateProfile[] {
    const rows = store.profiles(refs);
    if (!counting) return rows;
    totals.statements++;
    totals.rows += rows.length;
    return rows.map((row) => {
      totals.characters += row.profileTextLength ?? 0;
      const profile = row.profile as Record<string, unknown>;
      for (const [name, value] of Object.entries(profile)) {
        const entry = field(`${profile.k}.${name}`);
        entry.rows++;
        entry.characters += JSON.stringify(value).length + name.length + 4;
      }
      return { ...row, profile: recorded(profile) };
    });
  },
  termCounts: (prefix: string) => store.termCounts(prefix),
  counts: () => store.counts(),
  version: () => store.version(),
  readSnapshot: <T>(fn: () => T): T => fn(),
};
const matcher = createMatcher(source, { cache: { profileBytes: Number(values['profile-mib']) * 2 ** 20 } });
for (const query of queries.slice(0, warm)) matcher.match(query, { limit: 10 });
counting = true;
let answered = 0;
const measured = queries.slice(warm);
for (const query of measured) answered += matcher.match(query, { limit: 10 }).length;

for (const read of readSets) for (const name of read) field(name).read++;
const n = measured.length;
const per = (x: number) => (x / n).toFixed(2);
console.log(`${n} queries after ${warm}, profile cache ${values['profile-mib']} MiB; per query:`);
console.log(
  `  profile rows read ${per(totals.rows)} in ${per(totals.statements)} statements, ${per(totals.characters)} characters of JSON (${(totals.characters / Math.max(1, totals.rows)).toFixed(0)} a row)`,
);
console.log(
  `  postings: ${per(totals.postingReads)} reads, ${per(totals.keys)} keys (${per(totals.empty)} empty), ${per(totals.refs)} refs`,
);
console.log(`  candidates answered ${per(answered)}`);
const characters = [...fields.values()].reduce((sum, entry) => sum + entry.characters, 0);
console.log('field      rows having  share of JSON  rows where read (by anything, while cached too)');
for (const [name, entry] of [...fields].sort((a, b) => b[1].characters - a[1].characters))
  console.log(
    `${name.padEnd(10)} ${String(entry.rows).padStart(11)}  ${((100 * entry.characters) / characters).toFixed(1).padStart(12)}%  ${entry.read}`,
  );
console.log('postings   keys/query  refs/query  empty keys/query');
for (const [name, entry] of [...postings].sort((a, b) => b[1].refs - a[1].refs))
  console.log(
    `${name.padEnd(10)} ${per(entry.keys).padStart(10)}  ${per(entry.refs).padStart(10)}  ${per(entry.empty)}`,
  );
