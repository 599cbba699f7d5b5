import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DRAIN_LIMIT_BYTES } from '../src/http/unread-body.ts';
import { RawConnection, type RawResponse } from './support/raw-http.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const MB = 1024 * 1024;
/** A body of about `size` bytes that starts with `prefix`. */
const large = (prefix: string, size = MB) =>
  Buffer.concat([Buffer.from(prefix), Buffer.alloc(size - prefix.length, 'a')]);

/**
 * Issue 31: an early answer (before the body is read to its end) must leave a kept-alive
 * connection usable, or close it saying `Connection: close` — never half-read, where the next
 * request on it is never answered. Every route that can answer before reading its body is sent
 * about 1 MB it rejects early, then `GET /healthz` on the same socket.
 */
describe('early answers to large bodies keep the connection usable', () => {
  let t: TestRuntime;
  let port: number;
  let token: string;

  before(async () => {
    t = await startTestRuntime({
      limits: { enhanceBodyBytes: 256 * 1024, bulkBodyBytes: 200 * MB, bulkMaxRecords: 1000, maxSize: 100 },
    });
    await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.runtime.app.server.address() as AddressInfo).port;
    token = await t.token();
  });
  after(async () => t.close());

  /** Sends `head` with `body`, checks the early answer, then a second request on the socket. */
  async function rejectThenReuse(
    head: string,
    body: Buffer,
    headers: Record<string, string>,
    expected: number,
  ): Promise<RawResponse> {
    const connection = await RawConnection.open(port);
    try {
      connection.request(head, { headers, body });
      const first = await connection.next();
      assert.equal(first.status, expected, first.body);
      assert.notEqual(first.headers.connection, 'close', 'a body under the drain limit is drained, not cut');
      connection.request('GET /healthz');
      const second = await connection.next();
      assert.equal(second.status, 200);
      assert.deepEqual(JSON.parse(second.body), { status: 'ok' });
      return first;
    } finally {
      connection.close();
    }
  }

  const json = { 'Content-Type': 'application/json' };
  const png = { 'Content-Type': 'image/png' };

  test('enhance POST: body over the limit (413) and an unsupported Content-Type (400)', async () => {
    await rejectThenReuse(`POST /kg/v3/enhance?token=${token}`, large('{"name":"'), json, 413);
    await rejectThenReuse(`POST /kg/v3/enhance?token=${token}`, large('{"name":"'), png, 400);
  });

  test('bulk submit: not an array, an oversized record, a bad parameter, no token', async () => {
    const first = await rejectThenReuse(`POST /kg/v3/enhance/bulk?token=${token}`, large('xx'), json, 400);
    assert.match(JSON.parse(first.body).message, /not a valid JSON array/);
    // Rejected part way through the body: the first record is read, the second is too large.
    const record = '{"type":"Organization","name":"Acme"},{"name":"';
    const partWay = await rejectThenReuse(
      `POST /kg/v3/enhance/bulk?token=${token}`,
      large(`[${record}`, 2 * MB),
      json,
      413,
    );
    assert.match(JSON.parse(partWay.body).message, /Record 1 is larger/);
    await rejectThenReuse(`POST /kg/v3/enhance/bulk?token=${token}&size=abc`, large('['), json, 400);
    await rejectThenReuse('POST /kg/v3/enhance/bulk', large('['), json, 401);
    // Nothing was stored by any of them.
    const list = await t.runtime.app.inject({ url: `/kg/v3/enhance/bulk/status?token=${token}` });
    assert.deepEqual(list.json(), []);
  });

  test('bulk download POST: body over the limit and an unsupported Content-Type', async () => {
    await rejectThenReuse(`POST /kg/v3/enhance/bulk/nojob?token=${token}`, large('{"format":"'), json, 413);
    await rejectThenReuse(`POST /kg/v3/enhance/bulk/nojob?token=${token}`, large('{"format":"'), png, 400);
  });

  test('custom API: body over the limit and an unsupported Content-Type', async () => {
    await rejectThenReuse(`POST /v3/custom?token=${token}`, large('{"api":"'), json, 413);
    await rejectThenReuse(`POST /v3/custom?token=${token}`, large('{"api":"'), png, 400);
    await rejectThenReuse(`POST /v3/custom/preview?token=${token}`, large('{"api":"'), json, 413);
  });

  test('extraction POST: page over the limit and an unsupported Content-Type', async () => {
    const head = `POST /v3/analyze?token=${token}&url=http://example.com/`;
    await rejectThenReuse(head, large('<p>'), { 'Content-Type': 'text/html' }, 413);
    await rejectThenReuse(head, large('<p>'), png, 400);
  });

  test('bulk extract create: an unsupported Content-Type and a form without a token', async () => {
    await rejectThenReuse(`POST /v3/bulk?token=${token}`, large('name='), png, 400);
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const answer = await rejectThenReuse('POST /v3/bulk', large('name=j&seeds='), form, 401);
    assert.equal(JSON.parse(answer.body).errorCode, 401);
  });

  test('a remainder over the drain limit: Connection: close, and the connection closes', async () => {
    const connection = await RawConnection.open(port);
    try {
      // Announces more than the drain limit but sends only 1 MB and waits.
      connection.write(
        `POST /kg/v3/enhance/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${DRAIN_LIMIT_BYTES + MB}\r\n\r\n`,
      );
      connection.write(large('['));
      const first = await connection.next();
      assert.equal(first.status, 401);
      assert.equal(first.headers.connection, 'close');
      assert.equal(await connection.waitClosed(), true, 'the server closes the connection');
    } finally {
      connection.close();
    }
  });

  test('a chunked body rejected early is drained too', async () => {
    const connection = await RawConnection.open(port);
    try {
      connection.write(
        `POST /kg/v3/enhance/bulk?token=${token} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = large('xx', 256 * 1024);
      for (let i = 0; i < 4; i++) connection.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      const first = await connection.next();
      assert.equal(first.status, 400);
      connection.write('0\r\n\r\n');
      connection.request('GET /healthz');
      assert.equal((await connection.next()).status, 200);
    } finally {
      connection.close();
    }
  });
});
