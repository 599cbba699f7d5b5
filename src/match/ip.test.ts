import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { ipInRanges, ipKeysForAddress, ipKeysForRange } from './ip.ts';

test('ipKeysForRange buckets IPv4 and IPv6 ranges and ignores unparsable or very wide ones', () => {
  assert.deepEqual(ipKeysForRange(' 240.0.7.0/24 '), ['4/24:240.0.7']);
  assert.deepEqual(ipKeysForRange('172.16.0.0/12'), ['4/8:172']);
  assert.deepEqual(ipKeysForRange('10.0.0.0/8'), ['4/8:10']);
  assert.deepEqual(ipKeysForRange('10.20.0.0/16'), ['4/16:10.20']);
  assert.deepEqual(ipKeysForRange('2001:db8:1:200::/56'), ['6/48:2001:db8:1']);
  assert.deepEqual(ipKeysForRange('2001:db8::/32'), ['6/32:2001:db8']);
  assert.deepEqual(ipKeysForRange('2001:db8::/20'), ['6/16:2001']);
  assert.deepEqual(ipKeysForRange('::ffff:1.2.3.4/120'), ['6/48:0:0:0']);
  for (const range of ['0.0.0.0/0', '::/0', '300.1.1.1/24', '1.2.3.4/33', '1.2.3.4', 'abc', '']) {
    assert.deepEqual(ipKeysForRange(range), [], range);
  }
});

test('an address is looked up in its bucket of every width a range may have used', () => {
  assert.deepEqual(ipKeysForAddress('240.0.7.77'), ['4/24:240.0.7', '4/16:240.0', '4/8:240']);
  assert.deepEqual(ipKeysForAddress('2001:db8:1:2::9'), ['6/48:2001:db8:1', '6/32:2001:db8', '6/16:2001']);
  assert.deepEqual(ipKeysForAddress('not an ip'), []);
});

test('ipKeysForRange reads plain IPv4 ranges exactly as the general parser does', () => {
  // The reference: ipaddr.js's own CIDR parser and the same bucketing rule.
  const reference = (range: string): string[] => {
    try {
      const [address, prefix] = ipaddr.IPv4.parseCIDR(range);
      const [a, b, c] = address.toByteArray();
      if (prefix >= 24) return [`4/24:${a}.${b}.${c}`];
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

test('ipInRanges answers as ipaddr.js does for plain IPv4 ranges, other forms and bad input', () => {
  // The reference: the general parser for every range, as before the plain-range path.
  const reference = (ip: string, ranges: readonly string[]): boolean => {
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      address = ipaddr.process(ip.trim());
    } catch {
      return false;
    }
    return ranges.some((range) => {
      try {
        const cidr = ipaddr.parseCIDR(range.trim());
        return cidr[0].kind() === address.kind() && address.match(cidr);
      } catch {
        return false;
      }
    });
  };
  let seed = 11;
  // The generator's high bits (its low bits repeat with a short period).
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  const octet = () => [String(next(256)), '10', '240', '0', '255', '256', '010'][next(7)];
  const ips = [
    '10.1.2.3',
    '240.0.7.77',
    ' 240.0.7.1 ',
    '::ffff:240.0.7.9',
    '2001:db8:1:2::9',
    '0.0.0.0',
    'bad',
    '',
  ];
  let inside = 0;
  for (let i = 0; i < 5000; i++) {
    const ip = next(3) === 0 ? ips[next(ips.length)] : `${octet()}.${octet()}.${octet()}.${octet()}`;
    // Half the ranges share the address's first two octets (the rest rarely hold it).
    const near = ip.trim().split('.').slice(0, 2).join('.');
    const ranges = Array.from({ length: 1 + next(3) }, () =>
      next(8) === 0
        ? ['2001:db8::/32', '::ffff:240.0.7.0/120', 'abc', '', ' 240.0.7.0/24 '][next(5)]
        : `${next(2) === 0 ? near : `${octet()}.${octet()}`}.${octet()}.${octet()}/${[String(next(34)), '08'][next(2)]}`,
    );
    const expected = reference(ip, ranges);
    assert.equal(ipInRanges(ip, ranges), expected, `${ip} in ${ranges.join(', ')}`);
    if (expected) inside++;
  }
  assert.ok(inside > 200, `${inside} addresses in a range`);
});
