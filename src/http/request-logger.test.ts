import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../logging.ts';
import { newRequestId, RequestLogger } from './request-logger.ts';

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
