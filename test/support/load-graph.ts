import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { importEntities } from '../../src/import/index.ts';
import { type DemoGraphOptions, demoRecords, type Entity } from '../../src/kg/index.ts';
import { indexEntity } from '../../src/match/index.ts';
import type { EntityStore } from '../../src/storage/index.ts';

/**
 * Imports JSONL fixture files into a store through the real import pipeline (validation, fact
 * ledger, retrieval keys), on the calling thread. Throws when a line is rejected.
 */
export async function loadFixtureGraph(store: EntityStore, ...files: string[]): Promise<void> {
  for (const file of files) {
    const summary = await importEntities(store, fs.createReadStream(file), {
      fileName: path.basename(file),
      workers: 0,
    });
    if (summary.rejected > 0) throw new Error(`${file}: ${summary.rejected} rejected lines`);
  }
}

/** Imports `entities` through the real import pipeline, on the calling thread; throws when one is rejected. */
export async function importGraph(store: EntityStore, entities: readonly Entity[]): Promise<void> {
  const lines = `${entities.map((e) => JSON.stringify(e)).join('\n')}\n`;
  const summary = await importEntities(store, Readable.from([lines]), {
    fileName: 'graph.jsonl',
    workers: 0,
  });
  if (summary.rejected > 0) throw new Error(`${summary.rejected} rejected entities`);
}

/** Writes `entities` as they are (no import pipeline, no fact ledger) with their retrieval keys. */
export function writeIndexed(store: EntityStore, entities: readonly Entity[]): void {
  store.writeBatch(
    entities.map((doc) => ({ id: doc.id, type: doc.type, doc, ledger: null, ...indexEntity(doc) })),
  );
}

/**
 * The demo graph's entities, each once: `demoRecords` yields an entity stated by two sources
 * twice in a row, and the first statement is kept (what tests write with `writeIndexed`).
 */
export function demoEntities(options: DemoGraphOptions): Entity[] {
  const seen = new Set<string>();
  const entities: Entity[] = [];
  for (const record of demoRecords(options)) {
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    entities.push(record);
  }
  return entities;
}
