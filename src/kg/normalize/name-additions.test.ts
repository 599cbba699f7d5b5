import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_NAME_WITH_ADDITION,
  splitBirthName,
  splitOrganizationAddition,
  withoutPronouns,
} from './name-additions.ts';

test('a stock listing after an organization name is split off', () => {
  for (const [written, name, listing] of [
    ['Acme Robotics Inc (NYSE: ACR)', 'Acme Robotics Inc', '(NYSE: ACR)'],
    ['Acme Foods [NASDAQ:ACF]', 'Acme Foods', '[NASDAQ:ACF]'],
    ['Acme Labs Ltd - LSE:ACL', 'Acme Labs Ltd', 'LSE:ACL'],
    ['Acme AG, XETRA: AC1', 'Acme AG', 'XETRA: AC1'],
  ])
    assert.deepEqual(splitOrganizationAddition(written), { name, addition: listing, kind: 'listing' });
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

test("a register's number, a parent organization or an addressee line is split off an organization name", () => {
  const split = (name: string) => {
    const found = splitOrganizationAddition(name);
    return found && [found.name, found.kind];
  };
  assert.deepEqual(split('Acme Software SA (HRB 203730)'), ['Acme Software SA', 'registration']);
  assert.deepEqual(split('Acme Networks Inc, Reg. No. 99195721'), ['Acme Networks Inc', 'registration']);
  assert.deepEqual(split('Acme Ltd - VAT GB123456789'), ['Acme Ltd', 'registration']);
  assert.deepEqual(split('Acme Networks SAS, a Kasibo Motors company'), ['Acme Networks SAS', 'parent']);
  assert.deepEqual(split('Acme Motors GmbH (subsidiary of Kasibo Inc)'), ['Acme Motors GmbH', 'parent']);
  assert.deepEqual(split('c/o Acme Dynamics Inc'), ['Acme Dynamics Inc', 'care-of']);
  assert.deepEqual(split('Attn. Acme Motors GmbH'), ['Acme Motors GmbH', 'care-of']);
  // After an addressee line, a department before the name is read too.
  assert.deepEqual(splitOrganizationAddition('Attn: Accounts Payable, Acme Ltd'), {
    name: 'Acme Ltd',
    addition: 'Attn: Accounts Payable',
    kind: 'department',
  });
  // Names that only start or end like one: a register's marker needs a number, "Attention"
  // needs a colon or a dot, "Co" is no "c/o".
  for (const name of [
    'Acme Vat Co',
    'Attention Deficit Inc',
    'Co Acme Ltd',
    'Part of Life Ltd',
    'The Company',
  ])
    assert.equal(splitOrganizationAddition(name), undefined, name);
});

test('a name longer than MAX_NAME_WITH_ADDITION is read as written (its patterns never run over a long field)', () => {
  const padded = (name: string) =>
    `${'Acme '.repeat(Math.ceil((MAX_NAME_WITH_ADDITION - name.length) / 5) + 1)}${name}`;
  for (const [name, read] of [
    ['Robotics Inc (NYSE: ACR)', splitOrganizationAddition],
    ['Robotics Ltd – Sales', splitOrganizationAddition],
    ['Ada Hoffmann (she/her)', withoutPronouns],
    ['Ada Hoffmann née Berg', splitBirthName],
  ] as const) {
    assert.notEqual(read(name), undefined, name);
    const long = padded(name);
    assert.ok(long.length > MAX_NAME_WITH_ADDITION);
    assert.equal(read(long), undefined, long);
  }
});

test("a web page title's words are split off an organization name; a name with such words is not", () => {
  for (const [written, name] of [
    ['Acme Robotics | Home', 'Acme Robotics'],
    ['Acme Robotics Ltd – Official Website', 'Acme Robotics Ltd'],
    ['Acme Robotics GmbH - Startseite', 'Acme Robotics GmbH'],
    ['Home - Acme Robotics Inc', 'Acme Robotics Inc'],
    ['Welcome to Acme Robotics!', 'Acme Robotics'],
    ['Willkommen bei Acme GmbH', 'Acme GmbH'],
    ['Acme SA: Site officiel', 'Acme SA'],
    ['Acme Labs | About Us | Home', 'Acme Labs'],
  ])
    assert.equal(splitOrganizationAddition(written)?.name, name, written);
  assert.deepEqual(splitOrganizationAddition('Welcome to Acme Robotics | Official Site'), {
    name: 'Acme Robotics',
    addition: 'Welcome to; Official Site',
    kind: 'page',
  });
  // A department after the page's words is read too.
  assert.deepEqual(splitOrganizationAddition('Acme BV – Sales | Home'), {
    name: 'Acme BV',
    addition: 'Sales; Home',
    kind: 'department',
  });
  for (const name of [
    'Home Depot',
    'Acme Home Ltd',
    'Portal Software',
    'Acme - The Home Company',
    'Home | Official',
    'Welcome',
  ])
    assert.equal(splitOrganizationAddition(name), undefined, name);
});
