/**
 * Persons whose stored name or e-mail the matcher read wrongly (issue 22, the persons set's
 * misses): e-mail local parts that look like role mailboxes but are a person's initials
 * (`a.r@`, `it25@`) or the person's own stored address (`hr@`). Among the demo graph's persons,
 * with namesakes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import type { Matcher, MatchQuery } from '../src/match/index.ts';
import { openDemoMatcher } from './support/demo-matcher.ts';
import { personQuery } from './support/match-queries.ts';

function person(id: string, first: string, last: string, email: string, city: string): Entity {
  return {
    id,
    type: 'Person',
    name: `${first} ${last}`,
    nameDetail: { firstName: first, lastName: last },
    emailAddresses: [{ contactString: email }],
    location: { city: { name: city } },
  };
}

const PERSONS: Entity[] = [
  // Addresses of initials that spell a role word.
  person('PER-arthur', 'Arthur', 'Reid', 'a.r@cortez-chandler.example', 'London'),
  person('PER-isaac', 'Isaac', 'Taylor', 'it25@riley.example', 'London'),
  person('PER-harvey', 'Harvey', 'Rose', 'hr@lewis-rose.example', 'Bristol'),
  // Someone else at the same company domains.
  person('PER-other-riley', 'Nora', 'Quinn', 'n.quinn@riley.example', 'York'),
  person('PER-other-lewis', 'Owen', 'Lewis', 'owen@lewis-rose.example', 'Bath'),
];

describe('person e-mail addresses the matcher used to misread', () => {
  let cleanup: () => Promise<void>;
  let matcher: Matcher;
  let threshold: number;
  before(async () => {
    ({ matcher, personThreshold: threshold, cleanup } = await openDemoMatcher(PERSONS));
  });
  after(async () => cleanup());

  const top = (query: MatchQuery) => matcher.match(query, { limit: 3 })[0];

  test('initials that spell a role word (a.r@, it25@) are compared as the person’s address', () => {
    for (const [email, id] of [
      ['a.r@cortez-chandler.example', 'PER-arthur'],
      ['it25@riley.example', 'PER-isaac'],
    ]) {
      const best = top(personQuery({ names: [], emails: [email] }));
      assert.equal(best?.id, id, email);
      assert.ok(best.score >= threshold, `${email}: ${best.score} below the threshold ${threshold}`);
      assert.equal(best.explanation.features.emailRole, undefined, `${email} read as a role mailbox`);
    }
  });

  test('a role mailbox the graph stores as a person’s own address is theirs', () => {
    const best = top(personQuery({ names: [], emails: ['hr@lewis-rose.example'] }));
    assert.equal(best?.id, 'PER-harvey');
    assert.ok(best.score >= threshold, `${best.score} below the threshold ${threshold}`);
    assert.equal(best.explanation.features.emailExact, 1);
    // For another person at that domain, the same address is still a role mailbox, not theirs.
    const other = matcher.match(personQuery({ names: ['Owen Lewis'], emails: ['hr@lewis-rose.example'] }), {
      limit: 3,
    })[0];
    assert.equal(other?.id, 'PER-other-lewis');
    assert.equal(other.explanation.features.emailRole, 1);
  });
});
