import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cleanByline, extractArticle, stripSiteName } from './article-extractor.ts';
import { decodeHtml } from './charset.ts';
import { PageContext } from './page-context.ts';

const PAGES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages');
function page(file: string, url = `https://valleyherald.example/news/${file}`): PageContext {
  return PageContext.fromHtml(decodeHtml(fs.readFileSync(path.join(PAGES, file))).text, url);
}

describe('article extractor', () => {
  test('reads every field of a news article with JSON-LD, OpenGraph and boilerplate around it', () => {
    const article = extractArticle(page('article.html'));
    assert.equal(article.title, 'Quarry Lake Reopens After Restoration');
    assert.equal(article.author, 'Maria Okafor');
    assert.equal(article.authorUrl, 'https://valleyherald.example/authors/maria-okafor');
    assert.equal(article.date, 'Tue, 05 Mar 2024 08:30:00 GMT');
    assert.equal(article.dateModified, 'Wed, 06 Mar 2024 12:00:00 GMT');
    assert.equal(article.siteName, 'The Valley Herald');
    assert.equal(article.humanLanguage, 'en');
    assert.equal(
      article.description,
      'The old quarry lake reopens to swimmers after a two-year restoration.',
    );
    assert.deepEqual(
      article.tags?.map((t) => t.label),
      ['quarry', 'lake', 'restoration', 'Environment', 'Swimming'],
    );

    const text = article.text ?? '';
    const paragraphs = text.split('\n');
    assert.equal(paragraphs.length, 6);
    assert.match(paragraphs[0], /^The old quarry lake on the edge of town reopened/);
    assert.equal(paragraphs[2], 'Water quality');
    assert.match(paragraphs[5], /^“It is wonderful to see families back on the shore,” said/);
    for (const boilerplate of [
      'garden furniture',
      'Most read',
      'Great news',
      'Parks budget',
      'tracking',
      'Home',
      '©',
      'restored north shore',
    ]) {
      assert.equal(text.includes(boilerplate), false, `text must not contain "${boilerplate}"`);
    }
    assert.equal(
      text.includes('Quarry Lake Reopens After Restoration'),
      false,
      'the title is not repeated in the text',
    );

    const html = article.html ?? '';
    assert.match(html, /^<p>The old quarry lake/);
    assert.match(html, /<h2>Water quality<\/h2>/);
    assert.match(
      html,
      /<img src="https:\/\/valleyherald\.example\/img\/lake-shore\.jpg" alt="The restored shore">/,
    );
    assert.match(html, /<figcaption>The restored north shore, with its new beach and jetty\.<\/figcaption>/);
    assert.doesNotMatch(html, /class=|width=|pixel\.gif|related-links|Parks budget/);

    assert.deepEqual(article.images, [
      { url: 'https://cdn.valleyherald.example/img/lake-hero.jpg', primary: true },
      {
        url: 'https://valleyherald.example/img/lake-shore.jpg',
        caption: 'The restored north shore, with its new beach and jetty.',
        title: 'The restored shore',
      },
    ]);
  });

  test('falls back to meta tags, <time> and the page title when there is no structured data', () => {
    const article = extractArticle(page('blog-post.html', 'https://fells.example/2023/walls'));
    assert.equal(article.title, 'Ten Years of Dry-Stone Walling');
    assert.equal(article.author, 'Tom Ashdown');
    assert.equal(article.date, 'Sat, 18 Nov 2023 00:00:00 GMT');
    assert.equal(article.siteName, 'Notes from the Fells');
    assert.deepEqual(article.tags, [{ label: 'walling' }, { label: 'craft' }, { label: 'fells' }]);
    assert.equal(article.text?.split('\n').length, 5);
    assert.match(article.text ?? '', /^When I built my first wall/);
    assert.doesNotMatch(article.text ?? '', /Posted on|Archive|Notes from the Fells, a blog/);
    assert.equal(article.images, undefined);
  });

  test('survives broken markup', () => {
    const article = extractArticle(page('broken.html', 'https://old.example/page'));
    assert.equal(article.title, 'Broken & Unclosed Page');
    assert.match(article.text ?? '', /First paragraph with an unescaped ampersand & a stray bold italic mix/);
    assert.match(article.text ?? '', /with an unquoted link\./);
    assert.doesNotMatch(article.text ?? '', /not content/);
    assert.match(article.html ?? '', /<a href="https:\/\/old\.example\/next">an unquoted link<\/a>/);
  });

  test('reads a windows-1252 page once decoded', () => {
    const article = extractArticle(page('windows-1252.html', 'https://cafe.example/'));
    assert.equal(article.title, 'Café naïve – « Crème brûlée »');
    assert.equal(
      article.text,
      'La façade du café coûte 5 € — “des prix très doux”, selon le gérant, qui a rénové la salle à l’automne.',
    );
    assert.equal(article.humanLanguage, 'fr');
  });

  test('stripSiteName removes the site part of a <title>', () => {
    assert.equal(stripSiteName('Big News | The Daily', 'The Daily'), 'Big News');
    assert.equal(stripSiteName('The Daily - Big News Today', 'The Daily'), 'Big News Today');
    assert.equal(
      stripSiteName('Short - A much longer headline here', undefined),
      'A much longer headline here',
    );
    assert.equal(stripSiteName('No separators', 'X'), 'No separators');
  });
});

describe('multilingual bylines and dates', () => {
  test('the name is taken out of bylines written in seven languages', () => {
    const cases: [string, string][] = [
      ['Par Hélène Lefèvre — 12 mars 2024', 'Hélène Lefèvre'],
      ['By Jane Doe | Updated March 3', 'Jane Doe'],
      ['Von Max Müller, 12.03.2024', 'Max Müller'],
      ['Por Ana García el 3 de marzo', 'Ana García'],
      ['Di Marco Rossi 12 marzo 2024', 'Marco Rossi'],
      ['Door Jan de Vries', 'Jan de Vries'],
      ['Texte : Anne Martin', 'Anne Martin'],
      ['Di Maria', 'Di Maria'],
    ];
    for (const [byline, name] of cases) assert.equal(cleanByline(byline), name, byline);
  });

  test('a plain page with a labelled date and a French byline', () => {
    const html = `<html lang="fr"><head><title>Le lac rouvre</title></head><body><article><h1>Le lac rouvre</h1>
<p class="byline">Par Hélène Lefèvre — 12 mars 2024</p>
<p>${'La baignade reprend au lac après deux ans de travaux, a annoncé la mairie, et les familles reviennent. '.repeat(12)}</p>
</article></body></html>`;
    const article = extractArticle(PageContext.fromHtml(html, 'https://journal.example/lac'));
    assert.equal(article.author, 'Hélène Lefèvre');
    assert.equal(article.date, 'Tue, 12 Mar 2024 00:00:00 GMT');
    const plain = extractArticle(
      PageContext.fromHtml(
        `<html><body><article><h1>Plain</h1><p>Published: 2024-11-22</p><p>${'Words of a plain article, written without any markup. '.repeat(20)}</p></article></body></html>`,
        'https://plain.example/a',
      ),
    );
    assert.equal(plain.date, 'Fri, 22 Nov 2024 00:00:00 GMT');
  });
});
