import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  analyzeQuery,
  type MatchQuery,
  withJoinedWordsApart,
  withNamesWithoutPlace,
} from './query-analysis.ts';

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

test('an e-mail address written in a name is read as the email, and the name without it', () => {
  const person = { ...organization({}), type: 'Person' as const };
  for (const name of [
    'Ada Hoffmann <ada.hoffmann@lebomivo.example>',
    '"Ada Hoffmann" <ada.hoffmann@lebomivo.example>',
    'Ada Hoffmann ada.hoffmann@lebomivo.example',
  ]) {
    const read = analyzeQuery({ ...person, names: [name] });
    assert.deepEqual(
      read.names.map((n) => n.tokens),
      [['ada', 'hoffmann']],
      name,
    );
    assert.deepEqual(
      read.emails.map((e) => e.address),
      ['ada.hoffmann@lebomivo.example'],
      name,
    );
    assert.ok(
      read.notes.some((note) => note.includes('holds an e-mail address')),
      name,
    );
  }
  // The same address given as the email too is read once.
  const both = analyzeQuery({ ...person, names: ['Ada <ada@x.example>'], emails: ['ada@x.example'] });
  assert.equal(both.emails.length, 1);
  // A name that is only an address is left as written.
  assert.equal(analyzeQuery({ ...person, names: ['ada@x.example'] }).emails.length, 0);
});

test("an organization name's words run together are also read apart when the graph has both", () => {
  const words = new Map([
    ['lebomivo', 3],
    ['robotics', 40],
    ['pl', 1],
  ]);
  const count = (word: string) => words.get(word) ?? 0;
  for (const name of ['LebomivoRobotics', 'LEBOMIVOROBOTICS GmbH', 'lebomivorobotics']) {
    const read = withJoinedWordsApart(analyzeQuery(organization({ names: [name] })), count);
    assert.equal(read.names.length, 2, name);
    assert.equal(read.names[1].key, 'lebomivo robotics', name);
    assert.equal(read.writtenNames, undefined);
  }
  assert.deepEqual(
    withJoinedWordsApart(analyzeQuery(organization({ names: ['PLRobotics'] })), count).names[1].tokens,
    ['pl', 'robotics'],
  );
  // A word of the graph's names, or one that is not two of them, is kept as it is.
  for (const name of ['Lebomivo Robotics', 'Robotics', 'Lebomivorobotix', 'Lebomivo'])
    assert.equal(
      withJoinedWordsApart(analyzeQuery(organization({ names: [name] })), count).names.length,
      1,
      name,
    );
  // A word too long to be two name words is not cut at all: no look-up per cut of a hostile word.
  let lookups = 0;
  const counting = (word: string) => {
    lookups++;
    return count(word);
  };
  const long = `lebomivo${'x'.repeat(1_500)}robotics`;
  assert.equal(withJoinedWordsApart(analyzeQuery(organization({ names: [long] })), counting).names.length, 1);
  assert.equal(lookups, 0);
});

test("an organization's other name written after its name is read as a second name", () => {
  const read = analyzeQuery(organization({ names: ['Lebomivo Robotics Ltd (formerly Kasibo Robotics)'] }));
  assert.deepEqual(keys(read), ['lebomivo robotics', 'kasibo robotics']);
  assert.ok(read.notes.some((note) => note.includes('two names of one organization')));
});

test("words about a person after the name are not read as the person's name", () => {
  const person = { ...organization({}), type: 'Person' as const };
  const tokensOf = (name: string) => analyzeQuery({ ...person, names: [name] }).names.map((n) => n.tokens);
  // After a dash, a bar, "@" or "at": the name alone.
  for (const name of [
    'Ada Hoffmann - CTO',
    'Ada Hoffmann | Lebomivo Robotics',
    'Ada Hoffmann @ Lebomivo',
    'Ada Hoffmann at Lebomivo',
  ])
    assert.deepEqual(tokensOf(name), [['ada', 'hoffmann']], name);
  // In parentheses: the name alone first, then as written (they may be words of the name).
  assert.deepEqual(tokensOf('Ada Hoffmann (Lebomivo Robotics)'), [
    ['ada', 'hoffmann'],
    ['ada', 'hoffmann', 'lebomivo', 'robotics'],
  ]);
  // One word before them is not taken for a whole name.
  assert.deepEqual(tokensOf('Wakefield (numismatist)'), [['wakefield', 'numismatist']]);
  assert.deepEqual(tokensOf('Hoffmann - CTO'), [['hoffmann', 'cto']]);
});
