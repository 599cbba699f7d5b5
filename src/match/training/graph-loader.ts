/**
 * Loading entity JSON Lines into a store for evaluation and fitting (the product's import,
 * with its fact ledger, is `quarry import`; this is the minimal path: index and write).
 */
import { readFileSync } from 'node:fs';
import { type Entity, isEntityType } from '../../kg/index.ts';
import { indexEntity } from '../profile.ts';
import type { EntityBatchWriter, IndexedEntityWrite } from './scratch-store.ts';

/** Entities of a JSON Lines file, in file order; throws naming the line of a malformed entity. */
export function readEntities(file: string): Entity[] {
  const out: Entity[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const entity = JSON.parse(lines[i]) as Entity;
    if (typeof entity?.id !== 'string' || !isEntityType(entity.type)) {
      throw new TypeError(`${file}:${i + 1}: an entity needs a string "id" and a "type"`);
    }
    out.push(entity);
  }
  return out;
}

/** Indexes and writes `entities` in batches of 2,000 (ledger `null`). */
export function writeEntities(store: EntityBatchWriter, entities: readonly Entity[]): void {
  for (let i = 0; i < entities.length; i += 2000) {
    const batch: IndexedEntityWrite[] = entities.slice(i, i + 2000).map((doc) => {
      const { profile, keys } = indexEntity(doc);
      return { id: doc.id, type: doc.type, doc, ledger: null, profile, keys };
    });
    store.writeBatch(batch);
  }
}
