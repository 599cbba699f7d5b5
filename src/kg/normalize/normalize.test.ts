import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'tldts';
import { hostAncestors, normalizeDomain } from './domain.ts';
import { isFreeMailDomain, normalizeEmail } from './email.ts';
import { looksLikeAcronym, normalizeOrganizationName, organizationAcronyms } from './organization-name.ts';
import { canonicalGivenName, normalizePersonName } from './person-name.ts';
import { normalizePhone } from './phone.ts';
import { cityName, countryCode, parseLocation, regionName } from './place.ts';

test('organization names: abbreviations, translations, legal suffixes and order normalise alike', () => {
  const key = (name: string) => normalizeOrganizationName(name).key;
  assert.equal(key('Univ. of Pécs'), key('University of Pecs'));
  assert.equal(key('Universidad de Chile'), key('Univ. de Chile'));
  assert.equal(key('Pecs University'), key('University of Pecs'));
  assert.equal(key('Acme Corp.'), key('ACME Corporation'));
  assert.equal(key('Acme Ltd'), 'acme');
  assert.equal(key('St. Mary’s Coll.'), key('Saint Marys College'));
  assert.notEqual(key('Lawrence University'), key('St. Lawrence University'));
  // A legal form alone is a name, not a suffix to drop.
  assert.deepEqual(normalizeOrganizationName('AG').tokens, ['ag']);
});

test('organization acronyms come from significant words, written and canonical', () => {
  assert.deepEqual(organizationAcronyms('Christian-Albrechts-Universität zu Kiel'), ['cauk']);
  assert.ok(organizationAcronyms('Massachusetts Institute of Technology').includes('mit'));
  assert.deepEqual(organizationAcronyms('Oxford University'), []);
  // A name already normalised gives the same acronyms (the import passes it to save a folding).
  for (const name of ['Christian-Albrechts-Universität zu Kiel', 'Massachusetts Institute of Technology']) {
    assert.deepEqual(organizationAcronyms(normalizeOrganizationName(name)), organizationAcronyms(name));
  }
  assert.equal(looksLikeAcronym('MIT'), true);
  assert.equal(looksLikeAcronym('M.I.T.'), true);
  assert.equal(looksLikeAcronym('Mit'), false);
  assert.equal(looksLikeAcronym('Massachusetts'), false);
});

test('person names: titles and ordinals dropped, comma order read, nicknames resolved', () => {
  assert.deepEqual(normalizePersonName('Dr. John Smith Jr.'), {
    tokens: ['john', 'smith'],
    first: 'john',
    last: 'smith',
  });
  assert.deepEqual(normalizePersonName('Smith, John'), {
    tokens: ['john', 'smith'],
    first: 'john',
    last: 'smith',
  });
  assert.equal(normalizePersonName('Thomas Clifford, 1st Baron Clifford of Chudleigh').first, 'thomas');
  assert.deepEqual(normalizePersonName('Grace'), { tokens: ['grace'], first: 'grace' });
  assert.equal(canonicalGivenName('bill'), 'william');
  assert.equal(canonicalGivenName('tom'), 'thomas');
  assert.equal(canonicalGivenName('grace'), 'grace');
});

test('domains: scheme, www, port, path dropped; registrable domain is public-suffix aware', () => {
  assert.deepEqual(normalizeDomain('https://www.mit.edu/admissions/apply?lang=en'), {
    host: 'mit.edu',
    registrable: 'mit.edu',
  });
  assert.deepEqual(normalizeDomain('HTTP://WWW.Example.COM:8080'), {
    host: 'example.com',
    registrable: 'example.com',
  });
  assert.deepEqual(normalizeDomain('www.cs.ox.ac.uk'), { host: 'cs.ox.ac.uk', registrable: 'ox.ac.uk' });
  assert.deepEqual(hostAncestors({ host: 'www2.cs.ox.ac.uk', registrable: 'ox.ac.uk' }), [
    'www2.cs.ox.ac.uk',
    'cs.ox.ac.uk',
    'ox.ac.uk',
  ]);
  assert.equal(normalizeDomain('not a url'), undefined);
  assert.equal(normalizeDomain('localhost'), undefined);
  assert.equal(normalizeDomain(''), undefined);
});

test('domains: a two-label host gets the registrable domain the public-suffix list gives it, without a lookup', () => {
  // The suffix list's own answer (tldts), as the lookup that two-label hosts skip computes it.
  const listed = (host: string) => {
    const parsed = parse(host);
    return parsed.isIp ? host : (parsed.domain ?? host);
  };
  const hosts = [
    ...['acme.example', 'co.uk', 'github.io', 'blogspot.com', 'appspot.com', 'ck.ck', 'a.ck'],
    ...['1.2', '255.255', '-a.b', 'a-.b', 'a--b.c-d', 'xn--bcher-kva.ch', 'localhost.localdomain'],
  ];
  for (const host of hosts) {
    assert.deepEqual(normalizeDomain(host), { host, registrable: listed(host) }, host);
    // In a URL, all-digit hosts are IPv4 addresses (`1.2` → `1.0.0.2`): those only bare.
    if (!/^[\d.]+$/.test(host)) {
      assert.deepEqual(normalizeDomain(`https://${host}/x`), { host, registrable: listed(host) }, host);
    }
  }
  // Three labels still go through the list.
  assert.equal(normalizeDomain('s3.amazonaws.com')?.registrable, 'amazonaws.com');
});

test('e-mails: split, lowercased, free-mail providers recognised', () => {
  assert.deepEqual(normalizeEmail(' Jane.Doe@Mail.Example.co.uk '), {
    address: 'jane.doe@mail.example.co.uk',
    local: 'jane.doe',
    domain: 'mail.example.co.uk',
    registrable: 'example.co.uk',
    freeMail: false,
  });
  assert.equal(normalizeEmail('bob@gmail.com')?.freeMail, true);
  assert.equal(isFreeMailDomain('outlook.com'), true);
  assert.equal(normalizeEmail('no-at-sign'), undefined);
  assert.equal(normalizeEmail('a@'), undefined);
});

test('phones: E.164, with the region hint for national numbers', () => {
  assert.equal(normalizePhone('+1 (415) 555-0100'), '+14155550100');
  assert.equal(normalizePhone('0044 20 7946 0958'), '+442079460958');
  assert.equal(normalizePhone('020 7946 0958', 'GB'), '+442079460958');
  assert.equal(normalizePhone('(02) 9876 5432', 'AU'), '+61298765432');
  assert.equal(normalizePhone('call me'), undefined);
});

test('places: country spellings, state abbreviations, free-text locations', () => {
  assert.equal(countryCode('Viet Nam'), 'VN');
  assert.equal(countryCode('Vietnam'), 'VN');
  assert.equal(countryCode('Korea, Republic of'), 'KR');
  assert.equal(countryCode("Côte d'Ivoire"), 'CI');
  assert.equal(countryCode('USA'), 'US');
  assert.equal(countryCode('Atlantis'), undefined);
  assert.equal(regionName('VIC', 'AU'), 'victoria');
  assert.equal(regionName('Ohio'), 'ohio');
  // Remembered answers stay per country: WA is a different state in Australia and the US, and a
  // country and name that concatenate alike ('A' + 'UWA', 'AU' + 'WA') are not confused.
  for (let round = 0; round < 2; round++) {
    assert.equal(regionName('WA', 'AU'), 'western australia');
    assert.equal(regionName('WA', 'US'), 'washington');
    assert.equal(regionName('UWA', 'A'), 'uwa');
    assert.equal(regionName('WA', ''), regionName('WA'));
  }
  assert.equal(cityName('São Paulo'), 'sao paulo');
  assert.deepEqual(parseLocation('Ohio, United States'), {
    country: 'US',
    regions: ['ohio'],
    postcodes: [],
    tokens: ['ohio'],
  });
  assert.deepEqual(parseLocation('Korea, Republic of'), {
    country: 'KR',
    regions: [],
    postcodes: [],
    tokens: [],
  });
  const febrl = parseLocation('paddington nsw 2021');
  assert.deepEqual(febrl.regions, ['new south wales']);
  assert.deepEqual(febrl.postcodes, ['2021']);
  assert.equal(febrl.country, undefined);
});

test('words that are also property names of plain objects are ordinary words', () => {
  assert.equal(canonicalGivenName('constructor'), 'constructor');
  assert.equal(regionName('constructor'), 'constructor');
  assert.equal(regionName('toString', 'AU'), 'tostring');
  assert.deepEqual(parseLocation('constructor hasOwnProperty').regions, []);
});
