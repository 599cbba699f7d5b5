import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PageContext } from './page-context.ts';
import { extractPerson, nameDetailOf } from './person-extractor.ts';

const PAGES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages');

describe('person extractor', () => {
  test('reads every field of a schema.org Person in microdata', () => {
    const html = fs.readFileSync(path.join(PAGES, 'person.html'), 'utf8');
    const person = extractPerson(PageContext.fromHtml(html, 'https://lakeside.example/faculty/marsh'));
    const location = {
      address: '1 Quay Lane, Bristol, BS1 4QA, United Kingdom',
      street: '1 Quay Lane',
      city: { name: 'Bristol' },
      postalCode: 'BS1 4QA',
      country: { name: 'United Kingdom' },
    };
    assert.deepEqual(person, {
      name: 'Elena Marsh',
      nameDetail: { firstName: 'Elena', lastName: 'Marsh', prefix: 'Dr.' },
      description: 'Elena Marsh studies groundwater in flooded quarries and mines.',
      homepageUri: 'elenamarsh.example',
      image: 'https://lakeside.example/photos/elena-marsh.jpg',
      images: [{ url: 'https://lakeside.example/photos/elena-marsh.jpg', primary: true }],
      phoneNumbers: [{ string: '+44 20 7946 0321', digits: '+442079460321' }],
      emailAddresses: [{ contactString: 'e.marsh@lakeside.example' }],
      location,
      locations: [location],
      employments: [
        { employer: { name: 'Lakeside University' }, title: 'Professor of Hydrology', isCurrent: true },
      ],
      educations: [{ institution: { name: 'University of Utrecht' } }],
      birthDate: { str: 'd1978-04-12', precision: 3, timestamp: Date.UTC(1978, 3, 12) },
      gender: { normalizedValue: 'Female' },
      // The footer's university Twitter account is the site's, not hers: only sameAs counts.
      linkedInUri: 'linkedin.com/in/elena-marsh',
      githubUri: 'github.com/emarsh',
      allUris: ['elenamarsh.example', 'linkedin.com/in/elena-marsh', 'github.com/emarsh'],
    });
  });

  test('reads a JSON-LD ProfilePage main entity with @id references', () => {
    const html = `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
        {"@type":"ProfilePage","mainEntity":{"@id":"#me"}},
        {"@type":"Person","@id":"#me","name":"Sam Q. Public","jobTitle":"CTO","worksFor":{"@id":"#org"},
         "sameAs":["https://x.com/samqpublic"],"email":"mailto:sam@public.example","birthDate":"1990-02"},
        {"@type":"Organization","@id":"#org","name":"Public Works Ltd"}]}</script>`;
    const person = extractPerson(PageContext.fromHtml(html, 'https://public.example/team/sam'));
    assert.equal(person.name, 'Sam Q. Public');
    assert.deepEqual(person.nameDetail, { firstName: 'Sam', middleName: ['Q.'], lastName: 'Public' });
    assert.deepEqual(person.employments, [
      { employer: { name: 'Public Works Ltd' }, title: 'CTO', isCurrent: true },
    ]);
    assert.equal(person.twitterUri, 'x.com/samqpublic');
    assert.deepEqual(person.emailAddresses, [{ contactString: 'sam@public.example' }]);
    assert.deepEqual(person.birthDate, { str: 'd1990-02-XX', precision: 2, timestamp: Date.UTC(1990, 1, 1) });
  });

  test('nameDetailOf splits a full name when no parts are given', () => {
    assert.deepEqual(nameDetailOf('Dr. Ana Maria de Souza', {}), {
      firstName: 'Ana',
      middleName: ['Maria', 'de'],
      lastName: 'Souza',
    });
    assert.deepEqual(nameDetailOf('Cher', {}), { firstName: 'Cher' });
  });
});
