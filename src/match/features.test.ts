import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entity } from '../kg/index.ts';
import {
  expandFeatures,
  modelFeatureNames,
  ORGANIZATION_FEATURES,
  organizationFeatures,
  PERSON_FEATURES,
  personFeatures,
  personTokenSimilarity,
  personWords,
  spells,
  splitWords,
} from './features.ts';
import { indexEntity, type OrganizationProfile, type PersonProfile } from './profile.ts';
import { analyzeQuery, type MatchQuery } from './query-analysis.ts';
import { Random } from '../random.ts';
import { Vocabulary } from './vocabulary.ts';

const vocabulary = new Vocabulary(
  new Map([
    ['university', 900],
    ['pecs', 1],
    ['oxford', 2],
    ['john', 300],
    ['smith', 200],
    ['lee', 50],
  ]),
  1000,
);
const query = (q: Partial<MatchQuery> & Pick<MatchQuery, 'type'>): MatchQuery => ({
  names: [],
  urls: [],
  emails: [],
  phones: [],
  ...q,
});

/** The features of a Person query for the name `queried` against a person named `name`. */
const namedFeatures = (queried: string, name: string) =>
  personFeatures(
    analyzeQuery(query({ type: 'Person', names: [queried] })),
    indexEntity({ id: 'PER-40', type: 'Person', name }).profile as PersonProfile,
    vocabulary,
  );

const pecs: Entity = {
  id: 'ORG-1',
  type: 'Organization',
  name: 'University of Pécs',
  homepageUri: 'pte.hu',
  allUris: ['pte.hu', 'admissions.pte.hu'],
  location: { country: { name: 'Hungary' } },
};
const pecsProfile = indexEntity(pecs).profile as OrganizationProfile;

test('organization features: same name through abbreviation and accents, url forms, country', () => {
  const f = organizationFeatures(
    analyzeQuery(
      query({
        type: 'Organization',
        names: ['Univ. of Pecs'],
        urls: ['https://www.pte.hu/en'],
        location: 'Hungary',
      }),
    ),
    pecsProfile,
    vocabulary,
  );
  assert.equal(f.nameKeyEqual, 1);
  assert.equal(f.nameCoverQuery, 1);
  assert.equal(f.urlExactHost, 1);
  assert.equal(f.urlDomainMatch, 1);
  assert.equal(f.urlConflict, 0);
  assert.equal(f.countryMatch, 1);
  assert.equal(f.countryConflict, 0);
});

test('organization features: conflicts and missing words are visible', () => {
  const f = organizationFeatures(
    analyzeQuery(
      query({ type: 'Organization', names: ['Oxford University'], urls: ['ox.ac.uk'], location: 'France' }),
    ),
    pecsProfile,
    vocabulary,
  );
  assert.equal(f.nameKeyEqual, 0);
  assert.ok(f.nameCoverQuery < 0.2, `cover ${f.nameCoverQuery}`);
  assert.ok(f.nameMissedQuery > 0.5, 'the rare word "oxford" is missing');
  assert.equal(f.urlConflict, 1);
  assert.equal(f.countryConflict, 1);
  const subdomain = organizationFeatures(
    analyzeQuery(query({ type: 'Organization', urls: ['cs.admissions.pte.hu'] })),
    pecsProfile,
    vocabulary,
  );
  assert.equal(subdomain.urlHostMatch, 1);
  assert.equal(subdomain.urlExactHost, 0);
});

test("the entity's site name under another ending is neither conflict nor agreement; another name is a conflict", () => {
  const urlFeatures = (url: string) =>
    organizationFeatures(analyzeQuery(query({ type: 'Organization', urls: [url] })), pecsProfile, vocabulary);
  for (const url of ['pte.de', 'https://www.pte.co.uk/en', 'admissions.pte.com']) {
    const f = urlFeatures(url);
    assert.equal(f.hasUrl, 1, url);
    assert.equal(f.urlConflict, 0, url);
    assert.equal(f.urlHostMatch + f.urlDomainMatch + f.urlExactHost, 0, url);
  }
  // A label that only starts with the entity's, or contains it, is another site.
  for (const url of ['pteh.de', 'xpte.hu', 'pte-hu.com', 'hu.pte'])
    assert.equal(urlFeatures(url).urlConflict, 1, url);
});

test('a generic organisational word one side lacks is left out, as a legal form is; its weight is capped', () => {
  // A graph whose names never carry "group", "holdings" or "international": the largest IDF.
  const words = new Vocabulary(
    new Map([
      ['babapazo', 2],
      ['networks', 10],
      ['foods', 10],
    ]),
    1000,
  );
  const org = (id: string, name: string) =>
    indexEntity({ id, type: 'Organization', name }).profile as OrganizationProfile;
  const networks = org('ORG-1', 'Babapazo Networks SA');
  const compare = (name: string, profile = networks) =>
    organizationFeatures(analyzeQuery(query({ type: 'Organization', names: [name] })), profile, words);
  const plain = compare('Babapazo Networks');
  for (const name of [
    'Babapazo Networks Group',
    'Babapazo Networks Holdings',
    'Babapazo Networks Intl.',
    'Babapazo Networks Gruppe',
  ]) {
    const f = compare(name);
    assert.equal(f.nameKeyEqual, 1, name);
    assert.equal(f.nameCoverQuery, 1, name);
    assert.equal(f.nameMissedQuery, 0, name);
    assert.equal(f.nameUnmatchedQueryWords, 0, name);
    assert.equal(f.nameUniqueWord, plain.nameUniqueWord, name);
    assert.equal(f.nameEvidence, plain.nameEvidence, name);
  }
  // The candidate's own generic word is left out too when the query lacks it.
  const grouped = org('ORG-2', 'Babapazo Networks Group Ltd');
  assert.equal(compare('Babapazo Networks', grouped).nameKeyEqual, 1);
  assert.equal(compare('Babapazo Networks', grouped).nameMissedCandidate, 0);
  // Precision: a shared word and a generic one name none of the organizations with that word.
  const partial = compare('Babapazo Group');
  assert.equal(partial.nameKeyEqual, 0);
  assert.ok(partial.nameMissedCandidate > 0.5, `"networks" is missed: ${partial.nameMissedCandidate}`);
  assert.ok(partial.nameCoverCandidate < 0.6, `cover ${partial.nameCoverCandidate}`);
  // A word that is not generic still counts as missing.
  const other = compare('Babapazo Networks Foods');
  assert.equal(other.nameKeyEqual, 0);
  assert.ok(other.nameMissedQuery > 0.5, `"foods" is missed: ${other.nameMissedQuery}`);
  // Written on both sides, a generic word is evidence, but weighs no more than a word 2% of
  // names carry, however rare it is in this graph.
  const both = compare('Babapazo Networks Group', grouped);
  assert.equal(both.nameKeyEqual, 1);
  assert.ok(both.nameEvidence > plain.nameEvidence);
  const cap = Math.log(1001 / 21) / Math.log(1001);
  assert.ok(
    Math.abs(both.nameEvidence - plain.nameEvidence - cap) < 1e-9,
    `${both.nameEvidence - plain.nameEvidence}`,
  );
  // In an institution's name a generic word tells two apart: "Babapazo International
  // University" is not the Babapazo University, and the word is not capped there.
  const university = org('ORG-3', 'Babapazo University');
  const international = compare('Babapazo International University', university);
  assert.equal(international.nameKeyEqual, 0);
  assert.equal(international.nameUnmatchedQueryWords, 1);
  assert.ok(
    international.nameMissedQuery > 0.9,
    `"international" is missed: ${international.nameMissedQuery}`,
  );
  assert.equal(compare('Babapazo University', org('ORG-4', 'Babapazo Global University')).nameKeyEqual, 0);
  assert.equal(
    compare('Babapazo Internationale Hochschule', org('ORG-5', 'Babapazo Hochschule')).nameKeyEqual,
    0,
  );
});

test('person features: nicknames, swapped order, typos, e-mail and place evidence', () => {
  const person: Entity = {
    id: 'PER-1',
    type: 'Person',
    name: 'William Lee',
    nameDetail: { firstName: 'William', lastName: 'Lee' },
    emailAddresses: [{ contactString: 'w.lee@acme.com' }],
    location: { city: { name: 'Leeds' } },
    employments: [{ isCurrent: true, title: 'chemist' }],
  };
  const profile = indexEntity(person).profile as PersonProfile;
  const swapped = personFeatures(
    analyzeQuery(query({ type: 'Person', names: ['Lee Bill'] })),
    profile,
    vocabulary,
  );
  assert.ok(swapped.firstNameSimilarity >= 0.95 && swapped.lastNameSimilarity === 1, JSON.stringify(swapped));
  assert.equal(swapped.nameKeyEqual, 1);
  const typo = personFeatures(
    analyzeQuery(
      query({
        type: 'Person',
        names: ['Wiliam Lee'],
        emails: ['w.lee@acme.co'],
        location: 'leeds',
        title: 'chemist',
      }),
    ),
    profile,
    vocabulary,
  );
  assert.ok(typo.nameCoverQuery > 0.8);
  assert.equal(typo.emailExact, 0);
  assert.ok(typo.emailEditsNear > 0 && typo.emailSimilarity > 0.9);
  assert.equal(typo.emailConflict, 0);
  assert.equal(typo.locationCover, 1);
  assert.equal(typo.titleSimilarity, 1);
  const other = personFeatures(
    analyzeQuery(
      query({ type: 'Person', names: ['John Smith'], emails: ['jsmith@other.org'], location: 'Bristol' }),
    ),
    profile,
    vocabulary,
  );
  assert.equal(other.givenNameConflict, 1);
  assert.equal(other.surnameConflict, 1);
  assert.equal(other.emailConflict, 1);
  assert.equal(other.emailDomainConflict, 1);
  // Bristol is a place the hierarchy knows, elsewhere than the person's city.
  assert.equal(other.placeConflict, 1);
  const nowhere = personFeatures(
    analyzeQuery(query({ type: 'Person', names: ['John Smith'], location: 'Xyzzyville' })),
    profile,
    vocabulary,
  );
  // Words that name no known place and none of the person's.
  assert.equal(nowhere.locationConflict, 1);
  assert.equal(nowhere.placeConflict, 0);
});

test('a nickname of a second formal name is that name: Fred Brackpool is Alfred Brackpool', () => {
  const alfred = namedFeatures('Fred Brackpool', 'Alfred Brackpool');
  assert.equal(alfred.givenNameConflict, 0);
  assert.equal(alfred.firstNameSimilarity, 0.95);
  assert.equal(namedFeatures('Fred Brackpool', 'Frederick Brackpool').firstNameSimilarity, 0.95);
  // Two nicknames of one formal name are not each other's: Alfie is not Fred.
  assert.equal(namedFeatures('Fred Brackpool', 'Alfie Brackpool').givenNameConflict, 1);
  assert.equal(namedFeatures('Fred Brackpool', 'Albert Brackpool').givenNameConflict, 1);
});

test('e-mail evidence never drops as addresses get closer: the exact address beats a namesake one edit away', () => {
  const profileOf = (id: string, address: string) =>
    indexEntity({
      id,
      type: 'Person',
      name: 'Alice Amber',
      emailAddresses: [{ contactString: address }],
    }).profile as PersonProfile;
  const analyzed = analyzeQuery(query({ type: 'Person', emails: ['alice.amber0@example.com'] }));
  const exact = personFeatures(analyzed, profileOf('PER-0', 'alice.amber0@example.com'), vocabulary);
  const near = personFeatures(analyzed, profileOf('PER-20', 'alice.amber20@example.com'), vocabulary);
  assert.equal(exact.emailExact, 1);
  assert.equal(near.emailExact, 0);
  for (const feature of ['emailEditsNear', 'emailSimilarity', 'emailLocalSimilarity'] as const) {
    assert.ok(exact[feature] > near[feature], `${feature}: exact ${exact[feature]} vs near ${near[feature]}`);
  }
});

test('typos in an address domain, or a moved @, are a typo of the address, not another domain', () => {
  const profileOf = (address: string) =>
    indexEntity({
      id: 'PER-30',
      type: 'Person',
      name: 'Jude Ellis',
      emailAddresses: [{ contactString: address }],
    }).profile as PersonProfile;
  const featuresOf = (address: string, queried: string) =>
    personFeatures(
      analyzeQuery(query({ type: 'Person', emails: [queried] })),
      profileOf(address),
      vocabulary,
    );
  const moved = featuresOf('jude.ellis73@martin.info', 'jude.elli@73smartin.info');
  assert.ok(moved.emailEditsNear > 0, JSON.stringify(moved));
  assert.equal(moved.emailDomainConflict, 0);
  const domainTypos = featuresOf('bh@avila.com', 'bh@avma.coi');
  assert.equal(domainTypos.emailDomainConflict, 0);
  // A short address a few edits away with another local part is another person's.
  const other = featuresOf('bh@avila.com', 'jk@avma.coi');
  assert.equal(other.emailDomainConflict, 1);
  // The same local part at another company is still another domain.
  const elsewhere = featuresOf('jude.ellis73@martin.info', 'jude.ellis73@harrison-cole.com');
  assert.equal(elsewhere.emailDomainConflict, 1);
});

test('employer and phone evidence: match, conflict, or nothing known', () => {
  const profile = indexEntity({
    id: 'PER-9',
    type: 'Person',
    name: 'Rafael Nguyen',
    employments: [{ employer: { name: 'Thachemofe Partners Pty Ltd' }, isCurrent: true }],
    phoneNumbers: [{ string: '+61 412 340 827', digits: '+61412340827' }],
  }).profile as PersonProfile;
  const bare = indexEntity({ id: 'PER-10', type: 'Person', name: 'Rafael Nguyen' }).profile as PersonProfile;
  const features = (q: Partial<MatchQuery>, p: PersonProfile) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: ['Rafael Nguyen'], ...q })), p, vocabulary);
  const same = features(
    { employer: 'Thachemofe Partners', phones: ['0412 340 827'], location: 'Australia' },
    profile,
  );
  assert.equal(same.hasEmployer, 1);
  assert.equal(same.employerSimilarity, 1);
  assert.equal(same.employerConflict, 0);
  assert.equal(same.phoneMatch, 1, 'a national number read with the location as region hint');
  const other = features({ employer: 'Globex Corporation', phones: ['+61 499 999 999'] }, profile);
  assert.equal(other.employerConflict, 1);
  assert.equal(other.phoneMatch, 0);
  assert.equal(other.phoneConflict, 1);
  const unknown = features({ employer: 'Globex Corporation', phones: ['+61 499 999 999'] }, bare);
  assert.equal(unknown.employerMissing, 1);
  assert.equal(unknown.employerConflict, 0);
  assert.equal(unknown.phoneConflict, 0);
});

test('feature vectors hold every model feature in model order, a fresh vector per candidate', () => {
  const person = indexEntity({
    id: 'PER-1',
    type: 'Person',
    name: 'John Smith',
    emailAddresses: [{ contactString: 'john@smith.example' }],
  }).profile as PersonProfile;
  const personQuery = analyzeQuery(query({ type: 'Person', names: ['John Smith'] }));
  const a = personFeatures(personQuery, person, vocabulary);
  // Explanations list features in this order, and the model reads them by these names.
  assert.deepEqual(Object.keys(a), modelFeatureNames(PERSON_FEATURES));
  assert.equal(a.hasName, 1);
  assert.equal(a['nameBoth>0.95'], 1);
  const b = personFeatures(
    analyzeQuery(query({ type: 'Person', emails: ['jo@other.example'] })),
    person,
    vocabulary,
  );
  assert.notEqual(a, b);
  assert.equal(b.hasName, 0);
  assert.equal(b.emailConflict, 1);
  assert.equal(a.emailConflict, 0);
  const org = organizationFeatures(
    analyzeQuery(query({ type: 'Organization', names: ['Pecs'] })),
    pecsProfile,
    vocabulary,
  );
  assert.deepEqual(Object.keys(org), modelFeatureNames(ORGANIZATION_FEATURES));
});

test('a misspelt name word is evidence of the name it stands for, not of a rare word', () => {
  const smith = indexEntity({ id: 'PER-41', type: 'Person', name: 'John Smith' }).profile as PersonProfile;
  const evidence = (queried: string) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: [queried] })), smith, vocabulary).nameEvidence;
  // "Smiht" is in no entity's name (the largest IDF) but names a Smith: as much evidence as
  // "Smith" at a typo's similarity, less than the word as written would claim.
  assert.ok(
    Math.abs(
      evidence('John Smiht') - (vocabulary.idf('john') + 0.85 * vocabulary.idf('smith')) / vocabulary.maxIdf,
    ) < 1e-9,
  );
  assert.ok(evidence('John Smiht') < evidence('John Smith'));
  // An initial says its letter, whatever name it starts.
  const middle = indexEntity({ id: 'PER-42', type: 'Person', name: 'John Lee Smith' })
    .profile as PersonProfile;
  const initial = personFeatures(
    analyzeQuery(query({ type: 'Person', names: ['John L. Smith'] })),
    middle,
    vocabulary,
  );
  assert.ok(
    initial.nameEvidence >
      (vocabulary.idf('john') + vocabulary.idf('smith') + 0.8 * vocabulary.idf('lee')) / vocabulary.maxIdf,
  );
});

test('a personal address at a company the graph does not connect with a person without addresses', () => {
  const person = (extra: Partial<Entity>) =>
    indexEntity({ id: 'PER-43', type: 'Person', name: 'James Hill', ...extra }).profile as PersonProfile;
  const unknown = (emails: string[], profile: PersonProfile) =>
    personFeatures(
      analyzeQuery(query({ type: 'Person', names: ['James Hill'], emails })),
      profile,
      vocabulary,
    ).emailUnknownCompany;
  assert.equal(unknown(['j.hill85@freeman-underwood.net'], person({})), 1);
  // Free-mail and role addresses name no workplace; a known address is compared instead.
  assert.equal(unknown(['james.hill@gmail.com'], person({})), 0);
  assert.equal(unknown(['info@freeman-underwood.net'], person({})), 0);
  assert.equal(
    unknown(
      ['j.hill85@freeman-underwood.net'],
      person({ emailAddresses: [{ contactString: 'jh@other.org' }] }),
    ),
    0,
  );
});

test("a surname written with an apostrophe or hyphen compares as a query's words read it", () => {
  const featuresOf = (queried: string, name: string, lastName: string) =>
    personFeatures(
      analyzeQuery(query({ type: 'Person', names: [queried] })),
      indexEntity({
        id: 'PER-44',
        type: 'Person',
        name,
        nameDetail: { firstName: name.split(' ')[0], lastName },
      }).profile as PersonProfile,
      vocabulary,
    );
  assert.equal(featuresOf("Kenji O'Brien", "Kenji O'Brien", "O'Brien").lastNameSimilarity, 1);
  // A typo of it is a typo, not another surname.
  const typo = featuresOf("Kenji O'Brein", "Kenji O'Brien", "O'Brien");
  assert.equal(typo.lastNameSimilarity, 0.85);
  assert.equal(typo.surnameConflict, 0);
  assert.equal(
    featuresOf('Johnnie Massy-Beresford', 'Johnnie Massy-Beresford', 'Massy-Beresford').lastNameSimilarity,
    1,
  );
  assert.equal(featuresOf('Johnnie Smith', 'Johnnie Massy-Beresford', 'Massy-Beresford').surnameConflict, 1);
});

test('a place misspelt on both sides, its letters shuffled, is the same place, not a conflict', () => {
  const profileIn = (city: string) =>
    indexEntity({ id: 'PER-41', type: 'Person', name: 'Evelyn Shah', location: { city: { name: city } } })
      .profile as PersonProfile;
  const featuresAt = (location: string, city: string) =>
    personFeatures(
      analyzeQuery(query({ type: 'Person', names: ['Evelyn Shah'], location })),
      profileIn(city),
      vocabulary,
    );
  // The persons set's own pairs: 3+ edits apart, the same letters.
  const shuffled = featuresAt('Wolverhomptan', 'Wolvertamphon');
  assert.equal(shuffled.locationCover, 0.5);
  assert.equal(shuffled.locationConflict, 0);
  assert.equal(featuresAt('Glassgow', 'olasgGw').locationConflict, 0);
  // Other letters: still a place that names none of the person's.
  assert.equal(featuresAt('Einburgh', 'Wolvertamphon').locationConflict, 1);
  assert.equal(featuresAt('Xyzzyville', 'Wolvertamphon').locationCover, 0);
});

test('the hinges and interactions of a compared vector are those expandFeatures gives its base features', () => {
  const person: Entity = {
    id: 'PER-2',
    type: 'Person',
    name: 'Julia Ann Tanaka',
    nameDetail: { firstName: 'Julia', lastName: 'Tanaka' },
    emailAddresses: [{ contactString: 'julia.tanaka@acme.com' }],
    location: { city: { name: 'Leeds' } },
    employments: [{ isCurrent: true, title: 'chemist' }],
  };
  const profile = indexEntity(person).profile as PersonProfile;
  const queries = [
    query({ type: 'Person', names: ['Julia Tanaka'], emails: ['julia.tanaka@acme.co'], location: 'Leeds' }),
    query({ type: 'Person', names: ['Julia Ann Tanaka'], title: 'chemist', location: 'Sydney' }),
    query({ type: 'Person', names: ['Tanaka Julie'], emails: ['jt@gmail.com'] }),
  ];
  for (const q of queries) {
    const f = personFeatures(analyzeQuery(q), profile, vocabulary);
    const base = Object.fromEntries(PERSON_FEATURES.map((name) => [name, f[name]]));
    assert.deepEqual({ ...f }, expandFeatures(base), JSON.stringify(q));
    assert.ok(f['nameBoth>0.8'] > 0 || f.nameBoth <= 0.8);
  }
  const o = organizationFeatures(
    analyzeQuery(
      query({
        type: 'Organization',
        names: ['Univ. of Pecs'],
        urls: ['https://pte.hu'],
        location: 'Austria',
      }),
    ),
    pecsProfile,
    vocabulary,
  );
  const base = Object.fromEntries(ORGANIZATION_FEATURES.map((name) => [name, o[name]]));
  assert.deepEqual({ ...o }, expandFeatures(base));
  assert.equal(o['strongName*countryConflict'], o.countryConflict);
});

test('a name word misspelt with its letters shuffled is that name, not another one', () => {
  // The persons set's own pairs: beyond the 2 edits of `tokenSimilarity`, the same letters.
  const moore = namedFeatures('Aria Meoor', 'Aria Moore');
  assert.equal(moore.lastNameSimilarity, 0.6);
  assert.equal(moore.surnameConflict, 0);
  // Both words are unknown to the vocabulary, so weigh alike: (1 + 0.6) / 2.
  assert.ok(Math.abs(moore.nameCoverQuery - 0.8) < 1e-9, String(moore.nameCoverQuery));
  assert.equal(namedFeatures('Tooyb Bryant', 'Toby Bryant').givenNameConflict, 0);
  assert.equal(namedFeatures('Evenyl Patel', 'Evelyn Patel').firstNameSimilarity, 0.6);
  // Four letters: one more or less, never one replaced and moved (Ryan is not Mary).
  assert.equal(namedFeatures('Theo Keyl', 'Theo Kelly').lastNameSimilarity, 0.6);
  assert.equal(namedFeatures('Ryan Smith', 'Mary Smith').givenNameConflict, 1);
  // Other letters: still another name.
  assert.equal(namedFeatures('Aria Meyer', 'Aria Moore').surnameConflict, 1);
});

test('a title held before counts less than the same title held now, and still not as another title', () => {
  const namesake = (id: string, employments: Entity['employments']) =>
    indexEntity({ id, type: 'Person', name: 'Noah Schmidt', employments }).profile as PersonProfile;
  const now = namesake('PER-1', [
    { isCurrent: true, title: 'Research Scientist' },
    { isCurrent: false, title: 'Software Engineer' },
  ]);
  const before = namesake('PER-2', [
    { isCurrent: true, title: 'Operations Manager' },
    { isCurrent: false, title: 'Research Scientist' },
  ]);
  assert.deepEqual([now.t, now.tp], [['research scientist'], ['software engineer']]);
  const asked = analyzeQuery(query({ type: 'Person', names: ['Noah Schmidt'], title: 'Research Scientist' }));
  const current = personFeatures(asked, now, vocabulary);
  const past = personFeatures(asked, before, vocabulary);
  assert.equal(current.titleSimilarity, 1);
  assert.equal(past.titleSimilarity, 0.5);
  assert.equal(past.titleConflict, 0);
  // A profile stored before past titles were kept apart has every title in `t`: as it was.
  const stored: PersonProfile = { ...before, t: ['operations manager', 'research scientist'], tp: undefined };
  assert.equal(personFeatures(asked, stored, vocabulary).titleSimilarity, 1);
});

test('a region code with another reading ("IL": Illinois or Israel) names the person\'s own region', () => {
  const profile = indexEntity({
    id: 'PER-1',
    type: 'Person',
    name: 'Ines Hugo Okafor',
    location: { city: { name: 'Chicago' }, region: { name: 'Illinois' }, country: { name: 'United States' } },
  }).profile as PersonProfile;
  const featuresAt = (location: string) =>
    personFeatures(
      analyzeQuery(query({ type: 'Person', names: ['Ines Hugo Okafor'], location })),
      profile,
      vocabulary,
    );
  const code = featuresAt('IL');
  assert.equal(code.regionMatch, 1);
  assert.equal(code.locationCover, 1);
  assert.equal(featuresAt('Illinois').locationCover, 1);
  // Another state's code is no cover.
  assert.equal(featuresAt('CA').locationCover, 0);
});

test('a name of 3+ words with one word misspelt by one edit is that name wherever the typo falls', () => {
  const profile = indexEntity({ id: 'PER-1', type: 'Person', name: 'Ivan Paul Haddad' })
    .profile as PersonProfile;
  const oneEdit = (queried: string) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: [queried] })), profile, vocabulary)
      .nameOneEdit;
  assert.equal(oneEdit('Ivan Paul Hafdad'), 1); // replaced
  assert.equal(oneEdit('Ivan Paul Hadad'), 1); // left out
  assert.equal(oneEdit('Ivan Paul Hadadd'), 1); // two swapped
  assert.equal(oneEdit('Ivan Paul Haddad'), 0); // the same name
  assert.equal(oneEdit('Ivan Paul Hafdaf'), 0); // two edits
  assert.equal(oneEdit('Ivan Pail Hafdad'), 0); // two words misspelt
  assert.equal(oneEdit('Ivan Haddad'), 0); // a word fewer is not a typo
  // Two words: one of two agreeing says too little (Jon Smith is often not John Smith).
  const two = indexEntity({ id: 'PER-2', type: 'Person', name: 'Paul Haddad' }).profile as PersonProfile;
  assert.equal(
    personFeatures(analyzeQuery(query({ type: 'Person', names: ['Paul Hafdad'] })), two, vocabulary)
      .nameOneEdit,
    0,
  );
});

test("a candidate's name word stands for one query word: Hugo Omar Hoffmann's Omar is the query's Omar or its O., not both", () => {
  const compared = (name: string) => namedFeatures('Omar O. Hoffmann', name);
  const namesake = compared('Hugo Omar Hoffmann');
  const right = compared('Omar Oscar Hoffmann');
  // Omar and Hoffmann (unknown words: the largest IDF each); the initial finds no word left.
  assert.equal(namesake.nameEvidence, 2);
  assert.equal(right.nameEvidence, 2.8);
  // Both ways round: what the candidate's words find in the query's.
  assert.ok(namesake.nameCoverCandidate < right.nameCoverCandidate);
});

test('a given name equal to the queried one only in formal form (Ivan, João) compares less than the same name', () => {
  const same = namedFeatures('Ivan Julia Lopz', 'Ivan Julia Lopez');
  const equivalent = namedFeatures('Ivan Julia Lopz', 'João Julia Lopez');
  assert.ok(same.nameCoverQuery > equivalent.nameCoverQuery);
  assert.ok(same.nameCoverCandidate > equivalent.nameCoverCandidate);
  assert.ok(same.nameJaroWinkler > equivalent.nameJaroWinkler);
  // Still nearly that name: the formal forms' spelling at 0.95 of theirs.
  assert.ok(equivalent.nameJaroWinkler >= 0.95 * same.nameJaroWinkler);
  assert.ok(equivalent.nameCoverQuery > 0.9);
  // Written alike but for accents is written alike.
  const unaccented = namedFeatures('Joao Julia Lopez', 'João Julia Lopez');
  assert.equal(unaccented.nameCoverQuery, 1);
  assert.equal(unaccented.nameJaroWinkler, 1);
});

test('a given-name variant (given-name-variants.tsv) compares as a nickname with its formal name', () => {
  const luke = namedFeatures('Luke Anna Berg', 'Lucas Anna Berg');
  assert.equal(luke.givenNameConflict, 0);
  assert.equal(luke.nameKeyEqual, 1);
  assert.equal(luke.firstNameSimilarity, 0.95);
  assert.ok(luke.nameJaroWinkler >= 0.95 * 0.999);
  assert.ok(luke.nameCoverQuery > 0.9);
  assert.equal(namedFeatures('Luke Anna Berg', 'Łukasz Anna Berg').nameKeyEqual, 1);
  assert.equal(namedFeatures('Sophia Amir Ivanova', 'Sofia Amir Ivanova').nameKeyEqual, 1);
  assert.equal(namedFeatures('Sophie Amir Ivanova', 'Sofia Amir Ivanova').firstNameSimilarity, 0.95);
  // Another name is no variant of it.
  const other = namedFeatures('Luke Anna Berg', 'Paul Anna Berg');
  assert.equal(other.givenNameConflict, 1);
  assert.equal(other.nameKeyEqual, 0);
});

test("one query's candidates that share names or places are compared as each would be alone", () => {
  // A crowd of namesakes: features shared per query (names, given name and surname, places)
  // must not carry one candidate's other fields over to the next.
  const person = (id: string, name: string, city: string, extra: Partial<Entity> = {}) =>
    indexEntity({ id, type: 'Person', name, location: { city: { name: city } }, ...extra })
      .profile as PersonProfile;
  const lee = person('PER-1', 'John Lee', 'Leeds');
  const profiles: PersonProfile[] = [
    lee,
    person('PER-2', 'John Lee', 'Bristol'),
    // The same names, another given name and surname as the graph splits them.
    { ...lee, f: 'lee', l: 'john' },
    { ...lee, f: undefined, l: undefined },
    // The same places, other names; then other streets.
    person('PER-3', 'John Smith', 'Leeds'),
    { ...lee, ci: undefined, ad: ['12', 'leeds', 'road'] },
    { ...lee, ci: undefined, r: ['england'] },
    person('PER-4', 'Lee John', 'Leeds'),
  ];
  const asked = query({ type: 'Person', names: ['Jon Lee'], location: 'Leeds', title: 'chemist' });
  const shared = analyzeQuery(asked);
  const seen = new Set<string>();
  for (const profile of profiles) {
    const together = personFeatures(shared, profile, vocabulary, vocabulary);
    const alone = personFeatures(analyzeQuery(asked), profile, vocabulary, vocabulary);
    assert.deepEqual(together, alone);
    seen.add(JSON.stringify(alone));
  }
  // The candidates differ in what is compared: a memo keyed too coarsely would give some the same.
  assert.equal(seen.size, profiles.length);
  // Another vocabulary for the same query object compares afresh.
  const other = new Vocabulary(new Map([['john', 1]]), 10);
  assert.deepEqual(
    personFeatures(shared, lee, other, vocabulary),
    personFeatures(analyzeQuery(asked), lee, other, vocabulary),
  );
  assert.notDeepEqual(
    personFeatures(shared, lee, other, vocabulary),
    personFeatures(shared, lee, vocabulary, vocabulary),
  );
});

test('a second surname the record lacks compares by the reading without it', () => {
  // "Ada Amir Rossi Santos" is also read as Ada Amir Rossi (query analysis): that reading's
  // given name and surname are compared, not Santos against Rossi; of readings that cover the
  // record alike, the one leaving out no middle name ("Ada Amir Santos Rossi" covers Ada Amir
  // Rossi with Santos left out as an unmatched middle name).
  const rossi = indexEntity({
    id: 'PER-41',
    type: 'Person',
    name: 'Ada Amir Rossi',
    nameDetail: { firstName: 'Ada', middleName: ['Amir'], lastName: 'Rossi' },
  }).profile as PersonProfile;
  const features = (name: string) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: [name] })), rossi, vocabulary);
  for (const name of [
    'Ada Amir Rossi Santos',
    'Ada Amir Rossi-Santos',
    'Ada Amir Santos Rossi',
    'Rossi Santos, Ada Amir',
  ]) {
    const f = features(name);
    assert.equal(f.lastNameSimilarity, 1, name);
    assert.equal(f.surnameConflict, 0, name);
    assert.equal(f.nameKeyEqual, 1, name);
  }
  // The same record, another person's second reading: a different surname still conflicts.
  assert.equal(features('Ada Amir Berg Santos').surnameConflict, 1);
});

test("a record's second surname is left out when the query names the person by the first", () => {
  const profileOf = (name: string, lastName: string) =>
    indexEntity({ id: 'PER-43', type: 'Person', name, nameDetail: { firstName: 'Ada', lastName } })
      .profile as PersonProfile;
  const features = (name: string, profile: PersonProfile) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: [name] })), profile, vocabulary);
  for (const [name, lastName] of [
    ['Ada Amir Rossi Santos', 'Rossi Santos'],
    ['Ada Rossi-Santos', 'Rossi-Santos'],
    ['Ada Amir Rossi y Santos', 'Rossi y Santos'],
  ]) {
    const profile = profileOf(name, lastName);
    for (const asked of ['Ada Rossi', 'Rossi, Ada', name.includes('Amir') ? 'Ada Amir Rossi' : 'Ada Rossi']) {
      const f = features(asked, profile);
      assert.equal(f.nameCoverCandidate, 1, `${asked} / ${name}`);
      assert.equal(f.nameKeyEqual, 1, `${asked} / ${name}`);
      assert.equal(f.lastNameSimilarity, 1, `${asked} / ${name}`);
      assert.equal(f.surnameConflict, 0, `${asked} / ${name}`);
      assert.equal(f.nameJaroWinkler, 1, `${asked} / ${name}`);
    }
    // Another surname, or the second surname's place taken by another word, still differs.
    assert.equal(features('Ada Berg', profile).surnameConflict, 1, name);
    assert.ok(features('Ada Berg', profile).nameCoverCandidate < 0.7, name);
  }
  // One surname of two words only when the record says so: a middle name is not a surname.
  const middle = indexEntity({
    id: 'PER-44',
    type: 'Person',
    name: 'Ada Rossi Santos',
    nameDetail: { firstName: 'Ada', middleName: ['Rossi'], lastName: 'Santos' },
  }).profile as PersonProfile;
  assert.ok(features('Ada Rossi', middle).nameCoverCandidate < 0.7);
  assert.equal(features('Ada Rossi', middle).surnameConflict, 1);
});

test('an initial that agrees with the given name, with the surname, and in the place', () => {
  const hoffmann = indexEntity({
    id: 'PER-41',
    type: 'Person',
    name: 'Ada Maria Hoffmann',
    nameDetail: { firstName: 'Ada', lastName: 'Hoffmann' },
    location: { city: { name: 'Bremen' } },
  }).profile as PersonProfile;
  const features = (name: string, location?: string) =>
    personFeatures(analyzeQuery(query({ type: 'Person', names: [name], location })), hoffmann, vocabulary);
  const initial = features('A. Hoffmann', 'Bremen');
  assert.equal(initial.givenInitialMatch, 1);
  assert.equal(initial.givenInitialPlace, 1);
  assert.equal(features('A. Hoffmann').givenInitialMatch, 1);
  assert.equal(features('A. Hoffmann').givenInitialPlace, 0, 'no place asked');
  assert.equal(features('A. Hoffmann', 'Leipzig').givenInitialPlace, 0, 'elsewhere');
  assert.equal(features('B. Hoffmann', 'Bremen').givenInitialMatch, 0, 'another initial');
  assert.equal(features('A. Hoffer', 'Bremen').givenInitialMatch, 0, 'another surname');
  assert.equal(features('Ada Hoffmann', 'Bremen').givenInitialMatch, 0, 'a written given name is no initial');
});

test("another employer weighs as unknown to the graph only when the query's employer is", () => {
  const profile = indexEntity({
    id: 'PER-42',
    type: 'Person',
    name: 'Rafael Nguyen',
    employments: [{ employer: { name: 'Thachemofe Partners Pty Ltd' }, isCurrent: true }],
  }).profile as PersonProfile;
  const analyzed = analyzeQuery(
    query({ type: 'Person', names: ['Rafael Nguyen'], employer: 'Runelo Studio' }),
  );
  const known = personFeatures(analyzed, profile, vocabulary);
  assert.equal(known.employerConflict, 1);
  assert.equal(known.employerUnknownConflict, 0);
  const moved = personFeatures({ ...analyzed, employerUnknown: true }, profile, vocabulary);
  assert.equal(moved.employerUnknownConflict, 1);
  assert.equal(moved.employerConflict, 0, 'weighed on its own, not as a known employer');
  assert.equal(moved.hasEmployer, 0);
  const same = personFeatures(
    {
      ...analyzeQuery(query({ type: 'Person', names: ['Rafael Nguyen'], employer: 'Thachemofe Partners' })),
      employerUnknown: true,
    },
    profile,
    vocabulary,
  );
  assert.equal(same.employerUnknownConflict, 0, 'no conflict, nothing to weigh');
  assert.equal(same.employerSimilarity, 1, 'a name the graph has for the person counts, known or not');
});

test('splitWords gives the words of each phrase as split does, in order, in one new array', () => {
  const flat = (a?: readonly string[], b?: readonly string[]) =>
    [...(a ?? []), ...(b ?? [])].flatMap((p) => p.split(' '));
  const cases: [string[] | undefined, string[] | undefined][] = [
    [undefined, undefined],
    [[], undefined],
    [['senior software engineer'], undefined],
    [['acme robotics', 'globex'], ['new south wales']],
    [undefined, ['berlin']],
    [['', ' a', 'b ', 'c  d', ' '], ['']],
  ];
  for (const [a, b] of cases) assert.deepEqual(splitWords(a, b), flat(a, b), JSON.stringify([a, b]));
  const phrases = ['ada lovelace'];
  const words = splitWords(phrases);
  words.push('x');
  assert.deepEqual(splitWords(phrases), ['ada', 'lovelace'], 'a new array each call');
});

test('personTokenSimilarity is symmetric: the name comparison reads each pair once for both directions', () => {
  const words = [
    'ada',
    'a',
    'adah',
    'dada',
    'luke',
    'lucas',
    'sophia',
    'sofia',
    'bob',
    'robert',
    'rob',
    'b',
    'r',
    'hoffmann',
    'hofmann',
    'hoffman',
    'hofmnan',
    'ivan',
    'joao',
    'john',
    'j',
    'mary',
    'ryan',
    'meoor',
    'moore',
    'evenyl',
    'evelyn',
    'theo',
    'theodore',
    'li',
    'lee',
    'al',
    'alfred',
    'fred',
    'x',
  ];
  const random = new Random(9);
  const name = () => Array.from({ length: 1 + random.int(4) }, () => words[random.int(words.length)]);
  for (let n = 0; n < 3_000; n++) {
    const a = personWords(name());
    const b = personWords(name());
    for (let i = 0; i < a.tokens.length; i++)
      for (let j = 0; j < b.tokens.length; j++)
        assert.equal(
          personTokenSimilarity(a, i, b, j),
          personTokenSimilarity(b, j, a, i),
          `${a.written.join(' ')} [${i}] | ${b.written.join(' ')} [${j}]`,
        );
  }
});

test('spells tells whether parts written together are a text, as concatenating them does', () => {
  const parts = ['', 'a', 'ab', 'b', 'ba', 'abc'];
  const texts = ['', 'a', 'ab', 'aab', 'abab', 'abc', 'ba', 'bab', 'abcab'];
  for (const text of texts)
    for (const a of parts)
      for (const b of parts)
        for (const c of parts)
          assert.equal(spells(text, a, b, c), a + b + c === text, `${text}: ${a}|${b}|${c}`);
  assert.equal(spells('adahoffmann', 'ada', 'hoffmann'), true);
  assert.equal(spells('ahoffmann', 'a', 'hoffmann'), true);
  assert.equal(spells('hoffmanna', 'hoffmann', 'a'), true);
  assert.equal(spells('hoffmann', 'hoff', 'man'), false);
});
