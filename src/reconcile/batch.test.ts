import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidParameterError } from '../errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, parseBatch, parseQuery } from './batch.ts';

test('properties feed the enhance fields they map to, by id or alias', () => {
  const { requests, limit } = parseQuery(
    'q0',
    {
      query: 'Bigovofe Logistics',
      type: 'organisation',
      properties: [
        { pid: 'Website', v: 'https://bigovofe.example/' },
        { pid: 'location.city.name', v: 'Mumbai' },
        { pid: 'country', v: ['India'] },
        { pid: 'phone', v: 819 },
        { pid: 'allNames', v: { id: 'x', name: 'Bigovofe' } },
      ],
    },
    100,
  );
  assert.equal(limit, DEFAULT_LIMIT);
  assert.equal(requests.length, 1);
  const [{ query, options }] = requests;
  assert.equal(query.type, 'Organization');
  assert.deepEqual(query.name, ['Bigovofe Logistics', 'Bigovofe']);
  assert.deepEqual(query.url, ['https://bigovofe.example/']);
  assert.equal(query.location, 'Mumbai, India');
  assert.equal(query.phone, '819');
  assert.equal(options.size, DEFAULT_LIMIT);
  assert.equal(options.threshold, 0);
});

test('no type: both types, unless a person-only field says Person; limit capped', () => {
  assert.deepEqual(
    parseQuery('a', { query: 'Ada' }, 100).requests.map((r) => r.query.type),
    ['Organization', 'Person'],
  );
  const person = parseQuery(
    'b',
    { query: 'Ada', limit: 1000, properties: [{ pid: 'employer', v: 'X' }] },
    100,
  );
  assert.deepEqual(
    person.requests.map((r) => r.query.type),
    ['Person'],
  );
  assert.equal(person.limit, MAX_LIMIT);
  assert.equal(person.requests[0].query.employer, 'X');
});

test('bad input names the query and its part', () => {
  const refused = (fn: () => unknown, parameter: string) =>
    assert.throws(fn, (error) => error instanceof InvalidParameterError && error.parameter === parameter);
  refused(() => parseBatch('[1]'), 'queries');
  refused(() => parseBatch('{'), 'queries');
  refused(
    () =>
      parseBatch(JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`q${i}`, {}])))),
    'queries',
  );
  refused(() => parseQuery('q1', { query: 'x', type: 'Q5' }, 100), 'queries.q1.type');
  refused(
    () => parseQuery('q1', { query: 'x', properties: [{ pid: 'nbEmployees', v: 3 }] }, 100),
    'queries.q1.properties[0].pid',
  );
  refused(
    () => parseQuery('q1', { query: 'x', properties: [{ pid: 'url', v: [[1]] }] }, 100),
    'queries.q1.properties[0].v',
  );
  refused(() => parseQuery('q1', { properties: [] }, 100), 'queries.q1');
  // A batch keyed `__proto__` stays a key of its own.
  assert.deepEqual([...parseBatch('{"__proto__":{"query":"x"}}').keys()], ['__proto__']);
});
