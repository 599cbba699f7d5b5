/**
 * Issue 27 §1: the W3C Entity Reconciliation API 0.2 at `/reconcile`, over real HTTP on the
 * demo graph. Every answer is checked against the published 0.2 JSON schemas (ajv), and what
 * it says against the graph and the enhance endpoint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadDemoGraph } from '../src/import/index.ts';
import { DEFAULT_DEMO_SIZES, demoExamples, type Entity } from '../src/kg/index.ts';
import { assertValid } from './support/reconcile-schemas.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
  type: { id: string; name: string }[];
  features: { id: string; value: number }[];
}
type Results = Record<string, { result: Candidate[] }>;

describe('the reconciliation service', () => {
  let t: TestRuntime;
  let base: string;
  let token: string;
  const { organization, person, employer } = demoExamples();

  before(async () => {
    t = await startTestRuntime();
    loadDemoGraph(t.runtime.storage.entities, DEFAULT_DEMO_SIZES);
    token = await t.token(null);
    base = await t.runtime.listen();
  });
  after(async () => t.close());

  const get = async (path: string, params: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}?${new URLSearchParams(params)}`);
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  };
  const getJson = async (path: string, params: Record<string, string> = {}) => {
    const response = await get(path, params);
    assert.equal(response.status, 200, response.text);
    assert.match(response.type, /^application\/json/);
    return JSON.parse(response.text);
  };
  const reconcile = async (queries: Record<string, unknown>, via: 'get' | 'form' | 'json' = 'get') => {
    assertValid('reconciliation-query-batch', queries);
    const text = JSON.stringify(queries);
    let response: Response;
    if (via === 'get') {
      response = await fetch(`${base}/reconcile?${new URLSearchParams({ token, queries: text })}`);
    } else if (via === 'form') {
      response = await fetch(`${base}/reconcile?token=${token}`, {
        method: 'POST',
        body: new URLSearchParams({ queries: text }),
      });
    } else {
      response = await fetch(`${base}/reconcile`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ queries }),
      });
    }
    const body = await response.text();
    assert.equal(response.status, 200, body);
    const results = JSON.parse(body) as Results;
    assertValid('reconciliation-result-batch', results);
    return results;
  };
  const orgQuery = (entity: Entity) => ({
    query: entity.name!,
    type: 'Organization',
    properties: [
      { pid: 'website', v: `https://www.${entity.homepageUri}/about` },
      { pid: 'country', v: entity.location!.country!.name! },
    ],
  });

  test('the manifest validates, links the console and passes the token on; JSONP wraps it', async () => {
    const manifest = await getJson('/reconcile');
    assertValid('manifest', manifest);
    assert.ok(!('authentication' in manifest), 'no authentication block (see reconcile-schemas.ts)');
    assert.deepEqual(manifest.versions, ['0.2']);
    assert.deepEqual(
      manifest.defaultTypes.map((type: { id: string }) => type.id),
      ['Organization', 'Person'],
    );
    assert.equal(manifest.view.url, `${base}/console/entity/{{id}}`);
    assert.ok(!manifest.preview.url.includes('token='), 'no token asked, none given');

    const withToken = await getJson('/reconcile/', { token });
    assertValid('manifest', withToken);
    assert.equal(withToken.preview.url, `${base}/reconcile/preview?id={{id}}&token=${token}`);
    assert.equal(withToken.suggest.entity.service_path, `/reconcile/suggest/entity?token=${token}`);
    // OpenRefine appends `?type=` to the proposal URL as it is.
    assert.ok(!withToken.extend.propose_properties.service_path.includes('?'));

    const jsonp = await get('/reconcile', { callback: 'jQuery12_34' });
    assert.equal(jsonp.status, 200);
    assert.match(jsonp.type, /^application\/javascript/);
    const wrapped = /^\/\*\*\/jQuery12_34\((.*)\);$/s.exec(jsonp.text);
    assert.ok(wrapped, jsonp.text.slice(0, 100));
    assert.deepEqual(JSON.parse(wrapped[1]), manifest);
  });

  test('a batch by GET, form POST and JSON POST: the right candidates, scored as enhance scores them', async () => {
    const queries = {
      q0: orgQuery(organization),
      q1: { query: person.name!, type: 'Person', properties: [{ pid: 'employer', v: employer.name! }] },
      q2: { query: employer.name!, type: ['Organization'], limit: 2 },
    };
    const byGet = await reconcile(queries, 'get');
    assert.deepEqual(await reconcile(queries, 'form'), byGet);
    assert.deepEqual(await reconcile(queries, 'json'), byGet);

    const [top] = byGet.q0.result;
    assert.equal(top.id, organization.id);
    assert.equal(top.name, organization.name);
    assert.equal(top.match, true);
    assert.deepEqual(top.type, [{ id: 'Organization', name: 'Organization' }]);
    const features = new Map(top.features.map((f) => [f.id, f.value]));
    assert.ok((features.get('urlHostMatch') ?? 0) > 0, 'the website counted for the match');
    assert.ok((features.get('countryMatch') ?? 0) > 0, 'the country counted for the match');

    // The same query through enhance: the score is its calibrated probability × 100.
    const enhance = await getJson('/kg/v3/enhance', {
      token,
      type: 'Organization',
      name: organization.name!,
      url: `https://www.${organization.homepageUri}/about`,
      location: organization.location!.country!.name!,
    });
    assert.equal(enhance.data[0].entity.id, organization.id);
    assert.ok(
      Math.abs(top.score - enhance.data[0].score * 100) < 0.01,
      `${top.score} vs ${enhance.data[0].score}`,
    );

    assert.equal(byGet.q1.result[0].id, person.id);
    assert.equal(byGet.q1.result[0].match, true);
    assert.ok(byGet.q1.result.every((c) => c.type[0].id === 'Person'));
    assert.ok(byGet.q2.result.length <= 2 && byGet.q2.result[0].id === employer.id);
    for (const results of Object.values(byGet)) {
      const scores = results.result.map((c) => c.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
        'best first',
      );
      assert.ok(
        results.result.slice(1).every((c) => !c.match),
        'only the top candidate may match',
      );
    }
  });

  test('namesakes: no match without the evidence that tells them apart', async () => {
    const results = await reconcile({ q0: { query: person.name!, type: 'Person' } });
    const namesakes = results.q0.result.filter((c) => c.name === person.name);
    assert.ok(namesakes.length >= 2, 'the demo graph holds a namesake');
    assert.ok(
      results.q0.result.every((c) => !c.match),
      JSON.stringify(results.q0.result.slice(0, 2)),
    );
  });

  test('properties alone, any spelling of their ids, and no type: both types asked', async () => {
    const results = await reconcile({
      q0: {
        properties: [
          { pid: 'Phone', v: organization.phoneNumbers![0].string },
          { pid: 'location.country.name', v: organization.location!.country!.name! },
        ],
      },
      q1: {
        query: person.name!,
        properties: [{ pid: 'Company', v: { id: employer.id, name: employer.name! } }],
      },
      q2: { query: organization.name! },
    });
    assert.equal(results.q0.result[0].id, organization.id);
    assert.equal(results.q1.result[0].id, person.id, 'an employer makes the query a Person query');
    assert.equal(results.q2.result[0].id, organization.id);
  });

  test('suggest: entities by the beginning of their name, types and properties by prefix; JSONP', async () => {
    const words = organization.name!.split(' ');
    const prefix = `${words[0]} ${words[1].slice(0, 3)}`;
    const entities = await getJson('/reconcile/suggest/entity', { token, prefix });
    assertValid('suggest-entities-response', entities);
    assert.equal(entities.result[0].id, organization.id, JSON.stringify(entities.result.slice(0, 3)));
    assert.deepEqual(entities.result[0].notable, [{ id: 'Organization', name: 'Organization' }]);
    const persons = await getJson('/reconcile/suggest/entity', {
      token,
      prefix: person.name!.slice(0, 4),
      type: 'Person',
      limit: '5',
    });
    assertValid('suggest-entities-response', persons);
    assert.ok(persons.result.length > 0 && persons.result.length <= 5);
    assert.ok(persons.result.every((e: { notable: { id: string }[] }) => e.notable[0].id === 'Person'));

    const types = await getJson('/reconcile/suggest/type', { prefix: 'pe' });
    assertValid('suggest-types-response', types);
    assert.deepEqual(types.result, [{ id: 'Person', name: 'Person' }]);
    const properties = await getJson('/reconcile/suggest/property', { prefix: 'coun' });
    assertValid('suggest-properties-response', properties);
    assert.ok(properties.result.some((p: { id: string }) => p.id === 'location.country.name'));

    const jsonp = await get('/reconcile/suggest/type', { prefix: 'o', callback: 'cb' });
    assert.equal(jsonp.text, '/**/cb({"result":[{"id":"Organization","name":"Organization"}]});');
  });

  test('preview and flyout: an HTML card of the entity, escaped, linking its console page', async () => {
    const page = await get('/reconcile/preview', { token, id: organization.id });
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    assert.ok(page.text.includes(`<title>${organization.name}</title>`));
    assert.ok(page.text.includes(`${base}/console/entity/${organization.id}`));
    assert.ok(page.text.includes(organization.homepageUri!));
    const flyout = await getJson('/reconcile/flyout/entity', { token, id: organization.id });
    assert.equal(flyout.id, organization.id);
    assert.ok(flyout.html.includes(organization.name!));
    assert.equal((await get('/reconcile/preview', { token, id: 'ORG-none' })).status, 404);
  });

  test('data extension: proposals per type, values from the graph in the 0.2 shapes', async () => {
    const proposals = await getJson('/reconcile/properties', { type: 'Organization', limit: '30' });
    assertValid('data-extension-property-proposal', proposals);
    const ids = proposals.properties.map((p: { id: string }) => p.id);
    for (const id of ['homepageUri', 'location.country.name', 'nbEmployees', 'foundingDate', 'industries'])
      assert.ok(ids.includes(id), id);
    assert.ok(!ids.includes('employments'), 'a Person property is not proposed for organizations');
    const personProposals = await getJson('/reconcile/properties', { type: 'Person' });
    assertValid('data-extension-property-proposal', personProposals);

    const extend = {
      ids: [organization.id, person.id, 'ORG-none'],
      properties: [
        { id: 'location.country.name' },
        { id: 'nbEmployees' },
        { id: 'foundingDate' },
        { id: 'industries' },
        { id: 'employments' },
      ],
    };
    assertValid('data-extension-query', extend);
    const response = await getJson('/reconcile', { token, extend: JSON.stringify(extend) });
    assertValid('data-extension-response', response);
    assert.deepEqual(
      response.meta.map((m: { id: string }) => m.id),
      extend.properties.map((p) => p.id),
    );
    assert.deepEqual(response.meta[4].type, { id: 'Organization', name: 'Organization' });
    const row = response.rows[organization.id];
    assert.deepEqual(row['location.country.name'], [{ str: organization.location!.country!.name }]);
    assert.deepEqual(row.nbEmployees, [{ float: organization.nbEmployees }]);
    assert.deepEqual(row.foundingDate, [{ date: `${organization.foundingDate!.str.slice(1)}T00:00:00Z` }]);
    assert.deepEqual(
      row.industries,
      organization.industries!.map((str) => ({ str })),
    );
    const current = person.employments!.find((job) => job.isCurrent)!;
    assert.ok(
      response.rows[person.id].employments.some(
        (v: { id?: string; name?: string }) =>
          v.id === current.employer!.id && v.name === current.employer!.name,
      ),
    );
    assert.deepEqual(response.rows['ORG-none'].nbEmployees, []);
  });

  test('bad input is a 400 naming it; a token is needed to read the graph, not the schema', async () => {
    const bad = async (params: Record<string, string>, expected: RegExp, status = 400) => {
      const response = await get('/reconcile', { token, ...params });
      assert.equal(response.status, status, response.text);
      assert.match(JSON.parse(response.text).message, expected);
    };
    await bad({ queries: '{"q0":' }, /'queries': not valid JSON/);
    await bad({ queries: '{"q0":{"query":"x","type":"Q5"}}' }, /queries\.q0\.type.*unknown type "Q5"/);
    await bad(
      { queries: '{"q0":{"query":"x","properties":[{"pid":"shoe size","v":"9"}]}}' },
      /properties\[0\]\.pid/,
    );
    await bad(
      { queries: '{"q0":{"query":"x","type":"Organization","properties":[{"pid":"email","v":"a@b.c"}]}}' },
      /queries\.q0.*Person only/,
    );
    await bad({ queries: '{"q0":{"query":"x","limit":0}}' }, /queries\.q0\.limit/);
    await bad({ extend: '{"ids":["a"],"properties":[{"id":"shoeSize"}]}' }, /extend\.properties\[0\]\.id/);
    await bad({ callback: 'alert(1)//' }, /'callback'/);
    const anonymous = await get('/reconcile', { queries: '{"q0":{"query":"x"}}' });
    assert.equal(anonymous.status, 401);
    assert.equal((await get('/reconcile/suggest/entity', { prefix: 'a' })).status, 401);
    assert.equal((await get('/reconcile/preview', { id: organization.id })).status, 401);
    assert.equal((await get('/reconcile/suggest/property', { prefix: 'a' })).status, 200);
    assert.equal((await get('/reconcile/properties', { type: 'Organisation' })).status, 200);
    assert.equal((await get('/reconcile/properties', { type: 'Q5' })).status, 400);
  });

  test('each query with a candidate costs what an enhance costs; a batch the balance cannot pay costs nothing', async () => {
    const { perMatch } = t.runtime.config.credits;
    const secret = await t.token(perMatch * 2);
    const { id } = await t.runtime.services.tokens.authenticate(secret);
    const ask = (queries: Record<string, unknown>) =>
      fetch(`${base}/reconcile?${new URLSearchParams({ token: secret, queries: JSON.stringify(queries) })}`);
    const nothing = { query: 'Zzyzx Qwvvxq', type: 'Organization' };
    const three = {
      q0: orgQuery(organization),
      q1: orgQuery(employer),
      q2: { query: person.name!, type: 'Person' },
    };
    const refused = await ask(three);
    assert.equal(refused.status, 429, await refused.text());
    assert.equal(await t.runtime.services.tokens.balance(id), perMatch * 2);
    const paid = await ask({ q0: orgQuery(organization), q1: nothing });
    const body = (await paid.json()) as Results;
    assert.equal(body.q1.result.length, 0);
    assert.equal(await t.runtime.services.tokens.balance(id), perMatch);
  });
});
