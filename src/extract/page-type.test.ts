import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
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
