/**
 * The graph as it would be with search evidence added, for the matcher to score the graph's
 * candidates and the search's side by side (docs/api.md#refresh-and-search) before anything is
 * stored: a candidate source that answers as the graph does, plus entities found on the web
 * (negative refs) and graph entities whose profile search pages extend.
 *
 * The term vocabularies and the graph version are the graph's: an answer keeps the shared
 * vocabularies (rebuilding them per search would cost a full scan), so words only search pages
 * use weigh like unseen words. A matcher over an overlay is made per search and never cached.
 */
import type { EntityType } from '../kg/index.ts';
import type { CandidateProfile, CandidateSource } from '../match/index.ts';

/** An entity as the overlay presents it: its match profile and retrieval keys. */
export interface OverlayEntity {
  /** Negative for an entity found on the web alone; the graph's ref for an extended one. */
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  readonly profile: unknown;
  readonly keys: readonly string[];
}

/** The graph plus `entities` (see the module comment). */
export class OverlaySource implements CandidateSource {
  readonly #base: CandidateSource;
  readonly #byRef = new Map<number, OverlayEntity>();
  readonly #byKey = new Map<string, number[]>();
  /** The graph's vocabularies lack the words only the overlay's entities have. */
  readonly partialTermCounts = true;

  constructor(base: CandidateSource, entities: readonly OverlayEntity[]) {
    this.#base = base;
    for (const entity of entities) {
      this.#byRef.set(entity.ref, entity);
      for (const key of new Set(entity.keys)) {
        const refs = this.#byKey.get(key);
        if (refs) refs.push(entity.ref);
        else this.#byKey.set(key, [entity.ref]);
      }
    }
  }

  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    const base = this.#base.refsForKeys(keys, limitPerKey);
    const out = new Map<string, number[]>();
    for (const key of keys) {
      const graph = base.get(key) ?? [];
      const extra = this.#byKey.get(key);
      if (!extra) {
        out.set(key, graph);
        continue;
      }
      // The overlay's refs first (negative ones sort first in ref order anyway): never cut off.
      const merged = [...extra.toSorted((a, b) => a - b), ...graph.filter((ref) => !extra.includes(ref))];
      out.set(key, merged.slice(0, Math.max(limitPerKey, extra.length)));
    }
    return out;
  }

  profiles(refs: readonly number[]): CandidateProfile[] {
    const fromBase = this.#base.profiles(refs.filter((ref) => !this.#byRef.has(ref)));
    const byRef = new Map(fromBase.map((row) => [row.ref, row]));
    const out: CandidateProfile[] = [];
    for (const ref of refs) {
      const overlay = this.#byRef.get(ref);
      const row = overlay
        ? { ref, id: overlay.id, type: overlay.type, profile: overlay.profile }
        : byRef.get(ref);
      if (row) out.push(row);
    }
    return out;
  }

  termCounts(prefix: string): Map<string, number> {
    return this.#base.termCounts(prefix);
  }

  counts() {
    return this.#base.counts();
  }

  version(): string {
    return this.#base.version();
  }
}
