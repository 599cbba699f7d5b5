import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitBirthName, splitOrganizationAddition, withoutPronouns } from './name-additions.ts';

test('a stock listing after an organization name is split off', () => {
  for (const [written, name] of [
    ['Acme Robotics Inc (NYSE: ACR)', 'Acme Robotics Inc'],
    ['Acme Foods [NASDAQ:ACF]', 'Acme Foods'],
    ['Acme Labs Ltd - LSE:ACL', 'Acme Labs Ltd'],
    ['Acme AG, XETRA: AC1', 'Acme AG'],
  ])
    assert.deepEqual(splitOrganizationAddition(written), {
      name,
      addition: written.slice(name.length).trim(),
      kind: 'listing',
    });
  // A ticker in parentheses without its exchange is left alone (it may be an acronym of the name).
  assert.equal(splitOrganizationAddition('Acme Robotics (ACR)'), undefined);
});

test('a department set apart from an organization name is split off; words of a name are not', () => {
  for (const [written, name, department] of [
    ['Acme Robotics Ltd – Sales', 'Acme Robotics Ltd', 'Sales'],
    ['Acme GmbH (IT Department)', 'Acme GmbH', 'IT Department'],
    ['Acme SA, Accounts Payable', 'Acme SA', 'Accounts Payable'],
    ['Acme BV / R&D', 'Acme BV', 'R&D'],
    ['Purchasing Dept., Acme Labs KK', 'Acme Labs KK', 'Purchasing Dept.'],
  ])
    assert.deepEqual(splitOrganizationAddition(written), { name, addition: department, kind: 'department' });
  for (const name of [
    'Acme Logistics',
    'Sales Force Inc',
    'Acme (Sales) Ltd',
    'University of Oxford, Department of Economics',
    'Sales',
    'Sales, Marketing',
  ])
    assert.equal(splitOrganizationAddition(name), undefined, name);
});

test("pronouns after a person's name are left out; a surname that is a pronoun stays", () => {
  for (const written of [
    'Ada Hoffmann (she/her)',
    'Ada Hoffmann she/her',
    'Ada Hoffmann [he/him]',
    'Ada Hoffmann | they/them',
    'Ada Hoffmann, he/him/his',
  ])
    assert.equal(withoutPronouns(written), 'Ada Hoffmann', written);
  assert.equal(withoutPronouns('Wei He'), undefined);
  assert.equal(withoutPronouns('Ada Hoffmann/Berg'), undefined);
});

test("a birth name after a person's name is split off; a date or a surname Born is not one", () => {
  assert.deepEqual(splitBirthName('Ada Hoffmann née Berg'), { name: 'Ada Hoffmann', birthName: 'Berg' });
  assert.deepEqual(splitBirthName('Ada Hoffmann nee Berg'), { name: 'Ada Hoffmann', birthName: 'Berg' });
  assert.deepEqual(splitBirthName('Ada Hoffmann geb. Berg'), { name: 'Ada Hoffmann', birthName: 'Berg' });
  assert.equal(splitBirthName('Arthur Young (rugby union, born 1855)'), undefined);
  assert.equal(splitBirthName('Max Born'), undefined);
});
