import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeQuery, type MatchQuery, withNamesWithoutPlace } from './query-analysis.ts';

const organization = (fields: Partial<MatchQuery>): MatchQuery => ({
  type: 'Organization',
  names: [],
  urls: [],
  emails: [],
  phones: [],
  ...fields,
});
const keys = (query: ReturnType<typeof analyzeQuery>) => query.names.map((n) => n.key);
const noNameWords = () => false;

test('an organization name with its place after it is also read without it', () => {
  // A bare city: the name without it; no location (a city's name may be a word of a name).
  const city = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Robotics LLC Berlin'] })),
    noNameWords,
  );
  assert.deepEqual(keys(city), ['acme berlin robotics', 'acme robotics']);
  assert.equal(city.location, undefined);
  assert.equal(city.namesWithPlace, undefined);
  assert.ok(city.notes.some((n) => n.includes('"Berlin"')));
  // A country, or a place set apart, is where the organization is.
  const country = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Media SA (Brazil)'] })),
    noNameWords,
  );
  assert.deepEqual(keys(country), ['acme brazil media', 'acme media']);
  assert.equal(country.location?.country, 'BR');
  const setApart = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Ltd, Manchester'] })),
    noNameWords,
  );
  assert.ok(setApart.location?.places.some((p) => p.city === 'manchester' && p.country === 'GB'));
  // The query's own location is kept.
  const given = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Media Spain'], location: 'Portugal' })),
    noNameWords,
  );
  assert.equal(given.location?.country, 'PT');
  assert.deepEqual(keys(given), ['acme media spain', 'acme media']);
});

test("a place whose words are words of the graph's organization names stays part of the name", () => {
  const names = new Set(['normal', 'fr']);
  const isNameWord = (word: string) => names.has(word);
  const normal = withNamesWithoutPlace(analyzeQuery(organization({ names: ['Yunnan Normal'] })), isNameWord);
  assert.deepEqual(keys(normal), ['normal yunnan']);
  assert.equal(normal.location, undefined);
  // A country's code in capitals is a tag, though an acronym spells it.
  const tag = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Software SA FR'] })),
    isNameWord,
  );
  assert.deepEqual(keys(tag), ['acme fr software', 'acme software']);
  assert.equal(tag.location?.country, 'FR');
});

test('person names and names without a place are read as before', () => {
  const person = analyzeQuery({ ...organization({ names: ['Ada Berlin'] }), type: 'Person' });
  assert.equal(person.namesWithPlace, undefined);
  const plain = analyzeQuery(organization({ names: ['Acme Robotics GmbH'] }));
  assert.equal(plain.namesWithPlace, undefined);
  assert.equal(withNamesWithoutPlace(plain, noNameWords), plain);
});
