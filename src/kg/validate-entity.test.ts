import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanEntity, cleanEntityTracked, MAX_ID_LENGTH, validateEntity } from './validate-entity.ts';

function reason(record: unknown): string {
  const result = validateEntity(record);
  assert.equal(result.ok, false, `expected a rejection for ${JSON.stringify(record)}`);
  return result.ok ? '' : result.reason;
}

describe('validateEntity', () => {
  test('accepts the bench entity shapes unchanged', () => {
    const org = {
      id: 'ORG-9f8826c0caa7',
      type: 'Organization',
      name: 'Fundação Hermínio Ometto',
      allNames: ['Fundação Hermínio Ometto'],
      homepageUri: 'fho.edu.br',
      allUris: ['fho.edu.br'],
      location: { country: { name: 'Brazil' }, region: { name: 'São Paulo' } },
      origins: ['https://www.fho.edu.br/'],
    };
    assert.deepEqual(cleanEntity(structuredClone(org)), org);
    const person = {
      id: 'PER-Q1443188',
      type: 'Person',
      name: 'Frank Edward Brightman',
      nameDetail: { firstName: 'Frank', lastName: 'Brightman' },
      gender: { normalizedValue: 'Male' },
      birthDate: { str: 'd1856-06-18', precision: 3 },
      location: { city: { name: 'Bristol' } },
      employments: [{ isCurrent: true, title: 'liturgist' }],
      origins: ['https://www.wikidata.org/wiki/Q1443188'],
    };
    assert.deepEqual(cleanEntity(structuredClone(person)), person);
  });

  test('rejects records that are not objects, with the kind of value', () => {
    assert.match(reason([1, 2]), /must be a JSON object, got an array/);
    assert.match(reason(null), /got null/);
    assert.match(reason('ORG-1'), /got a string/);
  });

  test('requires a non-empty string id of bounded length, kept exactly', () => {
    assert.equal(reason({ type: 'Organization' }), 'id is missing');
    assert.match(reason({ id: 42, type: 'Organization' }), /id must be a string, got a number/);
    assert.equal(reason({ id: '  ', type: 'Organization' }), 'id must not be empty');
    assert.match(
      reason({ id: 'x'.repeat(MAX_ID_LENGTH + 1), type: 'Person' }),
      /257 characters long, the most is 256/,
    );
    assert.equal(cleanEntity({ id: 'x'.repeat(MAX_ID_LENGTH), type: 'Person' }).id.length, MAX_ID_LENGTH);
    const decomposed = 'ORG-Cafe\u0301';
    assert.equal(cleanEntity({ id: decomposed, type: 'Organization' }).id, decomposed);
  });

  test('requires type Organization or Person', () => {
    assert.match(reason({ id: 'a' }), /type is missing/);
    assert.match(reason({ id: 'a', type: 'organization' }), /got "organization"/);
    assert.match(reason({ id: 'a', type: ['Person'] }), /got an array/);
  });

  test('names the offending field path of a wrong shape', () => {
    assert.equal(reason({ id: 'a', type: 'Person', name: 7 }), 'name must be a string, got a number');
    assert.equal(
      reason({
        id: 'a',
        type: 'Person',
        employments: [{ title: 'CEO' }, { title: 'x' }, { title: ['CTO'] }],
      }),
      'employments[2].title must be a string, got an array',
    );
    assert.equal(
      reason({ id: 'a', type: 'Organization', nbEmployees: Number.NaN }),
      'nbEmployees must be a finite number, got a number',
    );
    assert.match(reason({ id: 'a', type: 'Organization', nbEmployees: -4 }), /must not be negative/);
    assert.match(reason({ id: 'a', type: 'Organization', nbEmployees: '12' }), /got a string/);
    assert.match(reason({ id: 'a', type: 'Organization', allUris: 'acme.com' }), /allUris must be an array/);
    assert.match(reason({ id: 'a', type: 'Organization', location: 'Paris' }), /location must be an object/);
    assert.match(
      reason({ id: 'a', type: 'Organization', location: { city: 'Paris' } }),
      /location\.city must be an object/,
    );
    assert.match(
      reason({ id: 'a', type: 'Person', employments: [{ isCurrent: 'yes' }] }),
      /employments\[0\]\.isCurrent must be a boolean/,
    );
    assert.match(
      reason({ id: 'a', type: 'Person', phoneNumbers: [{ type: 'work' }] }),
      /phoneNumbers\[0\]\.string is required/,
    );
    assert.match(reason({ id: 'a', type: 'Person', birthDate: 'yesterday' }), /birthDate must be a date/);
    assert.match(
      reason({ id: 'a', type: 'Person', birthDate: { str: '12/05/1990' } }),
      /birthDate\.str must be "d"/,
    );
  });

  test('drops absent facts: null, blank strings, empty lists and objects; trims strings', () => {
    const entity = cleanEntity({
      id: 'a',
      type: 'Organization',
      name: '  Acme  ',
      description: '   ',
      homepageUri: null,
      allUris: [],
      industries: ['', null, 'Software'],
      location: { city: { name: '' } },
      phoneNumbers: [{}],
    });
    assert.deepEqual(entity, { id: 'a', type: 'Organization', name: 'Acme', industries: ['Software'] });
  });

  test('converts ISO date strings to date facts with their precision', () => {
    const entity = cleanEntity({
      id: 'a',
      type: 'Organization',
      foundingDate: '1998',
      employments: [{ from: '2001-05', to: { str: '2004-02-29' } }],
    });
    assert.deepEqual(entity.foundingDate, { str: 'd1998', precision: 1 });
    assert.deepEqual(entity.employments?.[0].from, { str: 'd2001-05', precision: 2 });
    assert.deepEqual(entity.employments?.[0].to, { str: 'd2004-02-29' });
  });

  test('keeps unknown extra fields, drops the derived nonCanonicalFacts', () => {
    const entity = cleanEntity({
      id: 'a',
      type: 'Organization',
      crmScore: { value: 3, tags: ['x'] },
      location: { city: { name: 'Lyon', wikidata: 'Q456' }, floor: 3 },
      nonCanonicalFacts: [{ field: 'name', value: 'x', origins: [] }],
    });
    assert.deepEqual(entity.crmScore, { value: 3, tags: ['x'] });
    assert.deepEqual(entity.location, { city: { name: 'Lyon', wikidata: 'Q456' }, floor: 3 });
    assert.equal(entity.nonCanonicalFacts, undefined);
  });

  test('normalises every string to NFC and repairs lone surrogates', () => {
    const entity = cleanEntity({
      id: 'a',
      type: 'Organization',
      name: 'Fundac\u0327a\u0303o',
      allNames: ['Cafe\u0301'],
      extra: { note: 'e\u0301' },
      description: 'bad \ud800 surrogate',
    });
    assert.equal(entity.name, 'Fundação');
    assert.deepEqual(entity.allNames, ['Café']);
    assert.deepEqual(entity.extra, { note: 'é' });
    assert.equal(entity.description, 'bad \ufffd surrogate');
    assert.equal(cleanEntity({ id: 'a', type: 'Person', name: '東京 🎓 Zoë' }).name, '東京 🎓 Zoë');
  });

  test('cleans the record in place; a record not listing id and type first gets a new object', () => {
    const record = JSON.parse(
      '{"id":"a","type":"Person","name":" Zoe ","allNames":[null,"Zoe"],"location":{"city":{"name":""},"address":"1 Rue"},' +
        '"__proto__":{"note":" x "},"nonCanonicalFacts":[]}',
    );
    const entity = cleanEntity(record);
    assert.equal(entity, record, 'the same object');
    assert.deepEqual(Object.keys(entity), ['id', 'type', 'name', 'allNames', 'location', '__proto__']);
    assert.deepEqual([entity.name, entity.allNames, entity.location], ['Zoe', ['Zoe'], { address: '1 Rue' }]);
    // An own key named __proto__ stays a key (as JSON.parse made it), never the prototype.
    assert.equal(Object.getPrototypeOf(entity), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(entity, '__proto__')?.value, { note: ' x ' });
    assert.equal(
      JSON.stringify(entity),
      '{"id":"a","type":"Person","name":"Zoe","allNames":["Zoe"],"location":{"address":"1 Rue"},"__proto__":{"note":" x "}}',
    );
    const reordered = { type: 'Person', name: 'Zoe', id: 'b' };
    const rewritten = cleanEntityTracked(reordered);
    assert.notEqual(rewritten.entity, reordered);
    assert.deepEqual(Object.keys(rewritten.entity), ['id', 'type', 'name']);
    assert.equal(rewritten.changed, true);
  });

  test('tracks whether cleaning changed anything, so the input text can stand for the entity', () => {
    const base = {
      id: 'a',
      type: 'Person',
      name: 'Zoë',
      birthDate: { str: 'd1990-01-02', precision: 3 },
      employments: [{ title: 'CTO', isCurrent: true }],
      extra: { note: null, list: [1, 'x'] },
    };
    assert.equal(cleanEntityTracked(structuredClone(base)).changed, false);
    const variants: Record<string, unknown>[] = [
      { ...base, name: ' Zoë' },
      { ...base, name: 'Zoe\u0308' },
      { ...base, description: null },
      { ...base, allUris: [] },
      { ...base, industries: ['', 'x'] },
      { ...base, birthDate: '1990-01-02' },
      { ...base, nonCanonicalFacts: [] },
      { ...base, extra: { note: 'e\u0301' } },
      { ...base, location: {} },
      { type: 'Person', id: 'a' },
    ];
    for (const variant of variants) {
      assert.equal(cleanEntityTracked(variant).changed, true, JSON.stringify(variant));
    }
  });
});

describe('stated nonCanonicalFacts', () => {
  test('are kept only when the caller says the source states them, and must be {field, value}', () => {
    const record = () => ({
      id: 'Q1',
      type: 'Organization',
      nonCanonicalFacts: [
        { field: ' homepageUri ', value: 'old.example', origins: ['https://www.wikidata.org/wiki/Q1'] },
      ],
    });
    assert.equal(cleanEntity(record()).nonCanonicalFacts, undefined);
    assert.deepEqual(cleanEntity(record(), { statedNonCanonicalFacts: true }).nonCanonicalFacts, [
      { field: 'homepageUri', value: 'old.example', origins: ['https://www.wikidata.org/wiki/Q1'] },
    ]);
    const noValue = validateEntity({
      id: 'Q1',
      type: 'Organization',
      nonCanonicalFacts: [{ field: 'name' }],
    });
    assert.equal(noValue.ok, true, 'dropped, not checked, by default');
    assert.throws(
      () =>
        cleanEntity(
          { id: 'Q1', type: 'Organization', nonCanonicalFacts: [{ field: 'name' }] },
          { statedNonCanonicalFacts: true },
        ),
      /nonCanonicalFacts\[0\]\.value is required/,
    );
  });

  test('deathDate and dissolutionDate are dates like birthDate', () => {
    const entity = cleanEntity({
      id: 'P',
      type: 'Person',
      deathDate: '2001-05-11',
      dissolutionDate: { str: 'd-0044' },
    });
    assert.deepEqual(entity.deathDate, { str: 'd2001-05-11', precision: 3 });
    assert.deepEqual(entity.dissolutionDate, { str: 'd-0044' });
    assert.throws(
      () => cleanEntity({ id: 'P', type: 'Person', deathDate: 'soon' }),
      /deathDate must be a date/,
    );
  });
});
