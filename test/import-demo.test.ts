import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadDemoGraph } from '../src/import/index.ts';
import { DEFAULT_DEMO_SIZES, demoExamples, factOriginsOf } from '../src/kg/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { tempDir } from './support/temp-dir.ts';

test('loadDemoGraph loads the npm start graph quickly; the examples are in it as documented', () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  const summary = loadDemoGraph(storage.entities, DEFAULT_DEMO_SIZES);
  assert.equal(summary.created, DEFAULT_DEMO_SIZES.organizations + DEFAULT_DEMO_SIZES.persons);
  assert.ok(summary.elapsedMs < 20_000, `took ${summary.elapsedMs} ms`);
  assert.deepEqual(storage.entities.counts(), DEFAULT_DEMO_SIZES);
  const examples = demoExamples();
  for (const example of Object.values(examples)) {
    assert.deepEqual(storage.entities.getById(example.id)?.doc, example);
  }
  const org = storage.entities.getById(examples.organization.id)!;
  assert.ok(storage.entities.refsForKey(`d:${org.doc.homepageUri}`, 5).includes(org.ref));
  const disputed = storage.entities.getById(examples.disputedOrganization.id)!;
  const facts = disputed.doc.nonCanonicalFacts ?? [];
  assert.ok(facts.some((f) => f.field === 'nbEmployees'));
  assert.ok(facts.every((f) => f.origins[0].startsWith('https://demo.quarry.example/')));
  const origins = factOriginsOf(disputed.doc, disputed.ledger as never);
  assert.deepEqual(origins.nbEmployees, [`https://registry.demo.quarry.example/org/${disputed.id}`]);
  assert.equal(origins.homepageUri.length, 2, 'both sources state the homepage');
  const version = storage.entities.version();
  const again = loadDemoGraph(storage.entities, DEFAULT_DEMO_SIZES);
  assert.equal(again.created + again.updated, 0, 'loading it again changes nothing');
  assert.equal(storage.entities.version(), version);
  storage.close();
  dir.remove();
});
