/**
 * What evaluation and fitting need of an entity store: write indexed entities, find one by id,
 * and serve candidates. Declared here so that match/ does not depend on storage/ (the layer
 * check); the storage adapters' entity stores satisfy it as they are.
 */
import type { Entity, EntityType } from '../../kg/index.ts';
import type { CandidateSource } from '../candidate-source.ts';

/** One indexed entity to write (the shape of the storage port's `EntityWrite`). */
export interface IndexedEntityWrite {
  readonly id: string;
  readonly type: EntityType;
  readonly doc: Entity;
  readonly ledger: null;
  readonly profile: unknown;
  readonly keys: readonly string[];
}

/** A store entities are written to in batches. */
export interface EntityBatchWriter {
  writeBatch(batch: readonly IndexedEntityWrite[]): void;
}

/** A throwaway store the training graph is indexed in. */
export interface ScratchEntityStore extends EntityBatchWriter, CandidateSource {
  /** The stored entity's reference number, when it is there. */
  getById(id: string): { readonly ref: number } | undefined;
}
