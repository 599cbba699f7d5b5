import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entity } from '../kg/index.ts';
import { namesConflict } from './graph-ingest.ts';

const person = (name: string, allNames?: string[]): Entity => ({ id: 'p', type: 'Person', name, allNames });
const org = (name: string): Entity => ({ id: 'o', type: 'Organization', name });

test('names that cannot be one person or one company conflict; variants of one name do not', () => {
  assert.equal(namesConflict('Person', 'Maria Gonzalez', person('David Okafor')), true);
  assert.equal(namesConflict('Person', 'Maria Gonzalez', person('Maria González')), false);
  assert.equal(namesConflict('Person', 'M. Gonzalez', person('Maria Gonzalez')), false);
  assert.equal(namesConflict('Person', 'Dr. Maria Gonzalez', person('Gonzalez, Maria')), false);
  assert.equal(namesConflict('Person', 'Maria Lopez', person('Maria Gonzalez')), true);
  // Any known name that fits is enough.
  assert.equal(namesConflict('Person', 'Maria Lopez', person('Maria Gonzalez', ['Maria Lopez'])), false);
  assert.equal(namesConflict('Organization', 'Acme Robotics Inc.', org('Acme Robotics')), false);
  assert.equal(namesConflict('Organization', 'IBM', org('International Business Machines')), false);
  assert.equal(namesConflict('Organization', 'Northwind Traders', org('Contoso Ltd')), true);
});
