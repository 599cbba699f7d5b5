/**
 * Entities whose name starts with what a person is typing (suggest, docs/reconcile.md#suggest):
 * "Bigovofe Log" finds "Bigovofe Logistics Pvt Ltd". The finished words are looked up as name
 * tokens of the retrieval index, the word being typed through the index's tokens that start
 * with it; the entities carrying all of them are then ranked by how their name begins.
 */
import { type EntityType, foldText, normalizeOrganizationName, textTokens } from '../kg/index.ts';
import { RETRIEVAL_KEYS } from '../match/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';

/** What prefix search reads. */
export type PrefixSource = Pick<EntityStore, 'termCounts' | 'refsForKeys' | 'getByRefs'>;

/** A word being typed is completed from this many letters on (shorter: too many tokens). */
const MIN_COMPLETION = 3;
/** Postings read per key: a suggestion list is short, a frequent word is no help. */
const POSTINGS_PER_KEY = 2_000;
/** Completions of the word being typed looked up, the most frequent first. */
const MAX_COMPLETIONS = 200;
/** Entities read and ranked per type. */
const MAX_READ = 400;

interface Words {
  /** Index tokens of the finished words. */
  readonly whole: string[];
  /** The word being typed (folded), `undefined` when the prefix ends with a space. */
  readonly partial?: string;
}

function wordsOf(prefix: string, type: EntityType): Words {
  const typed = textTokens(prefix);
  const finished = /\s$/.test(prefix) ? typed : typed.slice(0, -1);
  const partial = /\s$/.test(prefix) ? undefined : typed.at(-1);
  // Organization tokens are indexed in canonical form without stopwords; person tokens folded.
  const whole =
    type === 'Organization' ? normalizeOrganizationName(finished.join(' ')).significant : finished;
  return { whole: [...new Set(whole)], ...(partial ? { partial } : {}) };
}

function intersect(a: readonly number[], b: ReadonlySet<number>): number[] {
  return a.filter((ref) => b.has(ref));
}

/** Refs of entities of `type` carrying every finished word and a completion of the typed one. */
function refsFor(source: PrefixSource, words: Words, type: EntityType): number[] {
  const prefix = type === 'Organization' ? RETRIEVAL_KEYS.orgToken : RETRIEVAL_KEYS.personToken;
  const sets: number[][] = [];
  if (words.whole.length > 0) {
    const postings = source.refsForKeys(
      words.whole.map((w) => prefix + w),
      POSTINGS_PER_KEY,
    );
    for (const refs of postings.values()) sets.push(refs);
  }
  if (words.partial !== undefined) {
    let keys = [prefix + words.partial];
    if (words.partial.length >= MIN_COMPLETION) {
      // termCounts answers the rest of each key after the prefix asked.
      const counts = [...source.termCounts(prefix + words.partial)].sort((a, b) => b[1] - a[1]);
      keys = counts.slice(0, MAX_COMPLETIONS).map(([rest]) => prefix + words.partial + rest);
    }
    const union = new Set<number>();
    for (const refs of source.refsForKeys(keys, POSTINGS_PER_KEY).values())
      for (const ref of refs) union.add(ref);
    sets.push([...union].sort((a, b) => a - b));
  }
  if (sets.length === 0) return [];
  sets.sort((a, b) => a.length - b.length);
  let refs = sets[0];
  for (const other of sets.slice(1)) refs = intersect(refs, new Set(other));
  return refs.slice(0, MAX_READ);
}

/** How well `entity`'s names begin with the folded prefix: 2 whole prefix, 1 word-wise, 0 not. */
function rank(entity: StoredEntity, folded: string): number {
  let best = 0;
  for (const name of [entity.doc.name, ...(entity.doc.allNames ?? [])]) {
    if (typeof name !== 'string') continue;
    const written = textTokens(name).join(' ');
    if (written.startsWith(folded)) return 2;
    if (folded.split(' ').every((word) => written.includes(word))) best = 1;
  }
  return best;
}

function importance(entity: StoredEntity): number {
  return typeof entity.doc.importance === 'number' ? entity.doc.importance : 0;
}

/**
 * Entities of `types` whose names start with `prefix` (word by word), best first: the whole
 * prefix starting a name, then its words in a name; then the more important, then the shorter
 * name. At most `limit`.
 */
export function entitiesByPrefix(
  source: PrefixSource,
  prefix: string,
  types: readonly EntityType[],
  limit: number,
): StoredEntity[] {
  const folded = textTokens(foldText(prefix)).join(' ');
  if (folded === '') return [];
  const found: { entity: StoredEntity; rank: number }[] = [];
  for (const type of types) {
    const refs = refsFor(source, wordsOf(prefix, type), type);
    for (const entity of source.getByRefs(refs)) {
      if (entity.type !== type) continue;
      const r = rank(entity, folded);
      if (r > 0) found.push({ entity, rank: r });
    }
  }
  found.sort(
    (a, b) =>
      b.rank - a.rank ||
      importance(b.entity) - importance(a.entity) ||
      String(a.entity.doc.name ?? '').length - String(b.entity.doc.name ?? '').length,
  );
  return found.slice(0, limit).map((f) => f.entity);
}
