/**
 * The seeded demo graph of the in-process matching benches, kept between runs in the system's
 * temporary directory (one directory per size and seed, shared by every bench that asks for it),
 * and bulk-shaped records about it.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ParsedEnhanceRequest, parseEnhanceQuery } from '../../src/enhance/index.ts';
import { loadDemoGraph } from '../../src/import/index.ts';
import type { Entity } from '../../src/kg/index.ts';
import { generateQuery } from '../../src/match/training/query-generator.ts';
import { Random } from '../../src/random.ts';
import type { EntityStore } from '../../src/storage/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../../src/storage/sqlite/index.ts';
import type { GraphSizes } from './match-graph.ts';
import { enhanceRecordOf } from './queries.ts';

/** The data directory of the demo graph of `sizes` and `seed`, loaded first if no run has yet. */
export function cachedDemoGraph(sizes: GraphSizes, seed: number): string {
  const dataDir = path.join(
    tmpdir(),
    `quarry-bench-match-${sizes.organizations}-${sizes.persons}-${seed}-demo`,
  );
  const done = path.join(dataDir, 'complete');
  if (!existsSync(done)) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const storage = openSqliteStorage(sqliteFileFor(dataDir));
    const summary = loadDemoGraph(storage.entities, { ...sizes, seed });
    storage.close();
    mkdirSync(done);
    console.log(`graph: ${summary.created} demo entities loaded into ${dataDir}`);
  }
  return dataDir;
}

/**
 * `count` records as a bulk job gets them: noisy queries (the training generator's) about 5,000
 * entities sampled from the graph of `sizes` in `entities`, parsed as bulk records. The same
 * `seed` gives the same records.
 */
export function sampledBulkRequests(
  entities: EntityStore,
  sizes: GraphSizes,
  seed: number,
  count: number,
): ParsedEnhanceRequest[] {
  const random = new Random(seed + 77);
  const sampled: Entity[] = [];
  while (sampled.length < 5000) {
    const [stored] = entities.getByRefs([1 + random.int(sizes.organizations + sizes.persons)]);
    if (stored) sampled.push(stored.doc);
  }
  const requests: ParsedEnhanceRequest[] = [];
  while (requests.length < count) {
    const query = generateQuery(random.pick(sampled), random, sampled);
    if (query) requests.push(parseEnhanceQuery(enhanceRecordOf(query), 'bulk-record'));
  }
  return requests;
}
