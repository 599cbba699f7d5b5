import fs from 'node:fs';
import type { Entity } from '../../src/kg/index.ts';
import { indexEntity } from '../../src/match/index.ts';
import type { EntityStore } from '../../src/storage/index.ts';

/** Writes the entities of a small JSONL fixture straight into a store (single source each). */
export function loadFixtureGraph(store: EntityStore, file: string): Entity[] {
  const entities = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Entity);
  store.writeBatch(
    entities.map((doc) => ({ id: doc.id, type: doc.type, doc, ledger: null, ...indexEntity(doc) })),
  );
  return entities;
}
