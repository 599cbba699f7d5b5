/**
 * The newcomer's path: `npm start` loads the demo graph; the README's queries must find the
 * right entities at the default thresholds, and employer and phone evidence must separate
 * namesakes (the demo graph is the only data with employers and phones).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadDemoGraph } from '../src/import/index.ts';
import { DEFAULT_DEMO_SIZES, demoExamples, type Entity } from '../src/kg/index.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('enhance on the demo graph', () => {
  let t: TestRuntime;
  let token: string;
  const { organization, person, employer } = demoExamples();
  before(async () => {
    t = await startTestRuntime();
    loadDemoGraph(t.runtime.storage.entities, DEFAULT_DEMO_SIZES);
    token = await t.token(null);
  });
  after(async () => t.close());

  const enhance = async (params: Record<string, string>) => {
    const query = new URLSearchParams({ ...params, token });
    const res = await t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance?${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { hits: number; data: { score: number; entity: Entity }[] };
  };

  test('an organization by part of its name, by a URL on its site, and by phone', async () => {
    const shortName = organization.name!.split(' ').slice(0, 2).join(' ');
    const queries: Record<string, string>[] = [
      { type: 'Organization', name: shortName },
      { type: 'Organization', url: `https://www.${organization.homepageUri}/contact` },
      {
        type: 'Organization',
        phone: organization.phoneNumbers![0].string,
        location: organization.location!.country!.name!,
      },
    ];
    for (const params of queries) {
      const body = await enhance(params);
      assert.equal(body.hits, 1, JSON.stringify(params));
      assert.equal(body.data[0].entity.id, organization.id);
    }
  });

  test('a person among namesakes: the employer decides', async () => {
    const right = await enhance({ type: 'Person', name: person.name!, employer: employer.name! });
    assert.equal(right.hits, 1);
    assert.equal(right.data[0].entity.id, person.id);
    assert.ok(right.data[0].score > 0.9, `score ${right.data[0].score}`);
    const nameOnly = await enhance({ type: 'Person', name: person.name!, size: '5', threshold: '0' });
    const namesakes = nameOnly.data.filter((d) => d.entity.name === person.name);
    assert.ok(namesakes.length >= 2, 'the demo graph holds a namesake');
    assert.ok(
      nameOnly.data[0].score < right.data[0].score,
      'without the employer the answer is less certain',
    );
  });

  test('a person by e-mail alone', async () => {
    const body = await enhance({ type: 'Person', email: person.emailAddresses![0].contactString });
    assert.equal(body.data[0]?.entity.id, person.id);
  });
});
