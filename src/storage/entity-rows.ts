/**
 * Entity rows and the graph version as both adapters store them (the same columns in PostgreSQL
 * and in SQLite), in one place, as bulk-rows.ts and crawl-rows.ts are for jobs.
 */
import { randomBytes } from 'node:crypto';
import type { Entity, EntityType } from '../kg/index.ts';
import type { CandidateProfile, StoredEntity, StoredEntityWithKeys } from './ports.ts';

export interface EntityRow {
  ref: number;
  id: string;
  type: EntityType;
  doc: string;
  ledger: string | null;
}

export function toStored(row: EntityRow): StoredEntity {
  const text = row.ledger;
  let ledger: StoredEntity['ledger'] | undefined;
  return {
    ref: row.ref,
    id: row.id,
    type: row.type,
    doc: JSON.parse(row.doc) as Entity,
    // Parsed when read: answers read it only in extended mode, and it is the larger half.
    get ledger() {
      ledger ??= text === null ? null : JSON.parse(text);
      return ledger ?? null;
    },
  };
}

/**
 * A row of `entity_profiles`, its profile parsed, with its JSON text's length: the matcher's
 * caching source sizes a row from that instead of walking the parsed object (~2 µs of a query's
 * ~9.7 rows on 1M + 1M). Parsed at once, not when `profile` is first read: an object with a
 * getter of its own is a dictionary-mode object with a closure, ~1.3 µs more a row than the lazy
 * parse saved (bench/NOTES.md, issue 30).
 */
export function toCandidateProfile(
  ref: number,
  id: string,
  type: EntityType,
  text: string,
): CandidateProfile {
  return { ref, id, type, profile: JSON.parse(text), profileTextLength: text.length };
}

/** A row of `entities` read with its keys (`EntityStore.entitiesAfter`). */
export function toStoredWithKeys(row: EntityRow & { keys: string }): StoredEntityWithKeys {
  const stored = toStored(row);
  const keys = JSON.parse(row.keys) as string[];
  return Object.defineProperties(stored, { keys: { value: keys, enumerable: true } }) as StoredEntityWithKeys;
}

/**
 * A new graph version. Time plus randomness: two writes in the same millisecond still change the
 * version, so matcher caches keyed by it are never stale — in this process or any other.
 */
export function newVersion(now: number = Date.now()): string {
  return `${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

/**
 * The first key after every key starting with `prefix` (`termCounts` scans `[prefix, end)`).
 * Throws `RangeError` for an empty prefix: that would count every key of the graph.
 */
export function prefixEnd(prefix: string): string {
  if (prefix === '') throw new RangeError('termCounts needs a non-empty prefix');
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
