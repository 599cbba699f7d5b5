import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { TokenService } from '../src/accounts/index.ts';
import { EnhanceService, parseEnhanceQuery } from '../src/enhance/index.ts';
import { createMatcher } from '../src/match/index.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

test('an enhance answers inside one read snapshot and pays after it, in a transaction of its own', async () => {
  const { storage, cleanup } = await openTempSqliteStorage();
  try {
    await loadFixtureGraph(storage.entities, FIXTURE);
    const tokens = new TokenService(storage.tokens);
    const { record } = await tokens.create({ credits: 100 });
    const snapshots: { open: boolean }[] = [];
    let chargedInsideSnapshot = false;
    const charge = storage.tokens.charge.bind(storage.tokens);
    storage.tokens.charge = (id, amount) => {
      chargedInsideSnapshot ||= snapshots.some((s) => s.open);
      return charge(id, amount);
    };
    const service = new EnhanceService({
      entities: storage.entities,
      matcher: createMatcher(storage.entities),
      tokens,
      credits: { perMatch: 25, perMatchRefresh: 100 },
      readSnapshot: (fn) => {
        const snapshot = { open: true };
        snapshots.push(snapshot);
        try {
          return storage.readSnapshot(fn);
        } finally {
          snapshot.open = false;
        }
      },
    });
    const request = parseEnhanceQuery({ type: 'Organization', name: 'Acme Robotics' }, 'post');
    const answer = await service.enhance(request, { tokenId: record.id, queryCtx: {} });
    assert.equal(answer.hits, 1);
    assert.equal(snapshots.length, 1);
    assert.equal(chargedInsideSnapshot, false);
    assert.equal((await storage.tokens.findById(record.id))?.credits, 75);
    // The same answer as without a snapshot.
    const plain = await new EnhanceService({
      entities: storage.entities,
      matcher: createMatcher(storage.entities),
      tokens,
      credits: { perMatch: 25, perMatchRefresh: 100 },
    }).enhance(request, { tokenId: record.id, queryCtx: {} });
    assert.deepEqual(plain.data, answer.data);
    assert.equal((await storage.tokens.findById(record.id))?.credits, 50);
  } finally {
    await cleanup();
  }
});
