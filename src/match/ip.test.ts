import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipKeysForRange } from './ip.ts';

test('ipKeysForRange buckets IPv4 and IPv6 ranges and ignores unparsable or very wide ones', () => {
  assert.deepEqual(ipKeysForRange(' 240.0.7.0/24 '), ['4/16:240.0']);
  assert.deepEqual(ipKeysForRange('10.0.0.0/8'), ['4/8:10']);
  assert.deepEqual(ipKeysForRange('2001:db8::/32'), ['6/32:2001:db8']);
  assert.deepEqual(ipKeysForRange('2001:db8::/20'), ['6/16:2001']);
  assert.deepEqual(ipKeysForRange('::ffff:1.2.3.4/120'), ['6/32:0:0']);
  for (const range of ['0.0.0.0/0', '::/0', '300.1.1.1/24', '1.2.3.4/33', '1.2.3.4', 'abc', '']) {
    assert.deepEqual(ipKeysForRange(range), [], range);
  }
});
