import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoRecords, type Entity, normalizeEmail } from '../kg/index.ts';
import {
  EMAIL_NOISE,
  emailTokens,
  indexEntity,
  KEY,
  type PersonProfile,
  placeTokens,
  secondSurnameAt,
  surnameWords,
} from './profile.ts';
import { Random } from '../random.ts';

/** Seeded random strings over `alphabet`, up to `longest` characters. */
function samples(alphabet: string, longest: number, count: number): string[] {
  const random = new Random(11);
  const out = ['', alphabet];
  for (let n = 0; n < count; n++) {
    let sample = '';
    for (let length = random.int(longest + 1); length > 0; length--) {
      sample += alphabet[random.int(alphabet.length)];
    }
    out.push(sample);
  }
  return out;
}

test('emailTokens: runs of a-z of 3+ letters left of the public suffix, noise left out, each once in order', () => {
  const tokens = (address: string) => emailTokens(normalizeEmail(address) ?? assert.fail(address));
  assert.deepEqual(tokens('mei.muller@nerenabe.example'), ['mei', 'muller', 'nerenabe']);
  assert.deepEqual(tokens('jo.x2y@mail.co.uk'), []);
  assert.deepEqual(tokens('ann.ann_smith@smith.com'), ['ann', 'smith']);
  // A subdomain's labels stay, the suffix of one or more labels goes.
  assert.deepEqual(tokens('info@research.lab.gouv.fr'), ['research', 'lab']);
  assert.deepEqual(tokens('kai@ocean.museum'), ['kai', 'ocean']);
  assert.deepEqual(tokens('ines@brasil.com.br'), ['ines', 'brasil']);
  // A suffix word in the local part or a subdomain is a token like any other.
  assert.deepEqual(tokens('museum.shop@arts.museum'), ['museum', 'shop', 'arts']);
  // The rule as a regular expression (same noise labels) over the address without its suffix,
  // against seeded random addresses.
  const reference = (address: string, suffix: string) => [
    ...new Set(
      address
        .slice(0, address.length - suffix.length)
        .split(/[^a-z]+/)
        .filter((t) => t.length >= 3 && !EMAIL_NOISE.has(t)),
    ),
  ];
  const suffixes = ['', '.com', '.example', '.co.uk', '.museum'];
  const locals = samples('abcomw.-_1é', 10, 4000);
  const domains = samples('abcomw.-1', 10, 4000);
  for (let i = 0; i < locals.length; i++) {
    const suffix = suffixes[i % suffixes.length];
    const address = `${locals[i]}@${domains[i]}${suffix}`;
    const email = { address, registrable: `x${suffix}` };
    assert.deepEqual(emailTokens(email), reference(address, suffix), JSON.stringify(address));
  }
});

test('placeTokens: postcodes of 4-6 digits and words of 3+ characters not starting with a digit', () => {
  assert.deepEqual(placeTokens(['12', 'rue', 'de', 'la', '75001', 'paris', '1234567', '3rd', 'road']), [
    'rue',
    '75001',
    'paris',
  ]);
  const reference = (tokens: string[]) =>
    tokens.filter((t) => /^\d{4,6}$/.test(t) || (t.length >= 3 && !/^\d/.test(t)));
  const tokens = samples('0159ab', 8, 4000);
  assert.deepEqual(placeTokens(tokens), reference(tokens));
});

test("a titled person: known by the given name with the title's place; nameDetail titles are not names", () => {
  const earl = indexEntity({
    id: 'PER-earl',
    type: 'Person',
    name: 'William Cavendish, 3rd Earl of Devonshire',
    nameDetail: { firstName: 'William', lastName: 'Devonshire' },
  });
  const profile = earl.profile as PersonProfile;
  assert.deepEqual(profile.n, ['william cavendish', 'william devonshire', 'devonshire']);
  // The source split the name at its first and last words: the surname is Cavendish.
  assert.equal(profile.f, 'william');
  assert.equal(profile.l, 'cavendish');
  assert.ok(earl.keys.includes('pt:devonshire'), 'the place is a retrieval key');
  const baronet = indexEntity({
    id: 'PER-bt',
    type: 'Person',
    name: 'Sir Robert Williams, 1st Baronet',
    nameDetail: { firstName: 'Sir', lastName: 'Baronet' },
  }).profile as PersonProfile;
  assert.deepEqual(baronet.n, ['robert williams']);
  assert.equal(baronet.f, 'robert');
  assert.equal(baronet.l, 'williams');
  // Any other nameDetail is kept as written: a double-barrelled surname, or one the name spells
  // otherwise (a typo in the name).
  const double = indexEntity({
    id: 'PER-dbl',
    type: 'Person',
    name: 'Herbert Jenner-Fust',
    nameDetail: { firstName: 'Herbert', lastName: 'Jenner-Fust' },
  }).profile as PersonProfile;
  assert.equal(double.l, 'jenner-fust');
  const typo = indexEntity({
    id: 'PER-typo',
    type: 'Person',
    name: 'Finley Grnnt',
    nameDetail: { firstName: 'Finley', lastName: 'Grant' },
  }).profile as PersonProfile;
  assert.equal(typo.l, 'grant');
});

test('every word of a whole-name key is a name-token key of the same entity (retrieval skips names with an unknown word)', () => {
  // `nameKeyAbsent` (retrieval.ts) skips reading a `pn:`, `np:` or `on:` key when one of its
  // words has no `pt:` / `ot:` postings: sound only while `indexEntity` keeps this.
  const entities: Entity[] = [...demoRecords({ organizations: 400, persons: 800, seed: 5 })];
  entities.push(
    { id: 'PER-t1', type: 'Person', name: 'William Cavendish, 3rd Earl of Devonshire' },
    { id: 'PER-t2', type: 'Person', name: 'Bill J. R. Smith-Jones', alternativeNames: ['Liz Ann Taylor'] },
    { id: 'ORG-t1', type: 'Organization', name: 'The Bank of Foo & Bar GmbH (Germany)' },
  );
  let checked = 0;
  for (const entity of entities) {
    const keys = new Set(indexEntity(entity).keys);
    for (const key of keys) {
      const person = key.startsWith(KEY.personName) || key.startsWith(KEY.personNamePlace);
      if (!person && !key.startsWith(KEY.orgName)) continue;
      const body = key.startsWith(KEY.personNamePlace) ? key.slice(3, key.indexOf('|')) : key.slice(3);
      for (const word of body.split(' ')) {
        assert.ok(
          keys.has((person ? KEY.personToken : KEY.orgToken) + word),
          `${entity.id}: ${key} without ${word}`,
        );
      }
      checked++;
    }
  }
  assert.ok(checked > 2000, `${checked} keys checked`);
});

test('a person whose surname has two words is also indexed by the name without the second', () => {
  const keysOf = (name: string, lastName?: string) =>
    indexEntity({
      id: 'PER-45',
      type: 'Person',
      name,
      ...(lastName ? { nameDetail: { firstName: 'Ada', lastName } } : {}),
    }).keys.filter((key) => key.startsWith('pn:'));
  assert.deepEqual(keysOf('Ada Amir Rossi Santos', 'Rossi Santos').sort(), [
    'pn:ada amir rossi',
    'pn:ada amir rossi santos',
  ]);
  assert.deepEqual(keysOf('Ada Rossi-Santos', 'Rossi-Santos').sort(), [
    'pn:ada rossi',
    'pn:ada rossi santos',
  ]);
  assert.deepEqual(keysOf('Ada Rossi y Santos', 'Rossi y Santos').sort(), [
    'pn:ada rossi',
    'pn:ada rossi santos y',
  ]);
  // One surname (the name read alone says no more), or a part of one letter: the name's key only.
  assert.deepEqual(keysOf('Ada Amir Rossi Santos'), ['pn:ada amir rossi santos']);
  assert.deepEqual(keysOf("Ada O'Brien", "O'Brien"), ['pn:ada obrien']);
  assert.deepEqual(surnameWords('rossi-santos'), ['rossi', 'santos']);
  assert.equal(surnameWords('rossi'), undefined);
  assert.equal(secondSurnameAt(['ada', 'amir', 'rossi', 'santos'], ['rossi', 'santos']), 3);
  assert.equal(secondSurnameAt(['ada', 'rossi', 'y', 'santos'], ['rossi', 'y', 'santos']), 2);
  assert.equal(secondSurnameAt(['ada', 'santos', 'rossi'], ['rossi', 'santos']), -1);
});
