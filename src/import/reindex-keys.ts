/**
 * Re-keying a stored graph: the retrieval keys and match profile of every entity computed again
 * from its stored document, by this build's `indexEntity`. A store imported by a build that gave
 * entities fewer keys (before `pe:` past employers and `ps:` schools) or another profile (before
 * past titles were kept apart, `tp`) keeps answering as it did without them; this pass gives it
 * the keys and profiles an import would give now.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Entity, structuralKey } from '../kg/index.ts';
import { indexEntity } from '../match/index.ts';
import type { EntityStore, EntityWrite } from '../storage/index.ts';

/** Entities read and rewritten per transaction. */
const CHUNK = 2000;

/** What a caller of `reindexKeys` is told as it runs. */
export interface ReindexProgress {
  /** After each chunk: the entities read so far. */
  readonly onProgress?: (scanned: number) => void;
  /** When the rewritten entities' keys pass starts (it has no progress of its own). */
  readonly onIndexing?: () => void;
}

/** What `reindexKeys` did. */
export interface ReindexSummary {
  /** Entities read. */
  readonly scanned: number;
  /** Entities whose keys or profile differed and were rewritten. */
  readonly rekeyed: number;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  for (const key of b) if (!set.has(key)) return false;
  return true;
}

/** Whether a stored profile is the one computed now (field order aside: a store may reorder). */
function sameProfile(computed: unknown, stored: unknown): boolean {
  return structuralKey(computed) === structuralKey(stored);
}

/**
 * Computes every entity's keys and profile again from its stored document; an entity whose keys
 * or profile differ from the stored ones (an older build's: before past titles were kept apart,
 * `tp`) is rewritten (same document and ledger; keys and profile as computed now), its
 * stale postings removed at once and its new keys indexed in one pass at the end (as a bulk
 * import does: `deferKeys`). Each chunk is read and rewritten holding the store's write lock, so
 * a concurrent import is never overwritten with a document read before it. Idempotent: a second
 * run rewrites nothing. Stopped midway, the store stays consistent (entities rewritten so far
 * wait for their keys pass, which the next import, `quarry index-keys` or this run makes).
 * Each chunk is its own turn of the event loop, so a progress display keeps drawing.
 */
export async function reindexKeys(
  store: Pick<
    EntityStore,
    'entitiesAfter' | 'profiles' | 'exclusively' | 'writeBatch' | 'indexPendingKeysOffThread'
  >,
  progress: ReindexProgress = {},
): Promise<ReindexSummary> {
  let after = 0;
  let scanned = 0;
  let rekeyed = 0;
  for (;;) {
    const read = store.exclusively(() => {
      const chunk = store.entitiesAfter(after, CHUNK);
      const profiles = new Map(
        store.profiles(chunk.map((stored) => stored.ref)).map((p) => [p.ref, p.profile]),
      );
      const writes: EntityWrite[] = [];
      for (const stored of chunk) {
        const index = indexEntity(stored.doc as Entity);
        if (sameKeys(index.keys, stored.keys) && sameProfile(index.profile, profiles.get(stored.ref)))
          continue;
        writes.push({ id: stored.id, type: stored.type, doc: stored.doc, ledger: stored.ledger, ...index });
      }
      if (writes.length > 0) store.writeBatch(writes, { deferKeys: true });
      return { count: chunk.length, last: chunk.at(-1)?.ref, written: writes.length };
    });
    if (read.last === undefined) break;
    after = read.last;
    scanned += read.count;
    rekeyed += read.written;
    progress.onProgress?.(scanned);
    await nextTurn();
  }
  if (rekeyed > 0) {
    progress.onIndexing?.();
    await store.indexPendingKeysOffThread();
  }
  return { scanned, rekeyed };
}
