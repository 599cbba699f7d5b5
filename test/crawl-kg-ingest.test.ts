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

  test('team pages sharing a site footer become two people: no footer contact, no custom field, no merge', async () => {
    // Issue 24 §1: the newsroom's footer (phone, e-mail, social links) on every team page made
    // David Okafor and Maria Gonzalez one entity, and a Custom API field reached the graph.
    const teamPage = (name: string, title: string, email: string) => `<!DOCTYPE html><html lang="en"><head>
<title>${name} - The Valley Herald</title><meta property="og:site_name" content="The Valley Herald"></head><body>
<div class="cookie-banner">We use cookies. <a href="/privacy">Privacy</a></div>
<header class="site-header"><a href="/"><img class="logo" src="/logo.png" alt="Valley Herald logo"></a>
<nav><a href="/news">News</a> <a href="/team">Team</a></nav></header>
<main><article class="profile"><h1>${name}</h1><p class="role">${title}</p>
<p>${name} has reported for the Herald since 2015, covering city hall, the courts and the river.</p>
<p>Write to <a href="mailto:${email}">${email}</a>.</p></article></main>
<footer class="site-footer"><p>The Valley Herald newsroom</p><p>Phone: +1 415 555 0100</p>
<p><a href="mailto:newsroom@valleyherald.example">newsroom@valleyherald.example</a></p>
<a href="https://twitter.com/valleyherald">Twitter</a> <a href="https://www.facebook.com/valleyherald">Facebook</a>
<p class="copyright">© 2024 The Valley Herald</p></footer></body></html>`;
    site.route(
      '/team/maria',
      respond.html(teamPage('Maria Gonzalez', 'Data Editor', 'maria@valleyherald.example')),
    );
    site.route(
      '/team/david',
      respond.html(teamPage('David Okafor', 'Courts Reporter', 'david@valleyherald.example')),
    );
    const saved = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/custom?token=${token}`,
      payload: {
        api: '/api/person',
        urlPattern: '/team/',
        rules: [{ name: 'copyright', selector: '.copyright' }],
      },
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const counts = t.runtime.storage.entities.counts();
    await createJob(t.runtime, token, {
      name: 'team',
      apiUrl: '/v3/person',
      urls: `${site.url('/team/maria')} ${site.url('/team/david')}`,
      crawlDelay: 0,
      kgIngest: 1,
    });
    await waitForStatus(t.runtime, token, 'team', [9]);
    // The extracted objects keep the custom field; the people have only their own contacts.
    const data = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk/data?token=${token}&name=team` });
    const objects = data.json() as Array<Record<string, unknown>>;
    assert.equal(objects.length, 2);
    for (const object of objects) {
      assert.equal(object.copyright, '© 2024 The Valley Herald');
      assert.equal(object.phoneNumbers, undefined, "the footer phone is not a person's");
      assert.equal((object.emailAddresses as unknown[]).length, 1);
      assert.equal(object.twitterUri, undefined);
    }
    assert.deepEqual(t.runtime.storage.entities.counts(), { ...counts, persons: counts.persons + 2 });
    const maria = await enhance('type=Person&email=maria%40valleyherald.example');
    assert.equal(maria.hits, 1);
    assert.equal(maria.data[0].entity.name, 'Maria Gonzalez');
    assert.deepEqual(maria.data[0].entity.emailAddresses, [{ contactString: 'maria@valleyherald.example' }]);
    assert.equal(maria.data[0].entity.copyright, undefined, 'custom fields stay out of the graph');
    assert.equal(maria.data[0].entity.phoneNumbers, undefined);
    const david = await enhance('type=Person&name=David%20Okafor');
    assert.equal(david.data[0].entity.name, 'David Okafor');
    assert.notEqual(david.data[0].entity.id, maria.data[0].entity.id);
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
