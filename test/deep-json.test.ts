/**
 * Issue 28 item 6: a 10,000-level JSON value gets a clear 400 naming the problem, and nothing is
 * stored, wherever a request carries JSON: every route of the served OpenAPI description that
 * takes a body (so a route added later is covered too), the bulk submit's streamed array (deep
 * inside a record, or around it), and the reconciliation service's `queries` and `extend`
 * parameters, in the query string and in a form.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_JSON_DEPTH } from '../src/json-depth.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const nestedObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const nestedArray = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
const DEEP = new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`);

/** The message of an error body, either dialect (area A `message`, areas B and C `error`). */
function messageOf(body: string): string {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  return String(parsed.message ?? parsed.error ?? '');
}

describe('10,000-level JSON in every request that carries JSON', () => {
  let t: TestRuntime;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    token = await t.token();
  });
  after(async () => t.close());

  /** What the token has stored: bulk jobs, rule sets, bulk extract jobs. */
  async function stored(): Promise<unknown[]> {
    const get = async (url: string) => (await t.runtime.app.inject({ url: `${url}?token=${token}` })).json();
    return [await get('/kg/v3/enhance/bulk/status'), await get('/v3/custom'), (await get('/v3/bulk')).jobs];
  }

  test('every route that takes a body: 400 naming the nesting, nothing stored', async () => {
    const spec = (await t.runtime.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes: Array<{ method: string; url: string }> = [];
    for (const [pattern, operations] of Object.entries(spec.paths)) {
      for (const method of Object.keys(operations)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
        routes.push({ method: method.toUpperCase(), url: pattern.replace(/\{[^}]+\}/g, 'x1') });
      }
    }
    assert.ok(routes.length >= 8, `bodies of ${routes.map((r) => `${r.method} ${r.url}`).join(', ')}`);
    for (const { method, url } of routes) {
      for (const payload of [nestedObject(10_000), nestedArray(10_000), `[${nestedObject(10_000)}]`]) {
        const res = await t.runtime.app.inject({
          method: method as 'POST',
          url: `${url}?token=${token}`,
          headers: { 'content-type': 'application/json' },
          payload,
        });
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body.slice(0, 200)}`);
        // The bulk submit reads an array as it streams in: an object body is refused as that.
        const expected =
          url === '/kg/v3/enhance/bulk' && payload.startsWith('{') ? /must be a JSON array/ : DEEP;
        assert.match(messageOf(res.body), expected, `${method} ${url}`);
        assert.ok(res.body.length < 400, `${method} ${url} echoes nothing of the body`);
      }
    }
    assert.deepEqual(await stored(), [[], [], []]);
  });

  test('bulk submit: deep inside a record, or a record that is a deep array', async () => {
    for (const payload of [
      `[{"type":"Organization","name":"Acme"},{"type":"Organization","name":"B","x":${nestedArray(10_000)}}]`,
      `[{"type":"Organization","name":"Acme"},${nestedArray(10_000)}]`,
    ]) {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk?token=${token}`,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 400, res.body.slice(0, 200));
      assert.match(messageOf(res.body), /'body\[1\]': JSON nested deeper/);
    }
    assert.deepEqual(await stored(), [[], [], []]);
  });

  test('reconciliation: queries and extend, in the query string and in a form', async () => {
    for (const parameter of ['queries', 'extend']) {
      for (const deep of [nestedObject(10_000), nestedArray(10_000)]) {
        const viaQuery = await t.runtime.app.inject({
          url: `/reconcile?token=${token}&${parameter}=${encodeURIComponent(deep)}`,
        });
        assert.equal(viaQuery.statusCode, 400, `${parameter} in the query: ${viaQuery.body.slice(0, 200)}`);
        assert.match(viaQuery.body, DEEP);
        const viaForm = await t.runtime.app.inject({
          method: 'POST',
          url: `/reconcile?token=${token}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `${parameter}=${encodeURIComponent(deep)}`,
        });
        assert.equal(viaForm.statusCode, 400, `${parameter} in a form: ${viaForm.body.slice(0, 200)}`);
        assert.match(viaForm.body, DEEP);
      }
    }
  });
});
