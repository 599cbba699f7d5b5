import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runBuiltInApi } from './built-in-apis.ts';
import { decodeHtml } from './charset.ts';
import { PageContext } from './page-context.ts';
import { detectPageType } from './page-type.ts';

const PAGES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages');
function detect(html: string, url = 'https://site.example/some/page'): string {
  return detectPageType(PageContext.fromHtml(html, url));
}
function detectFile(file: string, url?: string): string {
  return detect(decodeHtml(fs.readFileSync(path.join(PAGES, file))).text, url);
}

const LONG_TEXT = Array.from(
  { length: 8 },
  (_, i) => `<p>Paragraph ${i} ${'words, and more words, '.repeat(8)}</p>`,
).join('');

describe('page type detection', () => {
  test('detects the fixture pages', () => {
    assert.equal(detectFile('article.html'), 'article');
    assert.equal(detectFile('blog-post.html'), 'article');
    assert.equal(detectFile('product.html'), 'product');
    assert.equal(detectFile('product-plain.html'), 'product');
    assert.equal(detectFile('company.html', 'https://northwind-robotics.example/'), 'organization');
    assert.equal(
      detectFile('company.html', 'https://northwind-robotics.example/products/amr-7'),
      'organization',
    );
    assert.equal(detectFile('person.html'), 'person');
    assert.equal(detectFile('listing.html'), 'other');
  });

  test('declared types win in the order product, article, person', () => {
    const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
    assert.equal(
      detect(
        ld([
          { '@type': 'Organization', name: 'A' },
          { '@type': 'Product', name: 'P' },
        ]),
      ),
      'product',
    );
    assert.equal(detect(ld({ '@type': 'BlogPosting', author: { '@type': 'Person', name: 'X' } })), 'article');
    assert.equal(
      detect(ld({ '@type': 'ProfilePage', mainEntity: { '@type': 'Person', name: 'X' } })),
      'person',
    );
    assert.equal(
      detect(ld({ '@type': 'WebPage', mainEntity: { '@type': 'Product', name: 'X' } })),
      'product',
    );
  });

  test('OpenGraph og:type decides when there is no schema.org type', () => {
    assert.equal(detect('<meta property="og:type" content="article">'), 'article');
    assert.equal(detect('<meta property="og:type" content="product.item">'), 'product');
    assert.equal(detect('<meta property="og:type" content="profile">'), 'person');
  });

  test('a site-wide Organization does not make every long page an organization', () => {
    const org = '<script type="application/ld+json">{"@type":"Organization","name":"Acme"}</script>';
    assert.equal(
      detect(`${org}<div class="post">${LONG_TEXT}</div>`, 'https://acme.example/blog/x'),
      'article',
    );
    assert.equal(detect(`${org}<p>Welcome</p>`, 'https://acme.example/'), 'organization');
    assert.equal(detect(`${org}<div>${LONG_TEXT}</div>`, 'https://acme.example/about-us'), 'organization');
  });

  test('falls back to the page itself, then to other', () => {
    assert.equal(detect(`<div class="post">${LONG_TEXT}</div>`), 'article');
    assert.equal(detect('<span class="price">$5.00</span><button>Add to cart</button>'), 'product');
    assert.equal(detect('<span class="price">$5.00</span>'), 'other');
    assert.equal(detect('<p>Hello</p>'), 'other');
    assert.equal(detect(''), 'other');
  });
});

describe('teams, listings and short articles', () => {
  const TEAM = `<html><head><title>Meet the newsroom - The Valley Herald</title></head><body>
<header class="site-header"><a href="/">The Valley Herald</a></header>
<main><h1>Meet the newsroom</h1>
<div class="team-member"><img src="/img/maria.jpg"><h3>Maria Gonzalez</h3><p class="role">Data Editor</p><a href="mailto:maria@valleyherald.example">Email</a></div>
<div class="team-member"><img src="/img/david.jpg"><h3>David Okafor</h3><p class="role">Courts Reporter</p><a href="mailto:david@valleyherald.example">Email</a></div>
<div class="team-member"><h3>Hélène Lefèvre</h3><p class="role">Correspondante à Paris</p></div>
</main><footer class="site-footer">Phone: +1 415 555 0100 <a href="mailto:newsroom@valleyherald.example">newsroom</a></footer></body></html>`;

  test('a team page is a team: one person per card, never the heading, with their own contacts', () => {
    const context = PageContext.fromHtml(TEAM, 'https://valleyherald.example/team');
    assert.equal(detectPageType(context), 'team');
    const { type, objects } = runBuiltInApi('person', context);
    assert.equal(type, 'person');
    assert.deepEqual(
      objects.map((o) => [o.type, o.fields.name, (o.fields.employments as { title: string }[])?.[0]?.title]),
      [
        ['person', 'Maria Gonzalez', 'Data Editor'],
        ['person', 'David Okafor', 'Courts Reporter'],
        ['person', 'Hélène Lefèvre', 'Correspondante à Paris'],
      ],
    );
    assert.deepEqual(objects[0].fields.emailAddresses, [{ contactString: 'maria@valleyherald.example' }]);
    assert.equal(objects[0].fields.image, 'https://valleyherald.example/img/maria.jpg');
    assert.equal(objects[2].fields.phoneNumbers, undefined);
  });

  test('a listing of teasers is a listing, not an article', () => {
    const teasers = Array.from(
      { length: 10 },
      (_, i) =>
        `<li><a href="/news/${i}">Council votes on the new bridge over the river, part ${i}</a><p>Short teaser.</p></li>`,
    ).join('');
    const context = PageContext.fromHtml(
      `<html><body><h1>Latest news</h1><ul class="stories">${teasers}</ul></body></html>`,
      'https://news.example/latest',
    );
    assert.equal(detectPageType(context), 'listing');
    assert.deepEqual(runBuiltInApi('analyze', context).objects, []);
  });

  test('a short French news item with a dated byline is an article', () => {
    const context = PageContext.fromHtml(
      `<html lang="fr"><body><article><h1>Le pont rouvre</h1><p class="byline">Par Hélène Lefèvre — 12 mars 2024</p>
<p>Le pont de la Vallée rouvre lundi après trois mois de travaux, a annoncé la mairie mercredi soir.</p>
<p>La circulation reprendra dans les deux sens, avec une limitation de vitesse pendant un mois.</p>
<p>Les piétons pourront emprunter la nouvelle passerelle dès samedi.</p></article></body></html>`,
      'https://journal.example/pont',
    );
    assert.equal(detectPageType(context), 'article');
  });
});
