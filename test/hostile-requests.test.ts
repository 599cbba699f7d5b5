/**
 * Issue 28: hostile requests get a clear 4xx and store nothing — deeply nested JSON (item 6),
 * `__proto__` keys and a 20,000-character GET (item 10), slow clients (item 8).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MAX_JSON_DEPTH } from '../src/json-depth.ts';
import { RawConnection } from './support/raw-http.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const json = { 'content-type': 'application/json' };

describe('hostile request bodies', () => {
  let t: TestRuntime;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    token = await t.token();
  });
  after(async () => t.close());

  test('10,000-level JSON in an enhance body: a clear 400 that echoes nothing', async () => {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: `/kg/v3/enhance?token=${token}`,
      headers: json,
      payload: `{"type":"Organization","name":"Acme","customId":${nested(10_000)}}`,
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`));
    assert.ok(res.body.length < 300, 'nothing of the body is echoed');
    // Nesting within the limit is not refused for its depth.
    const fine = await t.runtime.app.inject({
      method: 'POST',
      url: `/kg/v3/enhance?token=${token}`,
      headers: json,
      payload: `{"type":"Organization","name":"Acme","customId":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    assert.doesNotMatch(fine.body, /nested deeper/);
  });

  test('10,000-level JSON in a bulk record: 400 naming the record, no job stored', async () => {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: `/kg/v3/enhance/bulk?token=${token}`,
      headers: json,
      payload: `[{"type":"Organization","name":"Acme"},{"type":"Organization","name":"B","x":${nested(10_000)}}]`,
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /'body\[1\]': JSON nested deeper than 64 levels/);
    assert.ok(res.body.length < 300);
    const list = await t.runtime.app.inject({ url: `/kg/v3/enhance/bulk/status?token=${token}` });
    assert.deepEqual(list.json(), []);
  });

  test('deep JSON in the other JSON routes: 400, never 500', async () => {
    for (const url of [
      `/v3/custom?token=${token}`,
      `/v3/custom/preview?token=${token}`,
      `/v3/bulk?token=${token}`,
    ]) {
      const res = await t.runtime.app.inject({ method: 'POST', url, headers: json, payload: nested(10_000) });
      assert.equal(res.statusCode, 400, url);
      assert.match(res.json().error, /nested deeper/);
    }
  });

  test('a __proto__ key is refused as such, not as "not valid JSON"', async () => {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: `/kg/v3/enhance?token=${token}`,
      headers: json,
      payload: '{"type":"Organization","name":"Acme","__proto__":{"admin":true}}',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /'__proto__' or 'constructor.prototype' key is refused/);
    assert.doesNotMatch(res.json().message, /not valid JSON/);
  });
});

describe('requests refused before routing, and slow clients', () => {
  let t: TestRuntime;
  let port: number;
  before(async () => {
    t = await startTestRuntime({ timeouts: { headersMs: 400, requestMs: 5_000, bodyIdleMs: 400 } });
    await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.runtime.app.server.address() as AddressInfo).port;
  });
  after(async () => t.close());

  test('a 20,000-character GET: 431 in our error body shape', async () => {
    for (const [path, shape] of [
      ['/kg/v3/enhance', 'A'],
      ['/v3/analyze', 'BC'],
    ] as const) {
      const connection = await RawConnection.open(port);
      try {
        connection.request(`GET ${path}?name=${'a'.repeat(20_000)}`);
        const res = await connection.next();
        assert.equal(res.status, 431);
        assert.equal(res.headers.connection, 'close');
        const body = JSON.parse(res.body);
        if (shape === 'A') assert.deepEqual(Object.keys(body), ['code', 'message', 'error']);
        else assert.deepEqual(Object.keys(body), ['errorCode', 'error']);
        assert.match(shape === 'A' ? body.message : body.error, /larger than 16 KiB/);
      } finally {
        connection.close();
      }
    }
  });

  test('a body that stops arriving: 408 and the connection closed', async () => {
    const connection = await RawConnection.open(port);
    try {
      connection.write(
        'POST /kg/v3/enhance HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
      );
      const started = Date.now();
      const res = await connection.next(4_000);
      assert.equal(res.status, 408);
      assert.match(JSON.parse(res.body).message, /not received in time/);
      assert.ok(Date.now() - started < 3_000);
      assert.equal(await connection.waitClosed(), true);
    } finally {
      connection.close();
    }
  });

  test('headers that never end: 408 and the connection closed', async () => {
    const connection = await RawConnection.open(port);
    try {
      connection.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      const res = await connection.next(4_000);
      assert.equal(res.status, 408);
      assert.equal(await connection.waitClosed(), true);
    } finally {
      connection.close();
    }
  });

  test('a request answered after longer than the body timeout is answered, not cut', async () => {
    // A page that takes 1.5 s to fetch (the body timeout here is 0.4 s; the default is 30 s).
    const site = http.createServer((_req, res) => {
      setTimeout(() => {
        res.setHeader('content-type', 'text/html');
        res.end('<html><head><title>Slow</title></head><body><h1>Slow page</h1></body></html>');
      }, 1_500);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const page = `http://127.0.0.1:${(site.address() as AddressInfo).port}/p`;
    const token = await t.token();
    try {
      const get = await fetch(
        `http://127.0.0.1:${port}/v3/analyze?token=${token}&url=${encodeURIComponent(page)}`,
      );
      assert.equal(get.status, 200, await get.clone().text());
      assert.equal(((await get.json()) as { request: { pageUrl: string } }).request.pageUrl, page);
    } finally {
      site.close();
    }
  });

  test('the server keeps answering others meanwhile', async () => {
    const slow = await RawConnection.open(port);
    slow.write('POST /kg/v3/enhance HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n');
    const other = await RawConnection.open(port);
    try {
      other.request('GET /healthz');
      assert.equal((await other.next(1_000)).status, 200);
    } finally {
      slow.close();
      other.close();
    }
  });
});
