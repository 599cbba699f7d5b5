import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crawledEntityId, entityAnchor, entityStatement, entityTypeOf } from './graph-entity.ts';

test('organization and person objects become statements with the page as origin, of ontology fields only', () => {
  const statement = entityStatement(
    {
      type: 'organization',
      pageUrl: 'https://northwind.example/about',
      resolvedPageUrl: 'https://www.northwind.example/about',
      timestamp: 5,
      name: ' Northwind Robotics ',
      homepageUri: 'northwind.example',
      logo: 'https://northwind.example/logo.png',
      phoneNumbers: [{ string: '+1 510-555-0142', digits: '+15105550142' }],
      linkedInUri: 'linkedin.com/company/northwind',
      copyright: '© 2024 Northwind',
      provenance: { phoneNumbers: ['site-wide'] },
      deathDate: { str: 'd2020-XX-XX', precision: 1 },
      description: null,
    },
    'https://northwind.example/about',
  );
  assert.deepEqual(statement, {
    type: 'Organization',
    name: 'Northwind Robotics',
    homepageUri: 'northwind.example',
    phoneNumbers: [{ string: '+1 510-555-0142', digits: '+15105550142' }],
    images: [{ url: 'https://northwind.example/logo.png', primary: true }],
    origins: ['https://northwind.example/about'],
  });
  assert.equal(entityAnchor(statement!, 'https://northwind.example/about'), 'northwind.example');
  const person = entityStatement({ type: 'person', name: 'Ada Lindqvist' }, 'https://n.example/team/ada');
  assert.equal(person?.type, 'Person');
  assert.equal(entityAnchor(person!, 'https://n.example/team/ada'), 'https://n.example/team/ada');
});

test('other objects and nameless ones are not statements', () => {
  assert.equal(entityStatement({ type: 'article', name: 'x' }, 'https://a.example/'), undefined);
  assert.equal(entityStatement({ type: 'organization', name: '  ' }, 'https://a.example/'), undefined);
  assert.equal(entityTypeOf({ type: 'Person' }), 'Person');
  assert.equal(entityTypeOf({ type: 'product' }), undefined);
});

test('ids are stable for the same entity and differ between entities', () => {
  const a = crawledEntityId('Organization', 'Northwind  Robotics', 'northwind.example');
  assert.equal(a, crawledEntityId('Organization', 'northwind robotics', 'northwind.example'));
  assert.match(a, /^crawl-o-[0-9a-f]{20}$/);
  assert.notEqual(a, crawledEntityId('Organization', 'Northwind Robotics', 'other.example'));
  assert.match(crawledEntityId('Person', 'Ada', 'https://x.example/'), /^crawl-p-/);
});
