import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
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

test('ipKeysForRange reads plain IPv4 ranges exactly as the general parser does', () => {
  // The reference: ipaddr.js's own CIDR parser and the same bucketing rule.
  const reference = (range: string): string[] => {
    try {
      const [address, prefix] = ipaddr.IPv4.parseCIDR(range);
      const [a, b] = address.toByteArray();
      return prefix >= 16 ? [`4/16:${a}.${b}`] : prefix >= 8 ? [`4/8:${a}`] : [];
    } catch {
      return [];
    }
  };
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const octet = () => [String(next(300)), '0', '255', '256', '010', '00'][next(6)];
  for (let i = 0; i < 5000; i++) {
    const range = `${octet()}.${octet()}.${octet()}.${octet()}/${[String(next(40)), '08', '016'][next(3)]}`;
    assert.deepEqual(ipKeysForRange(range), reference(range), range);
  }
});
