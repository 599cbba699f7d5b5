/**
 * The query shapes a new user sends (issue 22), through the HTTP API on the demo graph `npm
 * start` loads: dotted legal forms, a country or region as a person's location, namesakes,
 * personal free-mail addresses, conflicting fields beside strong evidence, ip, phone numbers
 * without `+`, middle initials, a part of a name, and fields the matcher does not use.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadDemoGraph } from '../src/import/index.ts';
import { DEFAULT_DEMO_SIZES, demoExamples, type Entity } from '../src/kg/index.ts';
import { demoEntities } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

interface Answer {
  hits: number;
  data: { score: number; entity: Entity }[];
  errors: string[];
  searchInfo: Record<string, { mlScore: number; debugInfo: { contributions: Record<string, number> } }>;
}

// The demo graph's entities as their first source states them, and what is unique among them.
const organizations: Entity[] = [];
const persons: Entity[] = [];
for (const record of demoEntities(DEFAULT_DEMO_SIZES)) {
  (record.type === 'Person' ? persons : organizations).push(record);
}
const count = <T>(items: readonly T[], key: (item: T) => string) => {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
};
const orgNames = count(organizations, (o) => o.name ?? '');
const fullNames = count(persons, (p) => p.name ?? '');
const firstLast = (p: Entity) => `${p.nameDetail?.firstName} ${p.nameDetail?.lastName}`;
const shortNames = count(persons, firstLast);
const uniqueOrg = organizations.find(
  (o) => orgNames.get(o.name ?? '') === 1 && /\sGmbH$/.test(o.name ?? ''),
)!;
const withMiddle = persons.filter((p) => p.nameDetail?.middleName && fullNames.get(p.name ?? '') === 1);
const byId = new Map(organizations.map((o) => [o.id, o]));
const employerOf = (p: Entity) => byId.get(p.employments?.find((e) => e.isCurrent)?.employer?.id ?? '');

describe('realistic queries on the demo graph', () => {
  let t: TestRuntime;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    loadDemoGraph(t.runtime.storage.entities, DEFAULT_DEMO_SIZES);
    token = await t.token(null);
  });
  after(async () => t.close());

  const enhance = async (params: Record<string, string>, path = '/kg/v3/enhance'): Promise<Answer> => {
    const query = new URLSearchParams({ ...params, token });
    const res = await t.runtime.app.inject({ method: 'GET', url: `${path}?${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Answer;
  };
  const top = (answer: Answer) => (answer.hits > 0 ? answer.data[0].entity.id : undefined);

  test('legal forms dotted or spelled out find the organization', async () => {
    const stem = uniqueOrg.name!.replace(/ GmbH$/, '');
    for (const form of ['G.m.b.H.', 'Gesellschaft mit beschränkter Haftung', 'GMBH']) {
      assert.equal(top(await enhance({ type: 'Organization', name: `${stem} ${form}` })), uniqueOrg.id, form);
    }
  });

  test("a person's country or region is agreement with their city, not conflict", async () => {
    const p = withMiddle[0];
    // Where the graph has the person (a second source may have moved them).
    const stored = t.runtime.storage.entities.getById(p.id)!.doc;
    for (const location of [stored.location!.country!.name!, stored.location!.region!.name!]) {
      const answer = await enhance({ type: 'Person', name: p.name!, location });
      assert.equal(top(answer), p.id, location);
      const explained = answer.searchInfo[p.id].debugInfo.contributions;
      assert.ok(
        !('placeConflict' in explained) && !('countryConflict' in explained),
        JSON.stringify(explained),
      );
    }
  });

  test('namesakes split their probability: the scores sum to at most 1, none is called likely', async () => {
    const [name] = [...shortNames].find(([, n]) => n >= 3) ?? [];
    assert.ok(name);
    const answer = await enhance({ type: 'Person', name, threshold: '0', size: '5' });
    const total = answer.data.reduce((sum, d) => sum + d.score, 0);
    assert.ok(
      answer.hits >= 3 && total <= 1.0000001 && answer.data[0].score <= 0.75,
      JSON.stringify(answer.data.map((d) => d.score)),
    );
    const twins = [...orgNames].find(([, n]) => n === 2)?.[0];
    if (twins) {
      const pair = await enhance({ type: 'Organization', name: twins, threshold: '0', size: '5' });
      assert.ok(pair.data[0].score <= 0.5 + 1e-9, JSON.stringify(pair.data.map((d) => d.score)));
    }
  });

  test('a personal free-mail address the graph does not know is no conflict; +tags are ignored', async () => {
    const p = withMiddle[1];
    const first = p
      .nameDetail!.firstName!.normalize('NFKD')
      .replace(/[^a-zA-Z]/g, '')
      .toLowerCase();
    const last = p
      .nameDetail!.lastName!.normalize('NFKD')
      .replace(/[^a-zA-Z]/g, '')
      .toLowerCase();
    for (const email of [`${first}.${last}@gmail.com`, `${first[0]}${last}+crm@yahoo.com`]) {
      assert.equal(top(await enhance({ type: 'Person', name: p.name!, email })), p.id, email);
    }
    const known = p.emailAddresses![0].contactString;
    const tagged = known.replace('@', '+newsletter@');
    assert.equal(top(await enhance({ type: 'Person', email: tagged })), p.id);
  });

  test('one conflicting field does not beat the url of the organization’s own site', async () => {
    const other = organizations.find((o) => o.id !== uniqueOrg.id && orgNames.get(o.name ?? '') === 1)!;
    const answer = await enhance({
      type: 'Organization',
      url: `https://www.${uniqueOrg.homepageUri}/`,
      name: other.name!,
    });
    assert.equal(top(answer), uniqueOrg.id);
  });

  test('ip: the owner of the range, and for a person the one whose employer owns it', async () => {
    const owner = organizations.find((o) => o.ipRanges?.[0]?.endsWith('.0/24'))!;
    const ip = owner.ipRanges![0].replace('.0/24', '.77');
    const answer = await enhance({ type: 'Organization', ip });
    assert.equal(top(answer), owner.id);
    assert.ok(answer.searchInfo[owner.id].debugInfo.contributions.ipMatch > 0);
    // A common name, told apart by the employer's range.
    const p = persons.find((x) => {
      const employer = employerOf(x);
      const rivals = persons.filter((y) => firstLast(y) === firstLast(x));
      return (
        rivals.length > 1 &&
        employer?.ipRanges &&
        rivals.filter((y) => employerOf(y) === employer).length === 1
      );
    })!;
    const range = employerOf(p)!.ipRanges![0];
    const personIp = range.endsWith('.0/24') ? range.replace('.0/24', '.9') : range.replace('::/56', '::9');
    assert.equal(top(await enhance({ type: 'Person', name: firstLast(p), ip: personIp })), p.id);
  });

  test('a phone number without + and without a location is read in the countries it fits, and said so', async () => {
    const o = organizations.find((x) => x.phoneNumbers?.[0]?.digits?.startsWith('+49'))!;
    const answer = await enhance({ type: 'Organization', phone: o.phoneNumbers![0].digits!.slice(1) });
    assert.equal(top(answer), o.id);
    assert.ok(
      answer.errors.some((e) => /no country code and no location/.test(e) && /DE/.test(e)),
      answer.errors.join(),
    );
  });

  test('a middle initial finds the person with that middle name', async () => {
    const p = withMiddle.find(
      (x) =>
        persons.filter(
          (y) =>
            firstLast(y) === firstLast(x) &&
            y.nameDetail?.middleName?.[0]?.[0] === x.nameDetail!.middleName![0][0],
        ).length === 1,
    )!;
    const name = `${p.nameDetail!.firstName} ${p.nameDetail!.middleName![0][0]}. ${p.nameDetail!.lastName}`;
    assert.equal(top(await enhance({ type: 'Person', name })), p.id, name);
  });

  test('a part of a name that only one organization has is a hit', async () => {
    const word = uniqueOrg.name!.split(' ')[0];
    assert.equal(top(await enhance({ type: 'Organization', name: word })), uniqueOrg.id);
  });

  test('fields the matcher does not use are named in errors; school and title show as evidence', async () => {
    const p = persons.find((x) => x.educations?.[0]?.institution?.name && fullNames.get(x.name ?? '') === 1)!;
    const answer = await enhance({
      type: 'Person',
      name: p.name!,
      school: p.educations![0].institution!.name!,
      title: p.employments![0].title!,
      description: 'met at a conference',
    });
    assert.equal(top(answer), p.id);
    assert.ok(
      answer.errors.some((e) => /description is not used/.test(e)),
      answer.errors.join(),
    );
    const contributions = answer.searchInfo[p.id].debugInfo.contributions;
    assert.ok(
      contributions.schoolSimilarity > 0 && contributions.titleSimilarity > 0,
      JSON.stringify(contributions),
    );
  });

  test("an organization's name copied from a web page's title finds the organization", async () => {
    for (const name of [
      `${uniqueOrg.name} | Official Website`,
      `Home - ${uniqueOrg.name}`,
      `Welcome to ${uniqueOrg.name}!`,
    ]) {
      const answer = await enhance({ type: 'Organization', name });
      assert.equal(top(answer), uniqueOrg.id, name);
      assert.ok(
        answer.errors.some((e) => /web page title words/.test(e)),
        answer.errors.join(),
      );
    }
  });

  test('an employer written as its web address tells namesakes apart as its name does', async () => {
    // Namesakes at employers whose site's label is not their name's first word (an acronym's
    // site), so that only the domain can say which organization is meant.
    const p = persons.find((x) => {
      const site = employerOf(x)?.homepageUri;
      return (
        fullNames.get(x.name ?? '') === 2 &&
        site !== undefined &&
        !employerOf(x)!
          .name!.toLowerCase()
          .startsWith(site.slice(0, site.indexOf('.')))
      );
    })!;
    const site = employerOf(p)!.homepageUri!;
    for (const employer of [site, `https://www.${site}/about`]) {
      const answer = await enhance({ type: 'Person', name: p.name!, employer });
      assert.equal(top(answer), p.id, employer);
      assert.ok(answer.searchInfo[p.id].debugInfo.contributions.employerSimilarity > 0, employer);
      assert.ok(
        answer.errors.some((e) => /is a web address/.test(e)),
        answer.errors.join(),
      );
    }
  });

  test("the start-up banner's combine example answers a hit", async () => {
    // As serve.ts prints it: the person's name and employer.
    const { person, employer } = demoExamples();
    const answer = await enhance(
      { type: 'Person', name: person.name!, employer: employer.name! },
      '/kg/v3/enhance/combine',
    );
    assert.ok(answer.hits >= 1, JSON.stringify(answer.errors));
    assert.equal(answer.data[0].entity.id, person.id);
  });
});
