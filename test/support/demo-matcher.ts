import { loadDemoGraph } from '../../src/import/index.ts';
import { DEFAULT_DEMO_SIZES, type Entity } from '../../src/kg/index.ts';
import { createMatcher, type Matcher } from '../../src/match/index.ts';
import { writeIndexed } from './load-graph.ts';
import { openTempSqliteStorage } from './temp-sqlite.ts';

/**
 * A matcher over the default demo graph plus `entities` (written with their retrieval keys) in a
 * fresh embedded store, with the default Person threshold; `cleanup()` closes and removes it.
 */
export async function openDemoMatcher(
  entities: readonly Entity[],
): Promise<{ matcher: Matcher; personThreshold: number; cleanup(): Promise<void> }> {
  const { storage, cleanup } = await openTempSqliteStorage();
  loadDemoGraph(storage.entities, DEFAULT_DEMO_SIZES);
  writeIndexed(storage.entities, entities);
  const matcher = createMatcher(storage.entities);
  return { matcher, personThreshold: matcher.defaultThresholdFor('Person'), cleanup };
}
