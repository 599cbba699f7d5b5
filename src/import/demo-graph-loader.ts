/**
 * Loads the demo graph of `kg/demo-data.ts` into a store through the import's own validation,
 * ledger and batching, so `serve --demo` starts with what an import of the same file would give.
 */
import { DEMO_FILE_NAME, type DemoGraphOptions, demoRecords } from '../kg/index.ts';
import type { EntityStore } from '../storage/index.ts';
import { ImportSession } from './import-session.ts';
import { prepareRecord } from './record-preparer.ts';

/** What `loadDemoGraph` wrote. */
export interface DemoLoadSummary {
  readonly statements: number;
  readonly created: number;
  readonly updated: number;
  readonly elapsedMs: number;
}

/**
 * Loads the demo graph into `store` (through the same validation, ledger and batching as an
 * import; the sources are the records' origins). Meant for an empty store (`serve --demo`);
 * on a store that already has the demo graph it changes nothing.
 */
export function loadDemoGraph(store: EntityStore, options: DemoGraphOptions): DemoLoadSummary {
  const started = performance.now();
  const session = new ImportSession(store);
  store.indexPendingKeys();
  let statements = 0;
  let queue = [];
  for (const record of demoRecords(options)) {
    statements++;
    queue.push(prepareRecord(record, statements, { format: 'jsonl', fileName: DEMO_FILE_NAME }));
    if (queue.length >= 1000) {
      session.add(queue);
      queue = [];
    }
  }
  session.add(queue);
  session.finish();
  return {
    statements,
    created: session.counts.created,
    updated: session.counts.updated,
    elapsedMs: performance.now() - started,
  };
}
