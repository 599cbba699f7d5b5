/**
 * `kgIngest=1`: organizations and people extracted by a bulk job are merged into the knowledge
 * graph with the page URL as their origin, so enhance finds them — new entities, and entities
 * the graph already had (stated by one more source).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import {
  type CrawlTestRuntime,
  control,
  createJob,
  FAST_CRAWL,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { tempDir } from './support/temp-dir.ts';
import { createWebhookPost } from '../src/bulk/index.ts';
import { CrawlService, GraphIngest, ServicePageExtractor } from '../src/crawl/index.ts';
import { CustomApiService, createFetcher, ExtractionService } from '../src/extract/index.ts';
import { createLogger } from '../src/logging.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';

const GRAPH = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

/** A company page stating Acme (already in the graph) with a phone number the graph lacks. */
const ACME_PAGE = `<!DOCTYPE html><html><head><title>Acme Robotics</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme Robotics Inc.",
"url":"https://acme-robotics.example/","telephone":"+33 4 72 00 00 99","description":"Robots for warehouses, made in Lyon."}</script>
</head><body><h1>Acme Robotics</h1><p>Contact us.</p></body></html>`;

describe('bulk extract jobs feeding the knowledge graph', () => {
  let site: FixtureServer;
  let t: CrawlTestRuntime;
  let token: string;

  before(async () => {
    site = await startFixtureServer();
    site.route('/acme', respond.html(ACME_PAGE));
    t = await startCrawlRuntime();
    await loadFixtureGraph(t.runtime.storage.entities, GRAPH);
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const enhance = async (query: string) => {
    const res = await t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance?token=${token}&${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('new organizations and people become entities with the page as origin', async () => {
    const company = site.url('/pages/company.html');
    const person = site.url('/pages/person.html');
    const counts = t.runtime.storage.entities.counts();
    await createJob(t.runtime, token, {
      name: 'ingest',
      apiUrl: '/v3/analyze',
      urls: `${company} ${person} ${site.url('/pages/product.html')}`,
      crawlDelay: 0,
      kgIngest: 1,
    });
    const done = await waitForStatus(t.runtime, token, 'ingest', [9]);
    assert.equal(done.kgIngest, 1);
    // A product too: extracted, not an entity.
    assert.equal(done.objectsFound, 3);
    const after = t.runtime.storage.entities.counts();
    assert.deepEqual(after, { organizations: counts.organizations + 1, persons: counts.persons + 1 });

    const org = await enhance(
      'type=Organization&name=Northwind%20Robotics&url=northwind-robotics.example&jsonmode=extended',
    );
    assert.equal(org.hits, 1);
    const entity = org.data[0].entity;
    assert.equal(entity.name, 'Northwind Robotics');
    assert.match(entity.id, /^crawl-o-[0-9a-f]{20}$/);
    assert.deepEqual(entity.origins, [company]);
    assert.deepEqual(org.data[0].entity_ctx.factOrigins.name, [company]);
    assert.ok(entity.phoneNumbers.some((p: { digits: string }) => p.digits === '+15105550142'));

    const who = await enhance('type=Person&name=Elena%20Marsh');
    assert.equal(who.hits, 1);
    assert.deepEqual(who.data[0].entity.origins, [person]);
    assert.equal(who.data[0].entity.type, 'Person');
  });

  test('an entity the graph already has gains the page as a source; re-crawling changes nothing more', async () => {
    const page = site.url('/acme');
    await createJob(t.runtime, token, {
      name: 'acme',
      apiUrl: '/v3/organization',
      urls: page,
      crawlDelay: 0,
      kgIngest: 1,
    });
    await waitForStatus(t.runtime, token, 'acme', [9]);
    const stored = t.runtime.storage.entities.getById('ORG-acme');
    assert.ok(stored, 'the crawled statement merged into ORG-acme');
    assert.ok(stored.doc.origins?.includes(page));
    assert.ok(stored.doc.origins?.includes('https://acme-robotics.example/'), 'earlier origins are kept');
    assert.ok(
      stored.doc.phoneNumbers?.some((p) => p.digits === '+33472000099'),
      'the new phone number is added',
    );
    const acme = await enhance(
      'type=Organization&name=Acme%20Robotics&url=acme-robotics.example&jsonmode=extended',
    );
    assert.equal(acme.data[0].entity.id, 'ORG-acme');
    const phoneOrigins = acme.data[0].entity_ctx.factOrigins.phoneNumbers as string[];
    assert.ok(phoneOrigins.includes(page));

    const countsBefore = t.runtime.storage.entities.counts();
    const docBefore = JSON.stringify(t.runtime.storage.entities.getById('ORG-acme')?.doc);
    await control(t.runtime, token, 'acme', 'restart', '1');
    await waitForStatus(t.runtime, token, 'acme', [9]);
    assert.deepEqual(t.runtime.storage.entities.counts(), countsBefore);
    assert.equal(JSON.stringify(t.runtime.storage.entities.getById('ORG-acme')?.doc), docBefore);
  });

  test('without kgIngest the graph is left alone', async () => {
    const counts = t.runtime.storage.entities.counts();
    const version = t.runtime.storage.entities.version();
    await createJob(t.runtime, token, {
      name: 'no-ingest',
      apiUrl: '/v3/analyze',
      urls: `${site.url('/pages/company.html?again')} ${site.url('/pages/person.html?again')}`,
      crawlDelay: 0,
    });
    const done = await waitForStatus(t.runtime, token, 'no-ingest', [9]);
    assert.equal(done.objectsFound, 2);
    assert.equal(done.kgIngest, 0);
    assert.deepEqual(t.runtime.storage.entities.counts(), counts);
    assert.equal(t.runtime.storage.entities.version(), version);
  });
});

describe('everything in one thread (no extraction threads, in-thread writer)', () => {
  test('a service built without worker threads extracts, writes and merges into the graph', async () => {
    const site = await startFixtureServer();
    const dir = tempDir();
    const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
    const fetcher = createFetcher({ allowPrivateNetwork: true });
    const extraction = new ExtractionService({
      fetcher,
      customApis: new CustomApiService(storage.customApis),
    });
    const crawl = new CrawlService({
      storage,
      fetcher,
      webhookPost: createWebhookPost(fetcher),
      extractor: new ServicePageExtractor(extraction),
      ingester: new GraphIngest(storage.entities),
      logger: createLogger({ level: 'silent' }),
      tuning: FAST_CRAWL,
    });
    try {
      crawl.start();
      const job = await crawl.create(
        'tok_inline',
        {
          name: 'inline',
          apiUrl: '/v3/organization',
          urls: site.url('/pages/company.html'),
          crawlDelay: 0,
          kgIngest: 1,
        },
        'http://127.0.0.1',
      );
      const deadline = Date.now() + 10_000;
      while ((await storage.crawlJobs.getJob(job.id))?.status !== 9) {
        assert.ok(Date.now() < deadline, 'the job did not complete');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal((await storage.crawlJobs.getJob(job.id))?.counters.objectsFound, 1);
      assert.equal(storage.entities.counts().organizations, 1);
      const [object] = await storage.crawlJobs.listObjects(job.id, 0, 10);
      assert.equal(JSON.parse(object.doc).name, 'Northwind Robotics');
    } finally {
      await crawl.close();
      await fetcher.close();
      storage.close();
      dir.remove();
      await site.close();
    }
  });
});
