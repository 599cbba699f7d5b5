import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  analyzeQuery,
  type MatchQuery,
  withEmployerWrittenOut,
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
  // A name that is only an address is the email, and no name.
  const alone = analyzeQuery({ ...person, names: ['ada@x.example'] });
  assert.deepEqual([alone.names.length, alone.emails.length], [0, 1]);
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

test("an organization's stock listing or department is read apart from its name", () => {
  const listed = analyzeQuery(organization({ names: ['Lebomivo Robotics Inc (NYSE: LEB)'] }));
  assert.deepEqual(keys(listed), ['lebomivo robotics']);
  assert.ok(listed.notes.some((note) => note.includes('stock listing')));
  // A department's words may be the name's ("Acme – Logistics"): also read with them, after.
  const department = analyzeQuery(organization({ names: ['Lebomivo Robotics Ltd – Sales'] }));
  assert.deepEqual(keys(department), ['lebomivo robotics', 'lebomivo robotics sales']);
  assert.deepEqual(keys(analyzeQuery(organization({ names: ['Accounts Payable, Lebomivo GmbH'] }))), [
    'lebomivo',
    'accounts lebomivo payable',
  ]);
});

test('a place between an organization name and its legal form is read as a place after the name', () => {
  const read = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Lebomivo Robotics Germany GmbH'] })),
    noNameWords,
  );
  assert.deepEqual(keys(read), ['germany lebomivo robotics', 'lebomivo robotics']);
  assert.equal(read.location?.country, 'DE');
  assert.deepEqual(read.names[1].legalForms, ['gmbh']);
  // Nothing but the place before the legal form: no such reading.
  assert.equal(analyzeQuery(organization({ names: ['Germany GmbH'] })).namesWithPlace, undefined);
});

test("a person's pronouns and birth name are read apart from the name, first", () => {
  const person = { ...organization({}), type: 'Person' as const };
  const read = (name: string) => analyzeQuery({ ...person, names: [name] }).names;
  for (const name of ['Ada Hoffmann (she/her)', 'Ada Hoffmann she/her', 'Ada Hoffmann née Berg']) {
    assert.deepEqual(read(name)[0].tokens, ['ada', 'hoffmann'], name);
    assert.equal(read(name)[0].last, 'hoffmann', name);
  }
  // Words in parentheses inside the name (a birth name, a nickname).
  assert.deepEqual(read('Ada Sofia (Berg) Hoffmann')[0].tokens, ['ada', 'sofia', 'hoffmann']);
});

test('initials written together before a surname are also read apart', () => {
  const person = { ...organization({}), type: 'Person' as const };
  const read = analyzeQuery({ ...person, names: ["AJ O'Brien"] }).names;
  // As written first (two capitals may be a surname written first, "HO Chen"), then as initials.
  assert.equal(read.length, 2);
  assert.deepEqual(read[1].tokens, ['a', 'j', 'obrien']);
  assert.equal(read[1].first, 'a');
  assert.equal(analyzeQuery({ ...person, names: ['Ada Hoffmann'] }).names.length, 1);
  assert.equal(analyzeQuery({ ...person, names: ['AJ HOFFMANN'] }).names.length, 1);
});

test("a person's title written as a profile headline is read as the title and the workplace", () => {
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  const at = analyzeQuery({ ...person, title: 'Sales Director at Lebomivo Robotics | MBA' });
  assert.deepEqual(at.titleTokens, ['sales', 'director']);
  assert.equal(at.employerKey, 'lebomivo robotics');
  // After a comma or a dash, a workplace only when it carries a legal form.
  const comma = analyzeQuery({ ...person, title: 'Designer, Lebomivo Robotics GmbH' });
  assert.deepEqual(comma.titleTokens, ['designer']);
  assert.equal(comma.employerKey, 'lebomivo robotics');
  const title = analyzeQuery({ ...person, title: 'Director, Sales and Marketing' });
  assert.deepEqual(title.titleTokens, ['director']);
  assert.equal(title.employerKey, undefined);
  // A workplace given as the employer is kept.
  const given = analyzeQuery({ ...person, title: 'CTO @ Kasibo', employer: 'Lebomivo Robotics' });
  assert.equal(given.employerKey, 'lebomivo robotics');
  assert.deepEqual(analyzeQuery({ ...person, title: 'Chief Technology Officer' }).titleTokens, [
    'chief',
    'technology',
    'officer',
  ]);
});

test('a name that is only an e-mail address is read as the email', () => {
  for (const type of ['Person', 'Organization'] as const) {
    const read = analyzeQuery({ ...organization({}), type, names: ['<ada.hoffmann@lebomivo.example>'] });
    assert.deepEqual(read.names, []);
    assert.deepEqual(
      read.emails.map((e) => e.address),
      ['ada.hoffmann@lebomivo.example'],
    );
  }
});

test('an e-mail address written against harvesters is read as the address', () => {
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  for (const email of [
    'ada.hoffmann(at)lebomivo.example',
    'ada.hoffmann [at] lebomivo [dot] example',
    'ada.hoffmann at lebomivo dot example',
  ]) {
    const read = analyzeQuery({ ...person, emails: [email] });
    assert.deepEqual(
      read.emails.map((e) => e.address),
      ['ada.hoffmann@lebomivo.example'],
      email,
    );
  }
  assert.deepEqual(analyzeQuery({ ...person, emails: ['meet me at noon'] }).emails, []);
});

test("a person's title is compared without the qualifiers written with the role", () => {
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  for (const title of ['Interim Sales Director', 'Sales Director (m/w/d)', 'Sales Director a.i.']) {
    const read = analyzeQuery({ ...person, title });
    assert.deepEqual(read.titleTokens, ['sales', 'director'], title);
    assert.ok(
      read.notes.some((note) => note.includes('was read as the role "Sales Director"')),
      title,
    );
  }
  // After a headline's workplace is read apart.
  assert.deepEqual(analyzeQuery({ ...person, title: 'Acting CTO at Lebomivo Robotics' }).titleTokens, [
    'cto',
  ]);
  const plain = analyzeQuery({ ...person, title: 'Sales Director' });
  assert.deepEqual(plain.titleTokens, ['sales', 'director']);
  assert.deepEqual(plain.notes, []);
});

test('a person name of four words or more is also read with one of two surnames', () => {
  const person = { ...organization({}), type: 'Person' as const };
  const tokensOf = (name: string) => analyzeQuery({ ...person, names: [name] }).names.map((n) => n.tokens);
  for (const name of ['Ada Amir Rossi Santos', 'Ada Amir Rossi-Santos']) {
    const read = analyzeQuery({ ...person, names: [name] });
    assert.deepEqual(
      read.names.map((n) => n.tokens),
      [
        ['ada', 'amir', 'rossi', 'santos'],
        ['ada', 'amir', 'rossi'],
        ['ada', 'amir', 'santos'],
      ],
      name,
    );
    assert.equal(read.names[0].last, 'santos');
    assert.equal(read.names[1].first, 'ada');
    assert.equal(read.names[1].last, 'rossi');
    assert.deepEqual(read.names[1].middles, ['amir']);
    assert.equal(read.names[2].last, 'santos');
  }
  // A conjunction between the surnames goes with the one left out ("Ortega y Gasset").
  assert.deepEqual(tokensOf('Ada Amir Rossi y Santos').slice(1), [
    ['ada', 'amir', 'rossi'],
    ['ada', 'amir', 'santos'],
  ]);
  // Three words compare with a record's two or three already: one reading.
  assert.deepEqual(tokensOf('Ada Rossi Santos'), [['ada', 'rossi', 'santos']]);
  // Written surnames first: also read given names first (normalisation reads the comma form as
  // a name and a title, the capitals as one surname).
  for (const name of ['Rossi Santos, Ada Amir', 'Rossi-Santos, Ada Amir', 'ROSSI SANTOS Ada Amir'])
    assert.deepEqual(tokensOf(name).slice(1), [
      ['ada', 'amir', 'rossi', 'santos'],
      ['ada', 'amir', 'rossi'],
      ['ada', 'amir', 'santos'],
    ]);
  assert.deepEqual(tokensOf('Rossi Santos, Ada'), [
    ['rossi', 'santos'],
    ['ada', 'rossi', 'santos'],
  ]);
  // One surname before the comma is read so already; a title after a full name is not a name.
  assert.deepEqual(tokensOf('Rossi, Ada Amir'), [['ada', 'amir', 'rossi']]);
  assert.equal(tokensOf('William Cavendish, 3rd Earl of Devonshire').length, 1);
});

test("a nickname in quotes inside a person's name is read without it, first", () => {
  const person = { ...organization({}), type: 'Person' as const };
  const read = (name: string) => analyzeQuery({ ...person, names: [name] }).names;
  for (const name of [
    'Ada "Di" Sofia Hoffmann',
    "Ada 'Di' Sofia Hoffmann",
    'Ada “Di” Sofia Hoffmann',
    'Ada „Di“ Sofia Hoffmann',
    'Ada «Di» Sofia Hoffmann',
  ]) {
    assert.deepEqual(read(name)[0].tokens, ['ada', 'sofia', 'hoffmann'], name);
    assert.deepEqual(read(name)[0].middles, ['sofia'], name);
  }
  // An apostrophe inside a word is no quote; a name wholly in quotes has nothing inside.
  assert.deepEqual(read("Ada 'Di' O'Brien")[0].tokens, ['ada', 'obrien']);
  assert.deepEqual(read("Sean O'Brien")[0].tokens, ['sean', 'obrien']);
  assert.equal(read("Sean O'Brien").length, 1);
  assert.equal(read('"Ada Hoffmann"').length, 1);
});

test("an organization name's abbreviated words are also read written out when the graph lacks them", () => {
  const words = new Map([
    ['lebomivo', 3],
    ['motors', 40],
    ['health', 40],
    ['sw', 2],
  ]);
  const count = (word: string) => words.get(word) ?? 0;
  const read = (name: string) => withJoinedWordsApart(analyzeQuery(organization({ names: [name] })), count);
  assert.equal(read('Lebomivo Mtrs GmbH').names[1].key, 'lebomivo motors');
  assert.ok(read('Lebomivo Mtrs GmbH').notes.some((n) => n.includes('abbreviations written out')));
  // A generic word stands for itself whether the graph has it or not ("Hldgs": holdings).
  assert.deepEqual(read('Lebomivo Hlth Hldgs').names[1].tokens, ['lebomivo', 'health', 'holdings']);
  // An abbreviation the graph's names have ("SW"), or whose word they lack, is kept as written.
  assert.equal(read('Lebomivo SW').names.length, 1);
  assert.equal(read('Lebomivo Matls').names.length, 1);
});

test("a person's employer is read as an organization's name: no place after it, no generic words", () => {
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  const employer = (text: string) => analyzeQuery({ ...person, employer: text });
  for (const text of [
    'Lebomivo Robotics SA (Spain)',
    'Lebomivo Robotics Ltd, UK',
    'Lebomivo Robotics Spain SA',
  ])
    assert.deepEqual(employer(text).employerTokens, ['lebomivo', 'robotics'], text);
  assert.equal(employer('Lebomivo Robotics SA (Spain)').employerKey, 'lebomivo robotics');
  // Generic words go when two other words remain; the name looked up keeps them.
  const holdings = employer('Lebomivo Robotics Holdings');
  assert.deepEqual(holdings.employerTokens, ['lebomivo', 'robotics']);
  assert.equal(holdings.employerKey, 'holdings lebomivo robotics');
  assert.deepEqual(employer('Lebomivo Group').employerTokens, ['lebomivo', 'group']);
  // A city written bare after the name may be a word of it.
  assert.deepEqual(employer('Lebomivo Berlin').employerTokens, ['lebomivo', 'berlin']);
  // A long employer is read as written (the place pattern never runs over a long field).
  const long = `${'Lebomivo '.repeat(25)}Robotics SA (Madrid)`;
  assert.ok(employer(long).employerTokens.includes('madrid'));
  assert.ok(!employer('Lebomivo Robotics SA (Madrid)').employerTokens.includes('madrid'));
});

test("a person's employer's abbreviated words are written out when the graph's names lack them", () => {
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  const count = (word: string) => (['lebomivo', 'motors'].includes(word) ? 5 : 0);
  const read = withEmployerWrittenOut(analyzeQuery({ ...person, employer: 'Lebomivo Mtrs Hldgs' }), count);
  assert.deepEqual(read.employerTokens, ['lebomivo', 'motors']);
  assert.equal(read.employerKey, 'holdings lebomivo motors');
  assert.ok(read.notes.some((n) => n.includes('abbreviations written out')));
  const plain = analyzeQuery({ ...person, employer: 'Lebomivo Motors' });
  assert.equal(withEmployerWrittenOut(plain, count), plain);
});

test("a city and its country in parentheses after an organization's name are read as its place", () => {
  for (const name of ['Acme Robotics GmbH (Munich, Germany)', 'Acme Robotics GmbH [Munich, DE]']) {
    const read = withNamesWithoutPlace(analyzeQuery(organization({ names: [name] })), noNameWords);
    assert.deepEqual(read.names[1].tokens, ['acme', 'robotics'], name);
    assert.ok(read.location, name);
  }
  const inGermany = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Robotics GmbH (Munich, Germany)'] })),
    noNameWords,
  );
  assert.equal(inGermany.location?.country, 'DE');
  // A country code is no word of the name: a graph whose names have "de" still reads the place.
  const withDe = withNamesWithoutPlace(
    analyzeQuery(organization({ names: ['Acme Robotics GmbH (Munich, DE)'] })),
    (word) => word === 'de',
  );
  assert.equal(withDe.names.length, 2);
});

test('four words written two surnames first, mixed case, no comma, are also read given names first when the given-name data says so', () => {
  const person = { ...organization({}), type: 'Person' as const };
  const tokensOf = (name: string) => analyzeQuery({ ...person, names: [name] }).names.map((n) => n.tokens);
  // After the readings of the name as written (they keep the retrieval's first keys).
  assert.deepEqual(tokensOf('Rossi Santos Ada Amir'), [
    ['rossi', 'santos', 'ada', 'amir'],
    ['rossi', 'santos', 'ada'],
    ['rossi', 'santos', 'amir'],
    ['ada', 'amir', 'rossi'],
    ['ada', 'amir', 'santos'],
  ]);
  const read = analyzeQuery({ ...person, names: ['Rossi Santos Ada Amir'] });
  assert.equal(read.names[3].first, 'ada');
  assert.equal(read.names[3].last, 'rossi');
  assert.ok(read.notes.some((note) => note.includes('surnames first')));
  // A surname that is a given name too: more of the last two words are given names.
  assert.deepEqual(tokensOf('Ruiz Martin Julia Farid').slice(3), [
    ['julia', 'farid', 'ruiz'],
    ['julia', 'farid', 'martin'],
  ]);
  // Given names first, or no more given names last than first: read as written only.
  for (const name of [
    'Julia Farid Moreau Ferreira',
    'Ada Amir Rossi Santos',
    'Martin Thomas Ada Rossi',
    'Rossi Santos Vostrel Ada',
  ])
    assert.equal(tokensOf(name).length, 3, name);
  // Three words compare crossed already; five are not guessed at.
  assert.equal(tokensOf('Rossi Santos Ada').length, 1);
  assert.equal(tokensOf('Moreau y Ferreira Julia Farid').length, 3);
});

test("a country's alpha-3 code in capitals set apart after an organization's name is its place, never a bare word", () => {
  for (const [name, country] of [
    ['Lebomivo Robotics GmbH, DEU', 'DE'],
    ['Acme Robotics GmbH (Sydney, AUS)', 'AU'],
    ['Acme Robotics (FRA)', 'FR'],
  ]) {
    const read = withNamesWithoutPlace(
      analyzeQuery(organization({ names: [name] })),
      (word) => word === 'deu',
    );
    assert.equal(read.names.length, 2, name);
    assert.equal(read.location?.country, country, name);
  }
  // A last word in capitals is the name's ("industries", "finance"), wherever codes spell it.
  for (const name of ['ACME IND', 'ACME FIN', 'SMITH AND SONS', 'Acme Robotics - FIN']) {
    const read = withNamesWithoutPlace(analyzeQuery(organization({ names: [name] })), noNameWords);
    assert.equal(read.location, undefined, name);
    assert.equal(read.names.length, 1, name);
  }
  const person = { ...organization({}), type: 'Person' as const, names: ['Ada Hoffmann'] };
  const employer = (text: string) => analyzeQuery({ ...person, employer: text }).employerTokens;
  assert.deepEqual(employer('Lebomivo Robotics GmbH, DEU'), ['lebomivo', 'robotics']);
  assert.ok(employer('Lebomivo Robotics IND').includes('ind'));
  assert.equal(analyzeQuery({ ...person, location: 'Sydney, AUS' }).location?.country, 'AU');
});
