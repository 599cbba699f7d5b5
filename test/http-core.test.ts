import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('http core', () => {
  let t: TestRuntime;
  before(async () => {
    t = await startTestRuntime();
  });
  after(async () => t.close());

  test('GET /healthz answers 200', async () => {
    const res = await t.runtime.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ok');
  });

  test('unknown area A route: 404 with the general error body', async () => {
    const res = await t.runtime.app.inject({ method: 'GET', url: '/kg/v3/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      code: 404,
      message: 'Route GET /kg/v3/nothing-here not found',
      error: true,
    });
  });

  test('unknown area B/C route: 404 with the errorCode body', async () => {
    const res = await t.runtime.app.inject({ method: 'GET', url: '/v3/nothing/here/at/all' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().errorCode, 404);
  });

  test('serves an OpenAPI 3 document and the interactive docs', async () => {
    const doc = await t.runtime.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(doc.statusCode, 200);
    assert.match(doc.json().openapi, /^3\./);
    const docs = await t.runtime.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });
});
