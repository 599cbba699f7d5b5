/**
 * Varied enhance queries drawn from a graph, for load and latency benchmarks: seeded, so two
 * runs send the same queries. Mixes name-only, name + url, url-only, person name + employer,
 * e-mail, and queries about entities that do not exist.
 */
import { DatabaseSync } from 'node:sqlite';
import type { Entity } from '../../src/kg/index.ts';
import type { MatchQuery } from '../../src/match/index.ts';
import { Random } from '../../src/random.ts';

/** Deterministic numbers in [0, 1) from `seed` (the project's mulberry32, `Random`). */
export function seededRandom(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

export type BenchQuery = Record<string, string | string[]>;

/** Samples `count` queries from the graph in the SQLite file `file`. */
export function sampleQueries(file: string, count: number, seed = 7): BenchQuery[] {
  const db = new DatabaseSync(file, { readOnly: true });
  const maxRef = Number((db.prepare('SELECT max(ref) AS m FROM entities').get() as { m: number }).m ?? 0);
  if (maxRef === 0) throw new Error(`no entities in ${file}`);
  const byRef = db.prepare('SELECT doc FROM entities WHERE ref = ?');
  const random = seededRandom(seed);
  const queries: BenchQuery[] = [];
  while (queries.length < count) {
    const row = byRef.get(1 + Math.floor(random() * maxRef)) as { doc: string } | undefined;
    if (!row) continue;
    const entity = JSON.parse(row.doc) as Entity;
    const roll = random();
    if (entity.type === 'Organization') {
      const name = entity.name ?? '';
      const host = entity.homepageUri;
      if (roll < 0.35 || !host) queries.push({ type: 'Organization', name: [name.toLowerCase()] });
      else if (roll < 0.7)
        queries.push({ type: 'Organization', name: [name], url: [`https://www.${host}/`] });
      else if (roll < 0.9) queries.push({ type: 'Organization', url: [host] });
      else queries.push({ type: 'Organization', name: [`${name} Zyxwv`], location: 'Atlantis' });
    } else {
      const name = entity.name ?? '';
      const employer = entity.employments?.find((e) => e.isCurrent)?.employer?.name;
      const email = entity.emailAddresses?.[0]?.contactString;
      if (roll < 0.4 && employer) queries.push({ type: 'Person', name: [name], employer });
      else if (roll < 0.7 && email) queries.push({ type: 'Person', email: [email] });
      else if (roll < 0.9) queries.push({ type: 'Person', name: [name] });
      else queries.push({ type: 'Person', name: [`Qwerty ${name.split(' ').pop()}`], location: 'Nowhere' });
    }
  }
  db.close();
  return queries;
}

/** The query string of an enhance GET for `query` (without the token). */
export function toQueryString(query: BenchQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  return params.toString();
}

/**
 * A match query (e.g. from the training generator) as the enhance record a client would send:
 * its parameters named as the contract names them (`name`, `url`, `email`, one `phone`, …).
 */
export function enhanceRecordOf(query: MatchQuery): Record<string, string | string[]> {
  return {
    type: query.type,
    name: [...query.names],
    url: [...query.urls],
    email: [...query.emails],
    ...(query.phones.length ? { phone: query.phones[0] } : {}),
    ...(query.location ? { location: query.location } : {}),
    ...(query.employer ? { employer: query.employer } : {}),
    ...(query.title ? { title: query.title } : {}),
    ...(query.ip ? { ip: query.ip } : {}),
  };
}

/** The fields a query gives ("name+location"): the shape benches break their figures down by. */
export function queryShape(query: MatchQuery): string {
  const fields: string[] = [];
  if (query.names.length) fields.push('name');
  if (query.emails.length) fields.push('email');
  if (query.phones.length) fields.push('phone');
  for (const field of ['location', 'employer', 'title', 'school', 'ip'] as const)
    if (query[field] !== undefined) fields.push(field);
  return fields.join('+');
}
