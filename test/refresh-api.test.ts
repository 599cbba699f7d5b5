/**
 * `refresh=true` through the HTTP API against a local fixture web: an organization rebuilt from
 * its origins and homepage (several hosts, one of them a site reached by host name alone, on
 * port 80 of a loopback address), pages whose facts change between fetches, robots.txt, a gone
 * page, the freshness window, single flight, combine, and credits.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { organizationPage, personPage } from './support/fixture-web.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

/** Imports records through the real import pipeline. */
async function importRecords(t: TestRuntime, records: object[], fileName = 'refresh-fixture.jsonl') {
  const lines = Readable.from(records.map((r) => `${JSON.stringify(r)}\n`));
  const summary = await importEntities(t.runtime.storage.entities, lines, { fileName, workers: 0 });
  assert.equal(summary.rejected, 0);
}

/** A random loopback address for a site on port 80 (several test runs may share the machine). */
function loopbackAddress(): string {
  const byte = () => 2 + Math.floor(Math.random() * 250);
  return `127.${byte()}.${byte()}.${byte()}`;
}

async function startHomepageServer(): Promise<FixtureServer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await startFixtureServer({ host: loopbackAddress(), port: 80 });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EACCES') {
        throw new Error(
          'refresh tests need to bind port 80 on a loopback address (a homepage is fetched by host name alone): run them as root or lower net.ipv4.ip_unprivileged_port_start',
        );
      }
      if (code !== 'EADDRINUSE' || attempt > 5) throw error;
    }
  }
}

interface Facts {
  employees: number;
  phone: string;
  street: string;
}

describe('refresh=true (enhance, combine)', () => {
  let a: FixtureServer;
  let b: FixtureServer;
  let home: FixtureServer;
  let locked: FixtureServer;
  let t: TestRuntime;
  let token: string;
  const today: Facts = { employees: 120, phone: '+49 30 5550120', street: 'Neue Strasse 7' };
  const homeHost = () => new URL(home.origin).hostname;
  const page = (facts: Facts) =>
    organizationPage({
      name: 'Fixture Robotics GmbH',
      url: `http://${homeHost()}/`,
      phone: facts.phone,
      employees: facts.employees,
      street: facts.street,
      city: 'Berlin',
      country: 'Germany',
      description: 'Warehouse robots from Berlin.',
    });
  const serveToday = () => {
    for (const [site, path] of [
      [a, '/about'],
      [b, '/companies/fixture-robotics'],
      [home, '/'],
    ] as const) {
      site.route(path, (_request, response) =>
        respond.html(page(today))(_request, response, new URL(site.origin)),
      );
    }
  };

  before(async () => {
    [a, b, locked] = await Promise.all([startFixtureServer(), startFixtureServer(), startFixtureServer()]);
    home = await startHomepageServer();
    serveToday();
    locked.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private\n'));
    locked.route('/private/fixture', respond.html(page(today)));
    t = await startTestRuntime({
      web: { refreshMaxAgeMs: 0, crawlDelayMs: 20, searchUrl: undefined },
    });
    token = await t.token(null);
    await importRecords(t, [
      {
        id: 'ORG-fixture',
        type: 'Organization',
        name: 'Fixture Robotics GmbH',
        homepageUri: homeHost(),
        origins: [
          a.url('/about'),
          b.url('/companies/fixture-robotics'),
          locked.url('/private/fixture'),
          a.url('/gone'),
        ],
        phoneNumbers: [{ string: '+49 30 5550100' }],
        nbEmployees: 100,
        location: { street: 'Alte Strasse 1', city: { name: 'Berlin' }, country: { name: 'Germany' } },
        industries: ['Robotics'],
      },
      {
        id: 'ORG-nowhere',
        type: 'Organization',
        name: 'Nowhere Holdings',
        location: { city: { name: 'Oslo' }, country: { name: 'Norway' } },
      },
      {
        id: 'PER-rita',
        type: 'Person',
        name: 'Rita Fixture',
        origins: [b.url('/people/rita')],
        employments: [
          {
            employer: { id: 'ORG-fixture', name: 'Fixture Robotics GmbH' },
            isCurrent: true,
            title: 'Engineer',
          },
        ],
      },
    ]);
  });
  after(async () => {
    await t.close();
    await Promise.all([a.close(), b.close(), home.close(), locked.close()]);
  });

  const enhance = async (query: string, secret = token) => {
    const res = await t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance?token=${secret}&${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('rebuilds a company from its origins and homepage, saying per URL what happened', async () => {
    const secret = await t.token(1_000);
    const body = await enhance(
      'type=Organization&name=Fixture%20Robotics&refresh=true&nonCanonicalFacts=true&jsonmode=extended',
      secret,
    );
    assert.equal(body.hits, 1);
    const [hit] = body.data;
    const entity = hit.entity;
    assert.equal(entity.id, 'ORG-fixture');
    assert.equal(entity.nbEmployees, 120, 'the employee count the pages state today');
    assert.equal(entity.location.street, 'Neue Strasse 7');
    assert.equal(entity.phoneNumbers[0].digits, '+49305550120', 'the new phone first');
    assert.deepEqual(entity.industries, ['Robotics'], 'facts only the import stated are kept');

    const urls = [
      `http://${homeHost()}/`,
      a.url('/about'),
      b.url('/companies/fixture-robotics'),
      locked.url('/private/fixture'),
      a.url('/gone'),
    ];
    assert.deepEqual(Object.keys(hit.refreshInfo).sort(), [...urls].sort());
    for (const url of urls.slice(0, 3)) {
      const info = hit.refreshInfo[url];
      assert.equal(info.url, url);
      assert.equal(info.hasResult, true, url);
      assert.ok(Math.abs(info.lastCrawlTime - Date.now()) < 60_000, url);
      assert.match(info.message, /^fetched/);
    }
    assert.equal(hit.refreshInfo[locked.url('/private/fixture')].hasResult, false);
    assert.match(hit.refreshInfo[locked.url('/private/fixture')].message, /robots\.txt disallows/);
    assert.equal(locked.count('/private/fixture'), 0, 'a page robots.txt disallows is never requested');
    assert.match(hit.refreshInfo[a.url('/gone')].message, /HTTP 404/);

    assert.deepEqual(hit.refreshDelta.changed.nbEmployees, { old: 100, new: 120 });
    assert.ok(hit.refreshDelta.changed.phoneNumbers, 'the phone list changed');
    assert.ok(hit.refreshDelta.changed.location, 'the address changed');
    assert.ok('description' in hit.refreshDelta.added, 'a field the graph lacked is added');
    assert.deepEqual(hit.refreshDelta.removed, []);

    const losing = entity.nonCanonicalFacts.find((f: { field: string }) => f.field === 'nbEmployees');
    assert.equal(losing.value, 100, 'the old value lost and is kept as a non-canonical fact');
    const origins = hit.entity_ctx.factOrigins;
    assert.ok(origins.nbEmployees.includes(a.url('/about')), 'the page is an origin of the new fact');
    assert.ok(entity.origins.includes(`http://${homeHost()}/`), 'the homepage became an origin');

    const stored = t.runtime.storage.entities.getById('ORG-fixture')!;
    assert.equal(stored.doc.nbEmployees, 120, 'the rebuilt entity is stored');
    assert.equal(body.searchInfo['ORG-fixture'].baseMlScore > 0, true);
    assert.equal(typeof body.searchInfo['ORG-fixture'].mlScore, 'number');
    assert.equal(hit.score, body.searchInfo['ORG-fixture'].mlScore);

    const id = (await t.runtime.services.tokens.find(secret))!.id;
    assert.equal(await t.runtime.services.tokens.balance(id), 900, 'pages were fetched: the refresh price');

    const found = await enhance('type=Organization&name=Fixture%20Robotics&phone=%2B49%2030%205550120');
    assert.equal(found.data[0]?.entity.id, 'ORG-fixture', 'the new phone finds the entity at once');
  });

  test('facts that change between fetches are picked up, and refreshDelta says what changed', async () => {
    today.employees = 150;
    today.phone = '+49 30 5550150';
    const body = await enhance('type=Organization&id=ORG-fixture&refresh=true&nonCanonicalFacts=true');
    const [hit] = body.data;
    assert.equal(hit.score, 1, 'an id query keeps score 1');
    assert.equal(hit.entity.nbEmployees, 150);
    assert.deepEqual(hit.refreshDelta.changed.nbEmployees, { old: 120, new: 150 });
    const losing = hit.entity.nonCanonicalFacts
      .filter((f: { field: string }) => f.field === 'nbEmployees')
      .map((f: { value: number }) => f.value);
    assert.deepEqual(losing, [100], '120 is no longer stated by any page');
    assert.ok(hit.entity.phoneNumbers.some((p: { digits: string }) => p.digits === '+49305550150'));
    assert.ok(
      !hit.entity.phoneNumbers.some((p: { digits: string }) => p.digits === '+49305550120'),
      "a page's new statement replaces its previous one",
    );
    const again = await enhance('type=Organization&id=ORG-fixture&refresh=true');
    assert.deepEqual(again.data[0].refreshDelta, { added: {}, changed: {}, removed: [] }, 'nothing changed');
  });

  test('the query is scored again on the rebuilt entity: the score before and after', async () => {
    today.phone = '+49 30 5550199';
    const body = await enhance(
      'type=Organization&name=Fixture%20Robotics&phone=%2B49%2030%205550199&refresh=true&threshold=0',
    );
    const info = body.searchInfo['ORG-fixture'];
    assert.equal(body.data[0].entity.id, 'ORG-fixture');
    assert.ok(info.mlScore > info.baseMlScore, `the new phone is evidence: ${JSON.stringify(info)}`);
    assert.equal(body.data[0].score, info.mlScore);
  });

  test('a refresh that changes nothing the matcher reads keeps the score', async () => {
    today.employees += 10;
    const body = await enhance('type=Organization&name=Fixture%20Robotics&refresh=true');
    assert.deepEqual(Object.keys(body.data[0].refreshDelta.changed), ['nbEmployees']);
    const info = body.searchInfo['ORG-fixture'];
    assert.equal(info.mlScore, info.baseMlScore);
    assert.equal(body.data[0].score, info.mlScore);
  });

  test('concurrent refreshes of one entity fetch each page once', async () => {
    const slow = (site: FixtureServer, path: string) =>
      site.route(
        path,
        respond.delay(300, (rq, rs, u) => respond.html(page(today))(rq, rs, u)),
      );
    slow(a, '/about');
    slow(b, '/companies/fixture-robotics');
    a.clearLog();
    b.clearLog();
    try {
      const bodies = await Promise.all(
        Array.from({ length: 5 }, () => enhance('type=Organization&id=ORG-fixture&refresh=true')),
      );
      for (const body of bodies) assert.equal(body.data[0].entity.id, 'ORG-fixture');
      assert.equal(a.count('/about'), 1);
      assert.equal(b.count('/companies/fixture-robotics'), 1);
    } finally {
      serveToday();
    }
  });

  test('a page that now describes another company is not merged', async () => {
    b.route(
      '/companies/fixture-robotics',
      respond.html(organizationPage({ name: 'Domain Parking Services', phone: '+1 555 0100', employees: 3 })),
    );
    try {
      const body = await enhance('type=Organization&id=ORG-fixture&refresh=true');
      const info = body.data[0].refreshInfo[b.url('/companies/fixture-robotics')];
      assert.equal(info.hasResult, false);
      assert.match(info.message, /Domain Parking Services/);
      assert.equal(body.data[0].entity.nbEmployees, today.employees);
      assert.notEqual(body.data[0].entity.name, 'Domain Parking Services');
    } finally {
      serveToday();
    }
  });

  test('combine refreshes the person and the employer', async () => {
    b.route(
      '/people/rita',
      respond.html(
        personPage({
          name: 'Rita Fixture',
          jobTitle: 'Head of Engineering',
          employer: 'Fixture Robotics GmbH',
          city: 'Berlin',
        }),
      ),
    );
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/kg/v3/enhance/combine?token=${token}&type=Person&name=Rita%20Fixture&employer=Fixture%20Robotics&refresh=true&threshold=0`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.hits, 2);
    assert.equal(body.data[0].entity.id, 'PER-rita');
    assert.equal(body.data[0].refreshInfo[b.url('/people/rita')].hasResult, true);
    assert.ok(body.data[0].refreshDelta.changed.employments || body.data[0].refreshDelta.added.location);
    assert.equal(body.data[1].entity.id, 'ORG-fixture');
    assert.equal(body.data[1].entity_ctx.role, 'currentEmployer');
    assert.ok(body.data[1].refreshInfo[a.url('/about')]);
  });

  test('an entity without origins: a note, and the plain price', async () => {
    const secret = await t.token(100);
    const body = await enhance('type=Organization&id=ORG-nowhere&refresh=true', secret);
    assert.equal(body.hits, 1);
    assert.deepEqual(body.data[0].refreshInfo, {});
    assert.deepEqual(body.data[0].errors, ['refresh: the entity has no origin URL to fetch']);
    assert.equal(
      await t.runtime.services.tokens.balance((await t.runtime.services.tokens.find(secret))!.id),
      75,
    );
  });
});

describe('refresh freshness window (QUARRY_REFRESH_MAX_AGE)', () => {
  let site: FixtureServer;
  let t: TestRuntime;
  before(async () => {
    site = await startFixtureServer();
    site.route(
      '/about',
      respond.html(
        organizationPage({ name: 'Freshness Labs', employees: 40, city: 'Lyon', country: 'France' }),
      ),
    );
    t = await startTestRuntime({
      web: { refreshMaxAgeMs: 3_600_000, crawlDelayMs: 0, searchUrl: undefined },
    });
    await importRecords(t, [
      {
        id: 'ORG-fresh',
        type: 'Organization',
        name: 'Freshness Labs',
        origins: [site.url('/about')],
        nbEmployees: 30,
      },
    ]);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('an origin fetched less than the window ago is not fetched again, and costs the plain price', async () => {
    const secret = await t.token(1_000);
    const id = (await t.runtime.services.tokens.find(secret))!.id;
    const get = async () => {
      const res = await t.runtime.app.inject({
        method: 'GET',
        url: `/kg/v3/enhance?token=${secret}&type=Organization&id=ORG-fresh&refresh=true`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const first = await get();
    assert.equal(first.data[0].entity.nbEmployees, 40);
    assert.equal(site.count('/about'), 1);
    assert.equal(await t.runtime.services.tokens.balance(id), 900);
    const firstTime = first.data[0].refreshInfo[site.url('/about')].lastCrawlTime;

    const second = await get();
    const info = second.data[0].refreshInfo[site.url('/about')];
    assert.equal(site.count('/about'), 1, 'not fetched again');
    assert.match(info.message, /^not fetched: fresh/);
    assert.equal(info.hasResult, true);
    assert.equal(info.lastCrawlTime, firstTime, 'when it was last fetched');
    assert.equal(second.data[0].entity.nbEmployees, 40);
    assert.equal(await t.runtime.services.tokens.balance(id), 875, 'nothing fetched: the plain price');
  });
});
