/**
 * A bulk job's batches are searched together (`Matcher.searchMany`) and their answers' entities
 * read at once (src/enhance/batch-reads.ts): every record's answer must be exactly the answer a
 * single enhance request gives for it, repeated queries and id records included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { generateQuery } from '../src/match/training/query-generator.ts';
import { Random } from '../src/random.ts';
import { enhanceRecordOf } from '../bench/support/queries.ts';
import { bulkClient } from './support/bulk-client.ts';
import { demoEntities, writeIndexed } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('bulk answers made a batch at a time', () => {
  let t: TestRuntime;
  let token: string;
  const records: Record<string, unknown>[] = [];
  before(async () => {
    t = await startTestRuntime();
    const entities = demoEntities({ organizations: 120, persons: 240, seed: 5 });
    writeIndexed(t.runtime.storage.entities, entities);
    const random = new Random(23);
    while (records.length < 160) {
      const query = generateQuery(random.pick(entities), random, entities);
      if (query) records.push({ ...enhanceRecordOf(query), customId: `q${records.length}` });
    }
    // Repeated queries, id records (one unknown) and a record matching nothing, in one batch.
    records.push(records[2], records[50], records[2]);
    const byId = (entity: Entity) => ({ id: entity.id, type: entity.type });
    records.push(byId(entities[7]), byId(entities[200]), byId(entities[7]));
    records.push({ id: 'ORG-nobody', type: 'Organization' }, { id: entities[9].id, type: 'Person' });
    records.push({ type: 'Organization', name: 'Zzyzx Qwvb Bakery' });
    token = await t.token(null);
  });
  after(async () => t.close());

  for (const options of ['', '&size=3&threshold=0.2&jsonmode=extended']) {
    test(`each record answered as a single enhance answers it (options "${options}")`, async () => {
      const client = bulkClient(t.runtime.app);
      const submitted = await client.submit(token, records, options);
      assert.equal(submitted.statusCode, 202);
      const jobId = submitted.json().job_id as string;
      assert.equal((await client.waitFinal(token, jobId, 60_000)).status, 'COMPLETE');
      let hits = 0;
      for (const [i, record] of records.entries()) {
        const stored = (await client.get(token, `/${jobId}/${i}`)).json();
        const single = await t.runtime.app.inject({
          method: 'POST',
          url: `/kg/v3/enhance?token=${token}${options}`,
          payload: record,
        });
        assert.equal(single.statusCode, 200, single.body);
        const { request_ctx: _bulk, ...bulkAnswer } = stored;
        const { request_ctx: _single, ...singleAnswer } = single.json();
        assert.equal(JSON.stringify(bulkAnswer), JSON.stringify(singleAnswer), `record ${i}`);
        hits += bulkAnswer.hits;
      }
      assert.ok(hits > records.length / 2, `most records found (${hits})`);
    });
  }
});
