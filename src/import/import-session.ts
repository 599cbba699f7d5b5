/**
 * The store-facing half of an import: merges prepared statements with the stored entities
 * (fact ledger), writes them in atomic batches and keeps the counts.
 */
import { indexEntity } from '../match/index.ts';
import type { EntityStore, EntityWrite, SerializedEntityWrite } from '../storage/index.ts';
import { applyStatement, type Entity, type FactLedger, type LedgerState, TypeConflict } from '../kg/index.ts';
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

/**
 * Records merged per transaction when a batch must be merged under the write lock (another
 * writer wrote entities while it was merged outside). Measured re-importing 200k organizations
 * while another connection wrote during every batch: the lock was held 0.54 s on average and
 * 1.3 s at most, where a whole 50,000-update batch held it 5.8 s.
 */
const RELOCKED_SLICE = 5_000;

/** Entities per transaction unless `batchSize` says otherwise. */
export const DEFAULT_BATCH_SIZE = 50_000;

/** What a batch knows of one id: its stored state so far, or the first statement of a new one. */
interface Pending {
  readonly id: string;
  state: LedgerState | undefined;
  /** The prepared record of a new entity, written as is while nothing else is stated about it. */
  fresh: PreparedRecord | undefined;
  dirty: boolean;
}

/**
 * The ids an import into an empty store has written, as a bit filter of 2^27 bits (16 MiB): an id
 * it does not hold was never written; a false positive only costs a lookup (about 1.5% of ids
 * after 2M, 7% after 10M).
 */
class WrittenIds {
  static readonly #BITS = 27;
  readonly #bits = new Uint8Array(2 ** (WrittenIds.#BITS - 3));

  /** The id's bit: an FNV-1a hash on `#BITS` bits. */
  static #slot(id: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
    return hash >>> (32 - WrittenIds.#BITS);
  }

  add(id: string): void {
    const slot = WrittenIds.#slot(id);
    this.#bits[slot >>> 3] |= 1 << (slot & 7);
  }

  mayHold(id: string): boolean {
    const slot = WrittenIds.#slot(id);
    return (this.#bits[slot >>> 3] & (1 << (slot & 7))) !== 0;
  }
}

/** A batch merged with the stored entities: its writes, and what its lines did. */
interface MergedBatch {
  readonly writes: (EntityWrite | SerializedEntityWrite)[];
  created: number;
  updated: number;
  unchanged: number;
  readonly rejects: Rejection[];
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
   * nobody else has written since): a bit filter of the ids written. Only ids it holds can be
   * stored, so the others are not looked up (the lookup was ~7% of the store's time loading 2M
   * entities into an empty store). `undefined` once that no longer holds: every id is looked up.
   */
  #written: WrittenIds | undefined;
  /** The store's version after this session's last write (see `#written`). */
  #writtenVersion: string | undefined;
  /**
   * Set once another writer wrote while a batch was merged outside the lock (see `flush`): from
   * then on batches are merged under the lock straight away, once, instead of twice.
   */
  #contended = false;

  constructor(store: EntityStore, options: SessionOptions = {}) {
    this.#store = store;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#keepRejects = options.keepRejects ?? 20;
    this.#onReject = options.onReject;
    const counts = store.counts();
    if (counts.organizations + counts.persons === 0) {
      this.#written = new WrittenIds();
      this.#writtenVersion = store.version();
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

  /**
   * Writes what is queued, as one atomic batch. Merging it with the stored entities is the
   * costly part (~110 µs per stored entity: a re-import's batch of 50,000 took ~5.8 s), so it is
   * done before taking the write lock, which other writers (the server charging credits,
   * storing bulk results) wait for. Under the lock the batch is written as merged if nobody has
   * written entities meanwhile; otherwise it is merged again under the lock, from what is stored
   * then, slice by slice (`RELOCKED_SLICE`), so that no statement committed meanwhile (crawl
   * ingestion, a second import) is overwritten. Each slice commits on its own: the batch is then
   * several atomic steps, each whole. A writer that got in once (a crawl ingests pages all along)
   * is likely to get in during the next batches too, so after the first time the session goes
   * straight to the slices: each later batch is merged once, not twice.
   */
  flush(): void {
    if (this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    if (!this.#contended) {
      const version = this.#store.version();
      const merged = this.#merge(queue);
      const written = this.#store.exclusively(() => {
        if (this.#store.version() !== version) return false;
        this.#write(merged);
        return true;
      });
      if (written) return;
      this.#contended = true;
    }
    // Merged under the lock, in slices: a slice's merge is all another writer waits for.
    for (let start = 0; start < queue.length; start += RELOCKED_SLICE) {
      const slice = queue.slice(start, start + RELOCKED_SLICE);
      this.#store.exclusively(() => this.#write(this.#merge(slice)));
    }
  }

  /**
   * Merges `queue` with what is stored now. Writes and counts nothing (`#write` applies the
   * result); it only drops the written-ids filter once another writer has written.
   */
  #merge(queue: readonly PreparedRecord[]): MergedBatch {
    // Another writer since this session's last write: its ids are unknown, look everything up.
    if (this.#written !== undefined && this.#store.version() !== this.#writtenVersion) {
      this.#written = undefined;
    }
    const written = this.#written;
    const batch: MergedBatch = { writes: [], created: 0, updated: 0, unchanged: 0, rejects: [] };
    // Each id's entry, found once per record: the first statement of an id makes it.
    const entries = new Array<Pending>(queue.length);
    const byId = new Map<string, Pending>();
    const lookUp: string[] = [];
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i].id;
      let entry = byId.get(id);
      if (entry === undefined) {
        entry = { id, state: undefined, fresh: undefined, dirty: false };
        byId.set(id, entry);
        if (written === undefined || written.mayHold(id)) lookUp.push(id);
      }
      entries[i] = entry;
    }
    for (const [id, existing] of this.#store.getByIds(lookUp)) {
      byId.get(id)!.state = { doc: existing.doc, ledger: existing.ledger as FactLedger | null };
    }
    for (let i = 0; i < queue.length; i++) {
      const record = queue[i];
      const entry = entries[i];
      if (entry.state === undefined && entry.fresh === undefined) {
        entry.fresh = record;
        entry.dirty = true;
        batch.created++;
        continue;
      }
      const before = entry.state ?? stateOf(entry.fresh!);
      let next: LedgerState;
      try {
        next = applyStatement(before, record.source, JSON.parse(record.json.doc) as Entity);
      } catch (error) {
        if (!(error instanceof TypeConflict)) throw error;
        batch.rejects.push({ line: record.line, reason: `${entry.id}: ${error.message}` });
        continue;
      }
      if (sameState(next, before)) {
        batch.unchanged++;
        continue;
      }
      batch.updated++;
      entry.state = next;
      entry.fresh = undefined;
      entry.dirty = true;
    }
    for (const entry of byId.values()) {
      if (!entry.dirty) continue;
      const { id, fresh } = entry;
      if (fresh !== undefined) {
        batch.writes.push({ id, type: fresh.type, json: fresh.json });
        continue;
      }
      const { doc, ledger } = entry.state!;
      batch.writes.push({ id, type: doc.type, doc, ledger, ...indexEntity(doc) });
    }
    return batch;
  }

  /** Writes a merged batch and counts what its lines did. */
  #write(batch: MergedBatch): void {
    this.#store.writeBatch(batch.writes, { deferKeys: true });
    this.counts.created += batch.created;
    this.counts.updated += batch.updated;
    this.counts.unchanged += batch.unchanged;
    for (const rejection of batch.rejects) this.reject(rejection);
    if (this.#written !== undefined) {
      for (const write of batch.writes) this.#written.add(write.id);
      this.#writtenVersion = this.#store.version();
    }
  }

  /**
   * Writes the rest and, unless `indexKeys` is false, indexes the keys of everything written on
   * the calling thread (`importEntities` runs its own pass, off the thread where it can).
   */
  finish(options: { readonly indexKeys?: boolean } = {}): void {
    this.flush();
    if (options.indexKeys !== false) this.#store.indexPendingKeys();
  }
}
