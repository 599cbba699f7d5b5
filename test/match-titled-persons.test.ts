/**
 * Titled persons (issue 22: the historical set's misses): people known by a title of nobility
 * ("William Cavendish, 3rd Earl of Devonshire" is "the Earl of Devonshire"), baronets whose
 * source split "Sir Robert Williams, 1st Baronet" into first name "Sir" and surname "Baronet",
 * and the ways people write them. Among the demo graph's persons, with namesakes of the same
 * given name and surname, so that a title's words have to carry the answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import type { Matcher, MatchQuery } from '../src/match/index.ts';
import { openDemoMatcher } from './support/demo-matcher.ts';
import { personQuery } from './support/match-queries.ts';

/** A person as the historical bench graph states one: nameDetail split at the first and last word. */
function person(id: string, name: string, city: string, title?: string): Entity {
  const words = name.split(',')[0].trim().split(/\s+/);
  const lastWords = name.trim().split(/\s+/);
  return {
    id,
    type: 'Person',
    name,
    nameDetail: { firstName: words[0], lastName: lastWords[lastWords.length - 1] },
    location: { city: { name: city } },
    ...(title ? { employments: [{ isCurrent: true, title }] } : {}),
  };
}

const TITLED: Entity[] = [
  person('PER-devonshire', 'William Cavendish, 3rd Earl of Devonshire', 'Bridgend', 'politician'),
  person('PER-williams-bt', 'Sir Robert Williams, 1st Baronet', 'Portsmouth', 'politician'),
  person('PER-rowallan', 'Archibald Corbett, 1st Baron Rowallan', 'Glasgow', 'politician'),
  person('PER-oxford', 'Henry de Vere, 18th Earl of Oxford', 'London', 'military officer'),
  person('PER-montrose', 'James Graham, 1st Marquess of Montrose', 'Montrose', 'poet'),
  person('PER-pembroke', 'Anne Hastings, Countess of Pembroke', 'Westminster'),
  person('PER-gladstone', 'Henry Gladstone, 1st Baron Gladstone of Hawarden', 'Rushcliffe', 'politician'),
  // Namesakes of their given names and surnames, without titles.
  person('PER-robert-williams', 'Robert Williams', 'Leeds', 'engineer'),
  person('PER-william-cavendish', 'William Cavendish', 'Derby', 'farmer'),
  person('PER-james-graham', 'James Graham', 'Carlisle', 'surgeon'),
  person('PER-henry-vere', 'Henry Vere', 'Norwich', 'clergyman'),
];

const q = (name: string, more: Partial<MatchQuery> = {}): MatchQuery =>
  personQuery({ names: [name], ...more });

describe('titled persons', () => {
  let cleanup: () => Promise<void>;
  let matcher: Matcher;
  let threshold: number;
  before(async () => {
    ({ matcher, personThreshold: threshold, cleanup } = await openDemoMatcher(TITLED));
  });
  after(async () => cleanup());

  const hit = (query: MatchQuery) => {
    const top = matcher.match(query, { limit: 3 })[0];
    return top && top.score >= threshold ? top : undefined;
  };

  test('by the title alone or with the given name: the title holder is the hit', () => {
    const cases: [MatchQuery, string][] = [
      [q('Earl of Devonshire'), 'PER-devonshire'],
      [q('William, Earl of Devonshire'), 'PER-devonshire'],
      [q('Lord Rowallan'), 'PER-rowallan'],
      [q('archibald baron rowallan'), 'PER-rowallan'],
      [q('henry 18th earl oxford', { location: 'london' }), 'PER-oxford'],
      [q('James, Marquess of Montrose'), 'PER-montrose'],
      [q('Countess of Pembroke'), 'PER-pembroke'],
      [q('henry gladstone, baron gladstone hawarden'), 'PER-gladstone'],
    ];
    const wrong = cases
      .map(([query, expected]) => ({ query, expected, top: matcher.match(query, { limit: 1 })[0] }))
      .filter(({ expected, top }) => !(top?.id === expected && top.score >= threshold))
      .map(({ query, top }) => `${query.names[0]} → ${top?.id} ${top?.score.toFixed(3)}`);
    assert.deepEqual(wrong, []);
  });

  test('the name as the source writes it, with its location, is the hit; titles are no conflict', () => {
    const query = q('sir robert williams, 1st baronet', { location: 'portsmouth' });
    const top = hit(query);
    assert.equal(top?.id, 'PER-williams-bt');
    // "Sir" and "Baronet" are not the given name and the surname of the baronet.
    assert.equal(top?.explanation.features.givenNameConflict, undefined);
    assert.equal(top?.explanation.features.surnameConflict, undefined);
    assert.equal(hit(q('Sir Robert Williams', { location: 'Leeds' }))?.id, 'PER-robert-williams');
  });

  test('a given name and surname shared with the title holder is not called likely without more', () => {
    // William Cavendish (farmer, Derby) and the Earl are both "William Cavendish".
    const scores = matcher.match(q('William Cavendish'), { limit: 3 });
    assert.deepEqual(
      new Set(scores.slice(0, 2).map((c) => c.id)),
      new Set(['PER-devonshire', 'PER-william-cavendish']),
    );
    assert.ok(scores[0].score < threshold, `top score ${scores[0].score}`);
    // A title nobody in the graph holds names nobody.
    assert.equal(hit(q('Earl of Lindisfarne')), undefined);
    assert.equal(hit(q('Lord Quexington')), undefined);
  });
});
