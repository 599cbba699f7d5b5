import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createLogger } from '../logging.ts';
import { newRequestId, type RequestLine, RequestLogger, requestLineWriter } from './request-logger.ts';

test('request ids are req-<time in base 36>-<six random base-36 digits>', async () => {
  const before = Date.now();
  const ids = Array.from({ length: 1000 }, () => newRequestId());
  for (const id of ids) {
    const match = /^req-([0-9a-z]+)-([0-9a-z]{6})$/.exec(id);
    assert.ok(match, id);
    const ms = Number.parseInt(match[1], 36);
    assert.ok(ms >= before && ms <= Date.now(), id);
  }
  // Random digits: 1,000 draws of 36^6 repeat a value with probability ~0.02%.
  assert.ok(new Set(ids.map((id) => id.slice(-6))).size >= 998);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const later = newRequestId();
  assert.ok(Number.parseInt(later.split('-')[1], 36) > Number.parseInt(ids[0].split('-')[1], 36));
});

test("a RequestLogger writes what the parent's child with its bindings writes, made at its first use", () => {
  const lines: string[] = [];
  const parent = createLogger({ level: 'info', stream: { write: (line: string) => void lines.push(line) } });
  const lazy = new RequestLogger(parent, { reqId: 'req-1' }, {});
  assert.equal(lazy.level, 'info');
  lazy.warn({ n: 1 }, 'first');
  lazy.debug('below the level: not written');
  parent.child({ reqId: 'req-1' }, {}).warn({ n: 1 }, 'first');
  lazy.child({ job: 'j' }).info('nested');
  assert.equal(lines.length, 3);
  const timeless = (line: string) => line.replace(/"time":\d+,/, '');
  assert.equal(timeless(lines[0]), timeless(lines[1]));
  assert.deepEqual(
    Object.entries(JSON.parse(lines[2])).filter(([key]) => key === 'reqId' || key === 'job'),
    [
      ['reqId', 'req-1'],
      ['job', 'j'],
    ],
  );
});

/** Lines whose fields need quoting or escaping as pino does it, and numbers it writes as null. */
const AWKWARD_LINES: RequestLine[] = [
  { reqId: 'req-abc-000001', method: 'GET', url: '/kg/v3/enhance', status: 200, ms: 1.23 },
  { reqId: 'a "quoted" \\ id', method: 'POST', url: '/v3/jobs/:id', status: 404, ms: 0 },
  { reqId: 'tab\there', method: 'GET', url: '/x\u0001y', status: 500, ms: 12345.67 },
  { reqId: 'é ü ÿ latin-1', method: 'DELETE', url: `/${'long/'.repeat(30)}"end"`, status: 201, ms: 0.01 },
  { reqId: '', method: 'GET', url: '/unmatched;token=s3cret', status: 401, ms: Number.NaN },
  { reqId: '\\', method: 'PUT', url: '"', status: 413, ms: Number.POSITIVE_INFINITY },
];

/** A logger writing into `lines`, with pino `options` on top of the server's (createLogger). */
function capturing(options: pino.LoggerOptions = {}): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const base = createLogger({ level: 'info', stream: { write: (line: string) => void lines.push(line) } });
  if (Object.keys(options).length === 0) return { logger: base, lines };
  const logger = pino(
    { name: 'quarry', base: { pid: process.pid }, hooks: { streamWrite: (line) => line }, ...options },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

const timeless = (line: string) => line.replace(/"time":\d+,/, '');

test("requestLineWriter writes pino's own request line byte for byte (time aside), redaction included", () => {
  const variants: pino.LoggerOptions[] = [
    {},
    { mixin: () => ({ mixed: true }) },
    { serializers: { url: (url: string) => `<${url}>` } },
    { redact: ['reqId'] },
    { messageKey: 'message' },
    { formatters: { log: (object) => ({ ...object, formatted: 1 }) } },
    { msgPrefix: '[p] ' },
    { nestedKey: 'payload' },
  ];
  for (const options of variants) {
    const { logger, lines } = capturing(options);
    // Counts the lines pino formats itself: the server's plain logger takes the direct path.
    const internals = logger as unknown as Record<symbol, (...args: unknown[]) => string>;
    const asJson = internals[pino.symbols.asJsonSym];
    let formattedByPino = 0;
    internals[pino.symbols.asJsonSym] = function (this: unknown, ...args: unknown[]) {
      formattedByPino++;
      return asJson.apply(this, args);
    };
    const write = requestLineWriter(logger as unknown as FastifyBaseLogger);
    for (const line of AWKWARD_LINES) {
      const before = formattedByPino;
      write(line);
      assert.equal(
        formattedByPino - before,
        Object.keys(options).length === 0 || 'messageKey' in options ? 0 : 1,
        JSON.stringify(options),
      );
      const { reqId, method, url, status, ms } = line;
      logger.info({ reqId, method, url, status, ms }, 'request');
    }
    assert.equal(lines.length, AWKWARD_LINES.length * 2, JSON.stringify(options));
    for (let i = 0; i < lines.length; i += 2) {
      assert.equal(timeless(lines[i]), timeless(lines[i + 1]), JSON.stringify(options));
      assert.ok(JSON.parse(lines[i]), lines[i]);
    }
  }
  // The server's logger redacts a token wherever it is (logging.ts), on this path too.
  const { logger, lines } = capturing();
  requestLineWriter(logger as unknown as FastifyBaseLogger)(AWKWARD_LINES[4]);
  assert.match(lines[0], /"url":"\/unmatched;token=\[REDACTED\]"/);
  assert.doesNotMatch(lines[0], /s3cret/);
});

test('requestLineWriter follows the level and gives way to subscribers of pino_asJson', () => {
  const { logger, lines } = capturing();
  const write = requestLineWriter(logger as unknown as FastifyBaseLogger);
  logger.level = 'warn';
  write(AWKWARD_LINES[0]);
  assert.equal(lines.length, 0);
  logger.level = 'info';
  write(AWKWARD_LINES[0]);
  assert.equal(lines.length, 1);
  // A tracer of pino's formatting sees the request lines as it sees every other line.
  const seen: unknown[] = [];
  const subscriber = { start: (message: unknown) => void seen.push(message) };
  const channel = diagnostics.tracingChannel('pino_asJson');
  channel.subscribe(subscriber as never);
  try {
    write(AWKWARD_LINES[1]);
  } finally {
    channel.unsubscribe(subscriber as never);
  }
  assert.equal(seen.length, 1);
  assert.equal(lines.length, 2);
  assert.equal(JSON.parse(lines[1]).reqId, AWKWARD_LINES[1].reqId);
});
