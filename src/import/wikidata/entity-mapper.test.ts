import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Claim, dv, entity } from '../../../test/support/wikidata-dump.ts';
import { DEFAULT_LANGUAGES, MappingRejection, mapEntity } from './entity-mapper.ts';
import type { WikidataEntity } from './wikidata-json.ts';

const ORIGIN = 'https://www.wikidata.org/wiki/Q1';
const options = { languages: DEFAULT_LANGUAGES };
function map(claims: Claim[], type: 'Person' | 'Organization' = 'Organization', extra = {}) {
  return mapEntity(
    entity({ id: 'Q1', labels: { en: 'X' }, claims, ...extra }) as unknown as WikidataEntity,
    type,
    options,
  );
}

test('items referred to become placeholders, listed in refs', () => {
  const { statement, refs } = map([
    ['P17', dv.item(30)],
    ['P159', dv.item(62)],
    ['P452', dv.item(11661)],
    ['P749', dv.item(95)],
  ]);
  assert.deepEqual(statement.location, { city: { $wd: 'Q62', k: 'p' }, country: { $wd: 'Q30', k: 'p' } });
  assert.deepEqual(statement.industries, [{ $wd: 'Q11661', k: 'l' }]);
  assert.deepEqual(statement.parentCompany, { $wd: 'Q95', k: 'o' });
  assert.deepEqual(
    refs.sort((a, b) => a - b),
    [30, 62, 95, 11661],
  );
});

test('a single-valued field: preferred wins, other values (of any rank) are its own non-canonical facts', () => {
  const { statement } = map([
    ['P17', dv.item(30)],
    ['P17', dv.item(183), { rank: 'preferred' }],
    ['P17', dv.item(142), { rank: 'deprecated' }],
    ['P159', dv.item(62), { rank: 'deprecated' }],
    ['P131', dv.item(64)],
  ]);
  // The headquarters is deprecated only: the administrative unit stands in for the city.
  assert.deepEqual(statement.location, { city: { $wd: 'Q64', k: 'p' }, country: { $wd: 'Q183', k: 'p' } });
  assert.deepEqual(statement.nonCanonicalFacts, [
    { field: 'location', value: { city: { $wd: 'Q62', k: 'p' } }, origins: [ORIGIN] },
    { field: 'location', value: { country: { $wd: 'Q30', k: 'p' } }, origins: [ORIGIN] },
    { field: 'location', value: { country: { $wd: 'Q142', k: 'p' } }, origins: [ORIGIN] },
  ]);
});

test('counts: the latest point in time wins among equal ranks; units other than none are not counts', () => {
  const at = (year: number): Claim[2] => ({ qualifiers: [['P585', dv.time(`+${year}-00-00T00:00:00Z`, 9)]] });
  const { statement } = map([
    ['P1128', dv.quantity(10), at(2010)],
    ['P1128', dv.quantity(30), at(2022)],
    ['P1128', dv.quantity(20)],
    ['P1128', dv.quantity(5, 'http://www.wikidata.org/entity/Q11573')],
  ]);
  assert.equal(statement.nbEmployees, 30);
  assert.deepEqual(
    (statement.nonCanonicalFacts as { value: unknown }[]).map((f) => f.value),
    [10, 20],
  );
});

test('employments: role from qualifiers, current without an end, not current with an unknown end', () => {
  const { statement } = map(
    [
      ['P108', dv.item(95), { qualifiers: [['P3831', dv.item(484876)]] }],
      ['P108', dv.item(96), { qualifiers: [['P582', 'somevalue']] }],
      ['P108', 'somevalue'],
      ['P108', dv.item(97), { rank: 'deprecated' }],
    ],
    'Person',
  );
  assert.deepEqual(statement.employments, [
    { employer: { $wd: 'Q95', k: 'o' }, title: { $wd: 'Q484876', k: 'l' }, isCurrent: true },
    { employer: { $wd: 'Q96', k: 'o' }, isCurrent: false },
  ]);
  assert.deepEqual(statement.nonCanonicalFacts, [
    { field: 'employments', value: { employer: { $wd: 'Q97', k: 'o' }, isCurrent: true }, origins: [ORIGIN] },
  ]);
});

test('social profiles and identifiers; a profile id with a slash or space is not an address', () => {
  const { statement } = map([
    ['P2002', dv.string('acme')],
    ['P2013', dv.string('acme/photos')],
    ['P2037', dv.string('acme-gh')],
    ['P1278', dv.string('LEI0001'), { rank: 'deprecated' }],
    ['P1278', dv.string('LEI0002')],
    ['P1320', dv.string('us_de/123')],
  ]);
  assert.equal(statement.twitterUri, 'twitter.com/acme');
  assert.equal(statement.facebookUri, undefined);
  assert.equal(statement.githubUri, 'github.com/acme-gh');
  assert.deepEqual(statement.identifiers, { lei: 'LEI0002', openCorporates: 'us_de/123' });
});

test('names: preferred languages first, then every label; aliases of other languages are left out', () => {
  const mapped = mapEntity(
    entity({
      id: 'Q1',
      labels: { de: 'Beispiel', mul: 'Example' },
      aliases: { en: ['Ex'], de: ['Bsp'] },
      descriptions: { fr: 'un exemple' },
    }) as unknown as WikidataEntity,
    'Organization',
    options,
  ).statement;
  assert.equal(mapped.name, 'Example');
  assert.deepEqual(mapped.allNames, ['Example', 'Ex', 'Beispiel']);
  assert.equal(mapped.description, 'un exemple');
  const german = mapEntity(
    entity({ id: 'Q1', labels: { de: 'Beispiel', mul: 'Example' } }) as unknown as WikidataEntity,
    'Organization',
    { languages: ['de'] },
  ).statement;
  assert.equal(german.name, 'Beispiel');
});

test('a line without an item id is rejected', () => {
  assert.throws(
    () => mapEntity({ type: 'item', id: 'P31' } as WikidataEntity, 'Organization', options),
    MappingRejection,
  );
});
