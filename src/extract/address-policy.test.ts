import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressGuard, checkUrlAllowed, isPublicAddress, isUrlAllowed } from './address-policy.ts';

describe('isPublicAddress', () => {
  test('refuses loopback, private, link-local, CGNAT, unspecified, multicast and reserved IPv4', () => {
    for (const ip of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
      '198.51.100.7',
      '203.0.113.9',
      '240.0.0.1',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });

  test('refuses loopback, unique-local, link-local, mapped and translated private IPv6', () => {
    for (const ip of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001:db8::1',
      '2001::1',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });

  test('allows public unicast addresses, including mapped public IPv4', () => {
    for (const ip of [
      '8.8.8.8',
      '93.184.216.34',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '2002:808:808::1',
    ]) {
      assert.equal(isPublicAddress(ip), true, ip);
    }
  });

  test('treats garbage as not public', () => {
    assert.equal(isPublicAddress('not-an-ip'), false);
    assert.equal(isPublicAddress(''), false);
  });
});

describe('AddressGuard', () => {
  test('allows everything when private networks are allowed', () => {
    const guard = new AddressGuard({ allowPrivateNetwork: true });
    assert.equal(guard.allows('127.0.0.1'), true);
    assert.equal(guard.allows('10.1.2.3'), true);
  });

  test('lets listed addresses and ranges through, and nothing else private', () => {
    const guard = new AddressGuard({
      allowPrivateNetwork: false,
      allowedAddresses: ['127.0.0.1', '10.20.0.0/16', 'fd00::/8'],
    });
    assert.equal(guard.allows('127.0.0.1'), true);
    assert.equal(guard.allows('127.0.0.2'), false);
    assert.equal(guard.allows('10.20.5.5'), true);
    assert.equal(guard.allows('10.21.0.1'), false);
    assert.equal(guard.allows('fd00::5'), true);
    assert.equal(guard.allows('::ffff:127.0.0.1'), true);
    assert.equal(guard.allows('8.8.8.8'), true);
  });
});

describe('checkUrlAllowed', () => {
  const policy = { allowPrivateNetwork: false };
  const lookup = async (host: string) => {
    const table: Record<string, { address: string; family: number }[]> = {
      'public.test': [{ address: '93.184.216.34', family: 4 }],
      'internal.test': [{ address: '10.0.0.5', family: 4 }],
      'mixed.test': [
        { address: '93.184.216.34', family: 4 },
        { address: '::1', family: 6 },
      ],
    };
    if (!table[host]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return table[host];
  };

  test('refuses non-http schemes and unparseable URLs', async () => {
    assert.equal((await checkUrlAllowed('ftp://example.com/x', policy, lookup))?.reason, 'scheme');
    assert.equal((await checkUrlAllowed('file:///etc/passwd', policy, lookup))?.reason, 'scheme');
    assert.equal((await checkUrlAllowed('not a url', policy, lookup))?.reason, 'scheme');
  });

  test('refuses private IP literals, including the forms URL parsing normalises', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://10.0.0.1:8080/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const refusal = await checkUrlAllowed(url, policy, lookup);
      assert.equal(refusal?.reason, 'address', url);
      assert.match(refusal!.message, /not a public address/);
    }
  });

  test('resolves names and refuses any with a non-public address', async () => {
    assert.equal(await isUrlAllowed('https://public.test/page', policy, lookup), true);
    assert.equal((await checkUrlAllowed('https://internal.test/', policy, lookup))?.reason, 'address');
    assert.match(
      (await checkUrlAllowed('https://mixed.test/', policy, lookup))!.message,
      /mixed\.test \(::1\)/,
    );
    assert.equal((await checkUrlAllowed('https://nowhere.test/', policy, lookup))?.reason, 'unresolvable');
  });

  test('allows private destinations when the operator allows private networks', async () => {
    assert.equal(await isUrlAllowed('http://127.0.0.1:9/', { allowPrivateNetwork: true }, lookup), true);
    assert.equal(await isUrlAllowed('http://internal.test/', { allowPrivateNetwork: true }, lookup), true);
  });
});
