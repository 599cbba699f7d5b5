/**
 * `bench/support/namesakes.ts`: which Person queries no matcher can resolve (issue 22's
 * "resolvable" top-right rate). A free-mail address the person does not hold is a name query
 * when a namesake fits it as well; a shared phone number is a tie where both are in the place.
 * Real SQLite store, the import path.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { unresolvable } from '../bench/support/namesakes.ts';
import type { Entity } from '../src/kg/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { importGraph } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const BERLIN = { city: { name: 'Berlin' }, region: { name: 'Berlin' }, country: { name: 'Germany' } };
const MUNICH = { city: { name: 'Munich' }, region: { name: 'Bavaria' }, country: { name: 'Germany' } };
const person = (id: string, name: string, fields: Partial<Entity> = {}): Entity => ({
  id,
  type: 'Person',
  name,
  nameDetail: { firstName: name.split(' ')[0], lastName: name.split(' ')[1] },
  ...fields,
});
const PAUL = person('PER-paul-acme', 'Paul Smith', {
  emailAddresses: [{ contactString: 'paul.smith@acme.com' }],
  phoneNumbers: [{ string: '+49 30 1234567', digits: '+49301234567' }],
  location: BERLIN,
});
/** His namesake: another company's address, the same phone number, in Munich. */
const NAMESAKE = person('PER-paul-other', 'Paul Smith', {
  emailAddresses: [{ contactString: 'paul.smith7@other.com' }],
  phoneNumbers: [{ string: '+49 30 1234567', digits: '+49301234567' }],
  location: MUNICH,
});
/** A Paul Smith with an address at web.de: a web.de address that is not his tells him apart. */
const WEB_DE = person('PER-paul-webde', 'Paul Smith', {
  emailAddresses: [{ contactString: 'p.smith@web.de' }],
  location: MUNICH,
});
/** A Paul Smith whose work address has PAUL's local part. */
const SAME_LOCAL = person('PER-paul-bolt', 'Paul Smith', {
  emailAddresses: [{ contactString: 'paul.smith@bolt.com' }],
  location: MUNICH,
});
const ZORA = person('PER-zora', 'Zora Quillfeather', {
  emailAddresses: [{ contactString: 'zora@quill.com' }],
  phoneNumbers: [{ string: '+49 30 7654321', digits: '+49307654321' }],
  location: BERLIN,
});

let storage: Storage;
let cleanup: () => Promise<void>;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  await importGraph(storage.entities, [PAUL, NAMESAKE, WEB_DE, SAME_LOCAL, ZORA]);
});
after(async () => cleanup());

const of = (fields: Parameters<typeof personQuery>[0], id = PAUL.id) =>
  unresolvable(storage.entities, personQuery({ names: [], ...fields }), id);

test('a free-mail address he does not hold spells only his name: a namesake answers it as well', () => {
  assert.equal(of({ emails: ['paul.smith@gmail.com'] }), 'free-mail');
  assert.equal(of({ emails: ['psmith+news@gmail.com'], names: ['Paul Smith'] }), 'free-mail');
  // In Berlin no other Paul Smith lives: the place tells them apart.
  assert.equal(of({ emails: ['paul.smith@gmail.com'], location: 'Berlin' }), undefined);
  // Neither does a unique name's free-mail address.
  assert.equal(of({ emails: ['zora.q@gmail.com'] }, ZORA.id), undefined);
});

test('an address he holds, a local part only he has, or a company domain is evidence, not a name', () => {
  assert.equal(of({ emails: ['paul.smith@acme.com'] }), undefined);
  // Only NAMESAKE has the local part paul.smith7.
  assert.equal(of({ emails: ['paul.smith7@yahoo.com'] }, NAMESAKE.id), undefined);
  // PAUL's local part at yahoo.com: SAME_LOCAL has it too, at his company.
  assert.equal(of({ emails: ['paul.smith@yahoo.com'] }), 'free-mail');
  assert.equal(of({ emails: ['paul.smith@otherco.com'] }), undefined);
  // A name and a free-mail address with an employer: the employer may tell them apart.
  assert.equal(of({ emails: ['paul.smith@gmail.com'], employer: 'Acme' }), undefined);
});

test('a free-mail provider where a namesake holds an address: it tells him from that one only', () => {
  // At web.de the namesake WEB_DE holds another address (a conflict for him), NAMESAKE none.
  assert.equal(of({ emails: ['ps@web.de'] }), 'free-mail');
  // NAMESAKE himself: PAUL fits as well.
  assert.equal(of({ emails: ['ps@web.de'] }, NAMESAKE.id), 'free-mail');
  // WEB_DE is the one Paul Smith with a web.de address: resolvable.
  assert.equal(of({ emails: ['paul.smith@web.de'] }, WEB_DE.id), undefined);
});

test('a phone number another person holds is a tie where the query places them both', () => {
  assert.equal(of({ phones: ['+49301234567'] }), 'same phone');
  assert.equal(of({ phones: ['+49301234567'], location: 'Germany' }), 'same phone');
  // Berlin: only PAUL of the two lives there.
  assert.equal(of({ phones: ['+49301234567'], location: 'Berlin' }), undefined);
  assert.equal(of({ phones: ['+49307654321'] }, ZORA.id), undefined);
  // With a name the name tells them apart (another rule's business).
  assert.equal(of({ phones: ['+49301234567'], names: ['Paul Smith'] }), undefined);
});

test('name-only and titled queries keep their rule', () => {
  assert.equal(of({ names: ['Paul Smith'] }), 'unresolvable');
  assert.equal(of({ names: ['Paul Smith'], location: 'Berlin' }), undefined);
  assert.equal(of({ names: ['Zora Quillfeather'] }, ZORA.id), undefined);
});
