import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logging.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { tempDir } from './support/temp-dir.ts';

// The server's log lines, as written (one JSON text each).
const lines: string[] = [];
const logger = createLogger({ level: 'info', stream: { write: (line: string) => void lines.push(line) } });
const dir = tempDir();
let runtime: Runtime;
let port: number;

before(async () => {
  const config = loadConfig(
    { QUARRY_ALLOW_PRIVATE_NETWORK: '1' },
    { dataDir: dir.path, port: 0, host: '127.0.0.1', workerThreads: 1 },
  );
  runtime = await createRuntime({ ...config, timeouts: { ...config.timeouts, bodyIdleMs: 300 } }, logger);
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (runtime.app.server.address() as AddressInfo).port;
});
after(async () => {
  await runtime.close();
  dir.remove();
});

/** The logged lines whose message is `msg`, parsed, with their text. */
const logged = (msg: string) =>
  lines.map((text) => ({ text, line: JSON.parse(text) })).filter(({ line }) => line.msg === msg);
/** `text` without its time, which differs between two writes. */
const timeless = (text: string) => text.replace(/"time":\d+,/, '');

test('each request line carries its request id first, byte for byte as a pino child of the request writes it', async () => {
  for (let i = 0; i < 2; i++) assert.equal((await runtime.app.inject('/healthz')).statusCode, 200);
  const requests = logged('request').filter(({ line }) => line.url === '/healthz');
  assert.equal(requests.length, 2);
  assert.notEqual(requests[0].line.reqId, requests[1].line.reqId);
  for (const { text, line } of requests) {
    assert.match(line.reqId, /^req-/);
    assert.deepEqual(Object.keys(line), [
      'level',
      'time',
      'pid',
      'name',
      'reqId',
      'method',
      'url',
      'status',
      'ms',
      'msg',
    ]);
    // What the request's own child logger (the line's writer before) writes for the same fields.
    const { reqId, method, url, status, ms } = line;
    const before = logged('request').length;
    logger.child({ reqId }).info({ method, url, status, ms }, 'request');
    assert.equal(timeless(logged('request')[before].text), timeless(text));
  }
});

test("a line logged through request.log (a stalled body's 408) carries the request's id", async () => {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  // Half a body, then silence: answered 408 after the idle time (300 ms here).
  socket.write(
    'POST /kg/v3/enhance HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
  );
  await new Promise((resolve) => socket.once('close', resolve));
  assert.match(answer, /^HTTP\/1\.1 408/);
  const [stalled] = logged('request body stalled: answered 408');
  assert.ok(stalled, 'the stall is logged');
  assert.match(stalled.line.reqId, /^req-/);
  assert.deepEqual(Object.keys(stalled.line), ['level', 'time', 'pid', 'name', 'reqId', 'idleMs', 'msg']);
});
