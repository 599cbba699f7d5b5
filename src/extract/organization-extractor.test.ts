import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { kgUri, socialNetworkOf } from './contact-facts.ts';
import { extractOrganization } from './organization-extractor.ts';
import { PageContext } from './page-context.ts';

const PAGES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages');

describe('organization extractor', () => {
  test('combines schema.org JSON-LD with contact facts found on the page', () => {
    const html = fs.readFileSync(path.join(PAGES, 'company.html'), 'utf8');
    const organization = extractOrganization(
      PageContext.fromHtml(html, 'https://www.northwind-robotics.example/'),
    );
    const location = {
      address: '500 Harbor Boulevard, Oakland, CA 94607, United States',
      street: '500 Harbor Boulevard',
      city: { name: 'Oakland' },
      region: { name: 'CA' },
      postalCode: '94607',
      country: { name: 'United States' },
    };
    assert.deepEqual(organization, {
      name: 'Northwind Robotics',
      allNames: ['Northwind Robotics', 'Northwind Robotics, Inc.', 'Northwind'],
      description: 'Northwind Robotics designs and builds autonomous mobile robots for warehouses.',
      homepageUri: 'northwind-robotics.example',
      logo: 'https://www.northwind-robotics.example/img/logo.png',
      images: [{ url: 'https://www.northwind-robotics.example/img/logo.png', primary: true }],
      phoneNumbers: [
        { string: '+1 510-555-0142', digits: '+15105550142' },
        { string: '+1 510-555-0199', digits: '+15105550199' },
      ],
      emailAddresses: [
        { contactString: 'hello@northwind-robotics.example' },
        { contactString: 'sales@northwind-robotics.example' },
        { contactString: 'press@northwind-robotics.example' },
      ],
      location,
      locations: [location],
      foundingDate: { str: 'd2009-XX-XX', precision: 1, timestamp: Date.UTC(2009, 0, 1) },
      nbEmployees: 120,
      founders: [{ name: 'Ada Lindqvist' }, { name: 'Rahul Menon' }],
      provenance: {
        phoneNumbers: ['structured-data', 'structured-data'],
        emailAddresses: ['structured-data', 'structured-data', 'page-content'],
      },
      linkedInUri: 'linkedin.com/company/northwind-robotics',
      twitterUri: 'twitter.com/northwindbots',
      facebookUri: 'facebook.com/northwindrobotics',
      githubUri: 'github.com/northwind-robotics',
      allUris: [
        'northwind-robotics.example',
        'linkedin.com/company/northwind-robotics',
        'twitter.com/northwindbots',
        'facebook.com/northwindrobotics',
        'github.com/northwind-robotics',
      ],
    });
  });

  test('without structured data, uses the site name, <address>, links and a header logo', () => {
    const html = `<html><head><meta property="og:site_name" content="Corner Bakery"></head><body>
      <header><img src="/img/bakery-logo.png" alt="Corner Bakery"></header>
      <p>Call us: 030 1234567</p>
      <address>Hauptstraße 5<br>10115 Berlin</address>
      <a href="mailto:Info@Corner-Bakery.example?subject=hi">Mail</a>
      <a href="https://www.instagram.com/cornerbakery/">Instagram</a>
      <a href="https://www.instagram.com/p/abc123/">A post</a>
      </body></html>`;
    const organization = extractOrganization(PageContext.fromHtml(html, 'https://corner-bakery.de/kontakt'));
    assert.equal(organization.name, 'Corner Bakery');
    assert.equal(organization.homepageUri, 'corner-bakery.de');
    assert.equal(organization.logo, 'https://corner-bakery.de/img/bakery-logo.png');
    assert.deepEqual(organization.phoneNumbers, [{ string: '030 1234567', digits: '+49301234567' }]);
    assert.deepEqual(organization.emailAddresses, [{ contactString: 'info@corner-bakery.example' }]);
    assert.deepEqual(organization.location, { address: 'Hauptstraße 5, 10115 Berlin' });
    assert.equal(organization.instagramUri, 'instagram.com/cornerbakery');
  });
});

describe('social profile links', () => {
  test('recognise profiles and ignore share buttons and posts', () => {
    assert.equal(socialNetworkOf('https://www.linkedin.com/company/acme/'), 'linkedIn');
    assert.equal(socialNetworkOf('https://linkedin.com/in/jane-doe'), 'linkedIn');
    assert.equal(socialNetworkOf('https://www.linkedin.com/feed/'), undefined);
    assert.equal(socialNetworkOf('https://x.com/acme'), 'twitter');
    assert.equal(socialNetworkOf('https://twitter.com/intent/tweet?text=x'), undefined);
    assert.equal(socialNetworkOf('https://twitter.com/acme/status/1'), undefined);
    assert.equal(socialNetworkOf('https://www.facebook.com/sharer/sharer.php?u=x'), undefined);
    assert.equal(socialNetworkOf('https://www.youtube.com/@acme'), 'youtube');
    assert.equal(socialNetworkOf('https://www.youtube.com/watch?v=1'), undefined);
    assert.equal(socialNetworkOf('https://en.wikipedia.org/wiki/Acme'), 'wikipedia');
    assert.equal(socialNetworkOf('https://www.crunchbase.com/organization/acme'), 'crunchbase');
    assert.equal(socialNetworkOf('https://example.com/acme'), undefined);
  });

  test('are written in the knowledge graph URI form', () => {
    assert.equal(kgUri('https://www.LinkedIn.com/company/acme/'), 'linkedin.com/company/acme');
  });
});
