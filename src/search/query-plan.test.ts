import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EnhanceQuery } from '../enhance/index.ts';
import { planQueries } from './query-plan.ts';

const query = (fields: Partial<EnhanceQuery>): EnhanceQuery => ({ name: [], url: [], email: [], ...fields });

describe('planQueries', () => {
  test('an organization: name with location, with its site, alone; the site; the phone', () => {
    assert.deepEqual(
      planQueries(
        query({
          type: 'Organization',
          name: ['Acme  Robotics'],
          location: 'Lyon, France',
          url: ['https://www.acme-robotics.example/about'],
          phone: '+33 4 72 00 00 01',
        }),
        10,
      ),
      [
        'Acme Robotics Lyon, France',
        'Acme Robotics acme-robotics.example',
        'Acme Robotics',
        'acme-robotics.example',
        '"+33 4 72 00 00 01"',
      ],
    );
  });

  test('a person: name with employer and e-mail domain; a free-mail domain says nothing', () => {
    assert.deepEqual(
      planQueries(
        query({
          type: 'Person',
          name: ['Jane Doe'],
          employer: 'Globex',
          email: ['jane@gmail.com', 'jd@globex.example'],
        }),
      ),
      ['Jane Doe Globex', 'Jane Doe globex.example', 'Jane Doe', 'globex.example'],
    );
    assert.deepEqual(planQueries(query({ type: 'Person', email: ['someone@gmail.com'] })), []);
  });

  test('at most four searches by default, without repeats', () => {
    const plan = planQueries(
      query({
        type: 'Person',
        name: ['A B'],
        location: 'X',
        employer: 'Y',
        email: ['a@c.example'],
        phone: '1',
      }),
    );
    assert.equal(plan.length, 4);
    assert.equal(new Set(plan).size, 4);
  });
});
