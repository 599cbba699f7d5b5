import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SEARCH_NOT_CONFIGURED, SEARCH_NOT_FOR_ID } from '../src/search/index.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
/** Two more sources state ORG-acme: one agrees on the founding date, one disagrees. */
const MORE_SOURCES = path.join(import.meta.dirname, 'fixtures', 'kg-small-more-sources.jsonl');

describe('enhance API (GET/POST /kg/v3/enhance, combine)', () => {
  let t: TestRuntime;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE, MORE_SOURCES);
    token = await t.token(null);
  });
  after(async () => t.close());

  const get = (query: string, headers: Record<string, string> = {}) =>
    t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance?${query}`, headers });
  const post = (body: unknown, query = `token=${token}`) =>
    t.runtime.app.inject({ method: 'POST', url: `/kg/v3/enhance?${query}`, payload: body as object });

  describe('matching', () => {
    test('finds an organization by name and domain, with score, esscore and searchInfo', async () => {
      const res = await get(
        `token=${token}&type=Organization&name=Acme%20Robotics&url=https://www.acme-robotics.example/`,
      );
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.version, 3);
      assert.equal(body.hits, 1);
      assert.equal(body.data.length, 1);
      assert.equal(body.data[0].entity.id, 'ORG-acme');
      assert.ok(body.data[0].score > 0 && body.data[0].score <= 1);
      assert.equal(typeof body.data[0].esscore, 'number');
      assert.equal(typeof body.kgversion, 'string');
      assert.ok(body.searchInfo['ORG-acme'], 'the winner is explained in searchInfo');
      assert.equal(body.searchInfo['ORG-acme'].mlScore, body.data[0].score);
      assert.equal(typeof body.searchInfo['ORG-acme'].debugInfo.message, 'string');
      assert.deepEqual(body.request_ctx.query, {
        type: 'Organization',
        name: ['Acme Robotics'],
        url: ['https://www.acme-robotics.example/'],
      });
      assert.equal(body.request_ctx.query_ctx.type, 'Organization');
      assert.equal(body.request_ctx.query_ctx.token, undefined, 'the token is never echoed');
    });

    test('a query about nothing in the graph has no hits and costs nothing', async () => {
      const paying = await t.token(100);
      const res = await get(
        `token=${paying}&type=Organization&name=Zzyzx%20Quantum%20Bakery&url=zzyzx-bakery.example`,
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().hits, 0);
      assert.deepEqual(res.json().data, []);
      assert.equal(
        await t.runtime.services.tokens.balance((await t.runtime.services.tokens.find(paying))!.id),
        100,
      );
    });

    test('threshold=1 keeps only certain hits; size bounds the number of hits', async () => {
      const strict = await get(`token=${token}&type=Organization&name=Acme&threshold=1`);
      assert.equal(strict.statusCode, 200);
      assert.equal(strict.json().hits, 0);
      const many = await get(`token=${token}&type=Organization&name=Acme%20Robotics&size=3&threshold=0`);
      const body = many.json();
      assert.ok(body.hits >= 1 && body.hits <= 3);
      assert.equal(body.hits, body.data.length);
      const scores = body.data.map((d: { score: number }) => d.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
        'data is sorted by score, descending',
      );
    });

    test('a person is found by e-mail; customId is echoed', async () => {
      const res = await get(
        `token=${token}&type=Person&email=jane.doe@acme-robotics.example&customId=crm-17`,
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data[0].entity.id, 'PER-jane');
      assert.equal(res.json().request_ctx.query.customId, 'crm-17');
    });

    test('an id query returns that entity with score 1; an unknown id has no hit and says so', async () => {
      const res = await get(`token=${token}&type=Organization&id=ORG-globex`);
      assert.equal(res.json().hits, 1);
      assert.equal(res.json().data[0].score, 1);
      assert.equal(res.json().data[0].entity.name, 'Globex Corporation');
      const missing = await get(`token=${token}&type=Organization&id=ORG-nope`);
      assert.equal(missing.statusCode, 200);
      assert.equal(missing.json().hits, 0);
      assert.match(missing.json().errors[0], /ORG-nope/);
      const wrongType = await get(`token=${token}&type=Person&id=ORG-globex`);
      assert.equal(wrongType.json().hits, 0);
      assert.match(wrongType.json().errors[0], /is a Organization, not a Person|Organization/);
    });

    test('nonCanonicalFacts (the values that lost) are returned only when asked for', async () => {
      const plain = await get(`token=${token}&type=Organization&id=ORG-acme`);
      const entity = plain.json().data[0].entity;
      assert.equal(entity.nonCanonicalFacts, undefined);
      assert.deepEqual(entity.foundingDate, { str: 'd1998-03-01', precision: 3 }, 'two sources beat one');
      const full = await get(`token=${token}&type=Organization&id=ORG-acme&nonCanonicalFacts=true`);
      const losing = full.json().data[0].entity.nonCanonicalFacts;
      assert.deepEqual(
        losing.find((f: { field: string }) => f.field === 'foundingDate'),
        {
          field: 'foundingDate',
          value: { str: 'd1999-01-01', precision: 3 },
          origins: ['https://registry.example/acme'],
        },
      );
    });

    test('jsonmode=extended adds the origins supporting each fact', async () => {
      const res = await get(`token=${token}&type=Organization&id=ORG-acme&jsonmode=extended`);
      const origins = res.json().data[0].entity_ctx.factOrigins;
      assert.deepEqual([...origins.foundingDate].sort(), [
        'https://acme-robotics.example/',
        'https://news.example/acme-profile',
      ]);
      assert.deepEqual(
        origins.nbEmployees,
        ['https://news.example/acme-profile'],
        'the most recent source won the tie',
      );
      assert.deepEqual(origins.location, ['https://acme-robotics.example/']);
      const single = await get(`token=${token}&type=Organization&id=ORG-globex&jsonmode=extended`);
      assert.deepEqual(single.json().data[0].entity_ctx.factOrigins.name, ['https://globex.example/about']);
      const plain = await get(`token=${token}&type=Organization&id=ORG-globex`);
      assert.equal(plain.json().data[0].entity_ctx, undefined);
    });

    test('search without a configured provider, or on an id query, answers from the graph with a note', async () => {
      const byId = await get(`token=${token}&type=Organization&id=ORG-globex&search=1`);
      assert.equal(byId.statusCode, 200);
      assert.equal(byId.json().hits, 1);
      assert.deepEqual(byId.json().errors, [SEARCH_NOT_FOR_ID]);
      for (const mode of ['true', 'ON', 'FALLBACK', 'SEARCHONLY']) {
        const res = await get(`token=${token}&type=Organization&name=Globex%20Corporation&search=${mode}`);
        assert.equal(res.statusCode, 200, mode);
        assert.deepEqual(res.json().errors, [SEARCH_NOT_CONFIGURED], mode);
        // SEARCHONLY ignores the graph, but with no provider there is nothing else to answer from.
        assert.equal(res.json().data[0].entity.id, 'ORG-globex', mode);
      }
      const bad = await get(`token=${token}&type=Organization&name=Globex&search=sometimes`);
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /'search'/);
    });

    test('filter keeps only the given paths (plus id and type); filterExclude removes them', async () => {
      const kept = await get(`token=${token}&type=Organization&id=ORG-acme&filter=name;location.city.name`);
      assert.deepEqual(kept.json().data[0].entity, {
        id: 'ORG-acme',
        type: 'Organization',
        name: 'Acme Robotics Inc.',
        location: { city: { name: 'Lyon' } },
      });
      const jsonPath = await get(
        `token=${token}&type=Person&id=PER-jane&filter=${encodeURIComponent('$.employments[?@.isCurrent == true].title')}`,
      );
      assert.deepEqual(jsonPath.json().data[0].entity.employments, [{ title: 'Chief Technology Officer' }]);
      const removed = await get(
        `token=${token}&type=Organization&id=ORG-acme&filterExclude=allNames;location`,
      );
      const entity = removed.json().data[0].entity;
      assert.equal(entity.allNames, undefined);
      assert.equal(entity.location, undefined);
      assert.equal(entity.name, 'Acme Robotics Inc.');
    });

    test('an invalid filter path is a 400 naming it', async () => {
      const res = await get(
        `token=${token}&type=Organization&id=ORG-acme&filter=${encodeURIComponent('$.name[')}`,
      );
      assert.equal(res.statusCode, 400);
      assert.match(res.json().message, /filter/);
      assert.match(res.json().message, /\$\.name\[/);
      const exclude = await get(
        `token=${token}&type=Organization&id=ORG-acme&filterExclude=${encodeURIComponent('$[?')}`,
      );
      assert.equal(exclude.statusCode, 400);
      assert.match(exclude.json().message, /filterExclude/);
    });

    test('unknown parameters are reported in errors, not silently dropped', async () => {
      const res = await get(`token=${token}&type=Organization&id=ORG-globex&thresold=0.9`);
      assert.equal(res.statusCode, 200);
      assert.ok(res.json().errors.some((e: string) => e.includes("'thresold'")));
    });
  });

  describe('400: bad parameters are named', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['missing type', 'name=Acme', /'type'/],
      ['unknown type', 'type=Planet&name=Acme', /'type'.*Person or Organization/],
      ['Person-only email on Organization', 'type=Organization&email=a@b.example', /'email'.*Person only/],
      ['Person-only employer on Organization', 'type=Organization&name=x&employer=Acme', /'employer'/],
      ['Person-only title on Organization', 'type=Organization&name=x&title=CEO', /'title'/],
      ['Person-only school on Organization', 'type=Organization&name=x&school=MIT', /'school'/],
      ['no identifying field', 'type=Organization&location=Paris', /identifying field/],
      ['size 0', 'type=Organization&name=Acme&size=0', /'size'/],
      ['size 101', 'type=Organization&name=Acme&size=101', /'size'/],
      ['size not a number', 'type=Organization&name=Acme&size=abc', /'size'/],
      ['size not an integer', 'type=Organization&name=Acme&size=1.5', /'size'/],
      ['threshold above 1', 'type=Organization&name=Acme&threshold=1.5', /'threshold'/],
      ['threshold below 0', 'type=Organization&name=Acme&threshold=-0.1', /'threshold'/],
      ['threshold not a number', 'type=Organization&name=Acme&threshold=high', /'threshold'/],
      ['bad jsonmode', 'type=Organization&name=Acme&jsonmode=compact', /'jsonmode'/],
      ['bad boolean', 'type=Organization&name=Acme&refresh=maybe', /'refresh'/],
      ['repeated scalar', 'type=Organization&name=Acme&phone=1&phone=2', /'phone'/],
      ['invalid ip', 'type=Organization&ip=999.1.1.1', /'ip'/],
    ];
    for (const [label, query, pattern] of cases) {
      test(label, async () => {
        const res = await get(`token=${token}&${query}`);
        assert.equal(res.statusCode, 400, res.body);
        const body = res.json();
        assert.equal(body.code, 400);
        assert.equal(body.error, true);
        assert.match(body.message, pattern);
      });
    }
  });

  describe('401: token problems', () => {
    test('missing token', async () => {
      const res = await get('type=Organization&name=Acme');
      assert.equal(res.statusCode, 401);
      const body = res.json();
      assert.equal(body.code, 401);
      assert.match(body.message, /missing/i);
      assert.equal(typeof body.requestId, 'string');
    });

    test('incorrect token', async () => {
      const res = await get('token=0123456789abcdef0123456789abcdef&type=Organization&name=Acme');
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().message, 'Unauthorized. Incorrect token.');
    });

    test('Bearer header works; the query parameter wins when both are sent', async () => {
      const bearer = await get('type=Organization&id=ORG-globex', { authorization: `Bearer ${token}` });
      assert.equal(bearer.statusCode, 200);
      const both = await get('token=wrong&type=Organization&id=ORG-globex', {
        authorization: `Bearer ${token}`,
      });
      assert.equal(both.statusCode, 401);
    });
  });

  describe('credits', () => {
    test('25 credits per returned match, nothing extra for a search that did nothing; 429 when the balance cannot pay', async () => {
      const secret = await t.token(75);
      const id = (await t.runtime.services.tokens.find(secret))!.id;
      const ok = await get(`token=${secret}&type=Organization&id=ORG-globex`);
      assert.equal(ok.statusCode, 200);
      assert.equal(await t.runtime.services.tokens.balance(id), 50);
      const search = await get(`token=${secret}&type=Organization&name=Globex%20Corporation&search=true`);
      assert.equal(search.statusCode, 200);
      assert.equal(search.json().hits, 1);
      assert.equal(await t.runtime.services.tokens.balance(id), 25, 'no provider: no work, the plain price');
      const last = await get(`token=${secret}&type=Organization&id=ORG-globex`);
      assert.equal(last.statusCode, 200);
      const tooMuch = await get(`token=${secret}&type=Organization&id=ORG-globex`);
      assert.equal(tooMuch.statusCode, 429);
      assert.deepEqual(tooMuch.json(), { code: 429, message: 'Insufficient credits', error: true });
      assert.equal(await t.runtime.services.tokens.balance(id), 0, 'a refused request takes nothing');
    });

    test('concurrent requests never drive the balance below zero', async () => {
      const secret = await t.token(25 * 7);
      const id = (await t.runtime.services.tokens.find(secret))!.id;
      const results = await Promise.all(
        Array.from({ length: 20 }, () => get(`token=${secret}&type=Organization&id=ORG-initech`)),
      );
      const codes = results.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 7);
      assert.equal(codes.filter((c) => c === 429).length, 13);
      assert.equal(await t.runtime.services.tokens.balance(id), 0);
    });
  });

  describe('POST /kg/v3/enhance', () => {
    test('accepts the query as JSON with strings or arrays', async () => {
      const res = await post({
        type: 'Organization',
        name: 'Globex Corporation',
        url: 'globex.example',
        size: 2,
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data[0].entity.id, 'ORG-globex');
      assert.deepEqual(res.json().request_ctx.query.name, ['Globex Corporation']);
      const arrays = await post({ type: 'Person', email: ['jsmith@globex.example'], customId: 42 });
      assert.equal(arrays.json().data[0].entity.id, 'PER-john');
      assert.equal(arrays.json().request_ctx.query.customId, '42');
    });

    test('400 for a body that is not an object, bad JSON, or wrong value types', async () => {
      const notObject = await post([{ type: 'Organization', name: 'x' }]);
      assert.equal(notObject.statusCode, 400);
      const badJson = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance?token=${token}`,
        headers: { 'content-type': 'application/json' },
        payload: '{"type": "Organization", "name": ',
      });
      assert.equal(badJson.statusCode, 400);
      assert.match(badJson.json().message, /JSON/);
      const wrongType = await post({ type: 'Organization', name: [1, 2] });
      assert.equal(wrongType.statusCode, 400);
      assert.match(wrongType.json().message, /name/);
      const wrongSize = await post({ type: 'Organization', name: 'x', size: 'ten' });
      assert.equal(wrongSize.statusCode, 400);
      assert.match(wrongSize.json().message, /size/);
    });

    test('413 for an oversized body', async () => {
      const huge = { type: 'Organization', name: 'x', description: 'y'.repeat(11 * 1024 * 1024) };
      const res = await post(huge);
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 413);
      assert.equal(res.json().error, true);
    });

    test('401 without a token', async () => {
      const res = await post({ type: 'Organization', name: 'x' }, '');
      assert.equal(res.statusCode, 401);
    });
  });

  describe('GET /kg/v3/enhance/combine', () => {
    const combine = (query: string) =>
      t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance/combine?token=${token}&${query}` });

    test('returns the person and their current employer', async () => {
      const res = await combine('type=Person&email=jane.doe@acme-robotics.example');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.hits, 2);
      assert.equal(body.data[0].entity.id, 'PER-jane');
      assert.equal(body.data[1].entity.id, 'ORG-acme');
      assert.equal(body.data[1].entity_ctx.role, 'currentEmployer');
    });

    test('resolves an employer given only by name', async () => {
      const res = await combine('type=Person&email=jsmith@globex.example');
      assert.equal(res.json().data[1]?.entity.id, 'ORG-globex');
    });

    test('a person without a current employer: only the person and a note', async () => {
      const res = await combine('type=Person&name=Ana%20Souza&location=Recife');
      const body = res.json();
      assert.equal(body.data.length, 1);
      assert.equal(body.data[0].entity.id, 'PER-ana');
      assert.ok(body.errors.some((e: string) => /no current employer/.test(e)));
    });

    test('400 for Organization, id, size or description', async () => {
      for (const query of [
        'type=Organization&name=Acme',
        'type=Person&id=PER-jane',
        'type=Person&name=Jane&size=2',
        'type=Person&name=Jane&description=x',
      ]) {
        const res = await combine(query);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().error, true);
      }
    });
  });
});

test('500: an unexpected failure answers the general error body', async () => {
  const t = await startTestRuntime();
  const token = await t.token(null);
  await t.runtime.storage.close(); // the store goes away under the server: a real internal failure
  const res = await t.runtime.app.inject({
    method: 'GET',
    url: `/kg/v3/enhance?token=${token}&type=Organization&name=Acme`,
  });
  assert.equal(res.statusCode, 500);
  assert.equal(res.json().code, 500);
  assert.equal(res.json().error, true);
  assert.equal(res.json().message, 'Internal server error');
  await t.runtime.app.close();
});
