/**
 * The store-facing half of an import: merges prepared statements with the stored entities
 * (fact ledger), writes them in atomic batches and keeps the counts.
 */
import { indexEntity } from '../../match/index.ts';
import type { EntityStore, EntityWrite, SerializedEntityWrite } from '../../storage/index.ts';
import type { Entity } from '../entity.ts';
import { applyStatement, type FactLedger, type LedgerState, TypeConflict } from '../fact-ledger.ts';
import type { PreparedRecord, Rejection } from './record-preparer.ts';

/** Counts of an import so far. */
export interface ImportCounts {
  /** Lines (CSV: physical lines) read, blank lines and the CSV header included. */
  linesRead: number;
  /** Lines stating an id the store did not have (first mention in this import). */
  created: number;
  /** Lines that changed an entity already stored (or stated earlier in this import). */
  updated: number;
  /** Lines that left their entity exactly as it was (e.g. re-importing the same file). */
  unchanged: number;
  rejected: number;
}

export interface SessionOptions {
  /**
   * Entities per transaction (default 50,000). Each batch is written atomically. Large batches
   * matter at scale: every commit rewrites each page of the id index it touched, and random ids
   * touch nearly all of them (1M + 1M demo graph, main-thread CPU: 42 s at 20,000 per batch,
   * 39 s at 100,000, for ~200 MiB more memory).
   */
  readonly batchSize?: number;
  /** How many rejections the summary keeps (default 20); `onReject` sees all of them. */
  readonly keepRejects?: number;
  readonly onReject?: (rejection: Rejection) => void;
}

/** Entities per transaction unless `batchSize` says otherwise. */
export const DEFAULT_BATCH_SIZE = 50_000;

interface Pending {
  state: LedgerState | undefined;
  /** The prepared record of a new entity, written as is while nothing else is stated about it. */
  fresh: PreparedRecord | undefined;
  dirty: boolean;
}

/** 30-bit FNV-1a hash of an id: a small integer (collisions only cost a lookup). */
function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/** The stored state a prepared (new) record stands for. */
function stateOf(record: PreparedRecord): LedgerState {
  return {
    doc: JSON.parse(record.json.doc) as Entity,
    ledger: record.json.ledger === null ? null : (JSON.parse(record.json.ledger) as FactLedger),
  };
}

function sameState(a: LedgerState, b: LedgerState): boolean {
  return (
    JSON.stringify(a.doc) === JSON.stringify(b.doc) && JSON.stringify(a.ledger) === JSON.stringify(b.ledger)
  );
}

export class ImportSession {
  readonly counts: ImportCounts = { linesRead: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 };
  /** The first `keepRejects` rejections, in line order. */
  readonly rejects: Rejection[] = [];
  readonly #store: EntityStore;
  readonly #batchSize: number;
  readonly #keepRejects: number;
  readonly #onReject: ((rejection: Rejection) => void) | undefined;
  #queue: PreparedRecord[] = [];
  /**
   * While every stored entity is one this session wrote (the store was empty when it began and
   * nobody else has written since): hashes of the ids written. Only ids among them can be stored,
   * so the others are not looked up (the lookup was ~7% of the store's time loading 2M entities
   * into an empty store). `undefined` once that no longer holds: every id is looked up.
   */
  #ownIds: Set<number> | undefined;
  /** The store's version after this session's last write (see `#ownIds`). */
  #ownVersion: string | undefined;

  constructor(store: EntityStore, options: SessionOptions = {}) {
    this.#store = store;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#keepRejects = options.keepRejects ?? 20;
    this.#onReject = options.onReject;
    const counts = store.counts();
    if (counts.organizations + counts.persons === 0) {
      this.#ownIds = new Set();
      this.#ownVersion = store.version();
    }
  }

  reject(rejection: Rejection): void {
    this.counts.rejected++;
    if (this.rejects.length < this.#keepRejects) this.rejects.push(rejection);
    this.#onReject?.(rejection);
  }

  /** Queues prepared statements; writes a batch whenever enough are queued. */
  add(prepared: readonly PreparedRecord[]): void {
    for (const record of prepared) {
      this.#queue.push(record);
      if (this.#queue.length >= this.#batchSize) this.flush();
    }
  }

  /** Writes what is queued, as one atomic batch. */
  flush(): void {
    if (this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    // Another writer since this session's last write: its ids are unknown, look everything up.
    if (this.#ownIds !== undefined && this.#store.version() !== this.#ownVersion) this.#ownIds = undefined;
    const ownIds = this.#ownIds;
    const ids = [...new Set(queue.map((r) => r.id))];
    const stored = this.#store.getByIds(
      ownIds === undefined ? ids : ids.filter((id) => ownIds.has(idHash(id))),
    );
    const pending = new Map<string, Pending>();
    for (const record of queue) {
      const id = record.id;
      let prior = pending.get(id);
      if (prior === undefined) {
        const existing = stored.get(id);
        if (existing === undefined) {
          pending.set(id, { state: undefined, fresh: record, dirty: true });
          this.counts.created++;
          continue;
        }
        prior = {
          state: { doc: existing.doc, ledger: existing.ledger as FactLedger | null },
          fresh: undefined,
          dirty: false,
        };
        pending.set(id, prior);
      }
      const before = prior.state ?? stateOf(prior.fresh!);
      let next: LedgerState;
      try {
        next = applyStatement(before, record.source, JSON.parse(record.json.doc) as Entity);
      } catch (error) {
        if (!(error instanceof TypeConflict)) throw error;
        this.reject({ line: record.line, reason: `${id}: ${error.message}` });
        continue;
      }
      if (sameState(next, before)) {
        this.counts.unchanged++;
        continue;
      }
      this.counts.updated++;
      prior.state = next;
      prior.fresh = undefined;
      prior.dirty = true;
    }
    const writes: (EntityWrite | SerializedEntityWrite)[] = [];
    for (const [id, entry] of pending) {
      if (!entry.dirty) continue;
      if (entry.fresh !== undefined) {
        writes.push({ id, type: entry.fresh.type, json: entry.fresh.json });
        continue;
      }
      const { doc, ledger } = entry.state!;
      writes.push({ id, type: doc.type, doc, ledger, ...indexEntity(doc) });
    }
    this.#store.writeBatch(writes, { deferKeys: true });
    if (ownIds !== undefined) {
      for (const write of writes) ownIds.add(idHash(write.id));
      this.#ownVersion = this.#store.version();
    }
  }

  /** Writes the rest and indexes the keys of everything written. */
  finish(): void {
    this.flush();
    this.#store.indexPendingKeys();
  }
}
