import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Entity } from '../kg/index.ts';
import { isEmptyDelta, refreshDelta } from './delta.ts';

describe('refreshDelta', () => {
  const before: Entity = {
    id: 'O1',
    type: 'Organization',
    name: 'Acme',
    nbEmployees: 10,
    phoneNumbers: [{ string: '+1 555 0100', digits: '+15550100' }],
    industries: ['Robots'],
    nonCanonicalFacts: [{ field: 'nbEmployees', value: 9, origins: ['a'] }],
  };

  test('fields added, changed (old and new) and removed; identity and derived fields never', () => {
    const after: Entity = {
      id: 'O1',
      type: 'Organization',
      name: 'Acme',
      nbEmployees: 12,
      phoneNumbers: [{ digits: '+15550100', string: '+1 555 0100' }],
      description: 'Robots for warehouses',
      nonCanonicalFacts: [{ field: 'nbEmployees', value: 10, origins: ['b'] }],
    };
    assert.deepEqual(refreshDelta(before, after), {
      added: { description: 'Robots for warehouses' },
      changed: { nbEmployees: { old: 10, new: 12 } },
      removed: ['industries'],
    });
  });

  test('the same entity gives an empty delta, list elements in another order too', () => {
    const reordered = { ...structuredClone(before), industries: ['Robots'], origins: undefined };
    assert.deepEqual(
      refreshDelta({ ...before, origins: ['a', 'b'] }, { ...reordered, origins: ['b', 'a'] }),
      { added: {}, changed: {}, removed: [] },
    );
    const delta = refreshDelta(before, structuredClone(before));
    assert.ok(isEmptyDelta(delta));
    assert.equal(isEmptyDelta({ added: {}, changed: {}, removed: ['x'] }), false);
  });
});
