import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseHtml } from './html-document.ts';
import { applyRules, applyRulesets, removePrefiltered } from './rule-engine.ts';
import { parseRuleset } from './ruleset.ts';

const LISTING = fs.readFileSync(
  path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages', 'listing.html'),
  'utf8',
);
const PAGE_URL = 'https://directory.example/city/oakland?page=1';

function run(rules: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const page = parseHtml(LISTING, PAGE_URL);
  const ruleset = parseRuleset({ api: 'directory', urlPattern: 'directory', rules, ...extra });
  removePrefiltered(page.document, [ruleset]);
  return applyRules(ruleset.rules, page.document, page.baseUrl);
}

describe('rule application', () => {
  test('a selector rule reads the text of the element', () => {
    assert.deepEqual(run([{ name: 'heading', selector: 'h1.page-title' }]), {
      heading: 'Oakland Food Directory',
    });
  });

  test('a value rule sets a fixed value of any scalar type', () => {
    assert.deepEqual(
      run([
        { name: 'source', value: 'manual' },
        { name: 'rank', value: 3 },
        { name: 'ok', value: true },
      ]),
      {
        source: 'manual',
        rank: 3,
        ok: true,
      },
    );
  });

  test('several matches give an array, in document order; no match leaves the field unset', () => {
    assert.deepEqual(
      run([
        { name: 'phones', selector: '.phone' },
        { name: 'missing', selector: '.does-not-exist' },
      ]),
      {
        phones: ['650.555.5512', '650.555.9127', '650.555.2100'],
      },
    );
  });

  test('an attribute filter reads the attribute; href resolves against <base href>', () => {
    const fields = run([
      { name: 'links', selector: 'a.more', filters: [{ type: 'attribute', args: ['href'] }] },
      { name: 'updated', selector: 'p.updated', filters: [{ type: 'attribute', args: ['data-updated'] }] },
      { name: 'absent', selector: 'h1', filters: [{ type: 'attribute', args: ['data-none'] }] },
    ]);
    assert.deepEqual(fields, {
      links: [
        'https://directory.example/city/listings/hamburger-central',
        'https://directory.example/listings/jims-shake-shop',
        'https://steaks.example/',
      ],
      updated: '2024-05-01',
    });
  });

  test('replace filters apply in order with $1 back-references, to every occurrence', () => {
    const fields = run([
      {
        name: 'updated',
        selector: 'p.updated',
        filters: [
          { type: 'replace', args: ['^Last updated:\\s*', ''] },
          { type: 'replace', args: ['(\\w+) (\\d+), (\\d{4})', '$3/$1/$2'] },
        ],
      },
      {
        name: 'digits',
        selector: '.business:eq(0) .phone',
        filters: [{ type: 'replace', args: ['\\.', ''] }],
      },
      { name: 'label', value: 'a-b-c', filters: [{ type: 'replace', args: ['-', '+'] }] },
    ]);
    assert.deepEqual(fields, { updated: '2024/May/1', digits: '6505555512', label: 'a+b+c' });
  });

  test('exclude filters leave out matching descendants', () => {
    const fields = run([
      { name: 'price', selector: 'div.price', filters: [{ type: 'exclude', args: ['.fine-print'] }] },
      {
        name: 'name',
        selector: '.business:eq(1) h3',
        filters: [{ type: 'exclude', args: ['.badge', 'script'] }],
      },
    ]);
    assert.deepEqual(fields, { price: 'Average price: $18 per person', name: "Jim's Shake Shop" });
  });

  test('nested rules make an array of objects, one per matched element', () => {
    const fields = run([
      {
        name: 'businesses',
        selector: 'div.business',
        rules: [
          { name: 'name', selector: 'h3.title', filters: [{ type: 'exclude', args: ['.badge'] }] },
          { name: 'phone', selector: 'span.phone' },
          { name: 'url', selector: 'a', filters: [{ type: 'attribute', args: ['href'] }] },
          { name: 'id', selector: 'div.business', filters: [{ type: 'attribute', args: ['data-id'] }] },
          { name: 'tags', selector: 'span.tag', rules: [{ name: 'label', selector: 'span' }] },
        ],
      },
      { name: 'nothing', selector: 'div.none', rules: [{ name: 'x', selector: 'b' }] },
    ]);
    assert.deepEqual(fields, {
      businesses: [
        {
          name: 'Hamburger Central',
          phone: '650.555.5512',
          url: 'https://directory.example/city/listings/hamburger-central',
          id: 'b-101',
          tags: [{ label: 'Burgers' }, { label: 'Fast food' }],
        },
        {
          name: "Jim's Shake Shop",
          phone: '650.555.9127',
          url: 'https://directory.example/listings/jims-shake-shop',
          id: 'b-102',
          tags: [],
        },
        {
          name: 'Steaks and More',
          phone: '650.555.2100',
          url: 'https://steaks.example/',
          id: 'b-103',
          tags: [],
        },
      ],
      nothing: [],
    });
  });

  test('jsoup-only selectors work inside rules', () => {
    const fields = run([
      { name: 'monday', selector: 'ul.hours li:containsOwn(monday)' },
      { name: 'second', selector: 'ul.hours li:eq(1)' },
      { name: 'rated', selector: 'div[^data-rat] h3' },
      { name: 'featured', selector: 'div[class~=\\bfeatured$] h3' },
      { name: 'open', selector: 'ul.hours li:matches(\\d+–\\d+)' },
    ]);
    assert.deepEqual(fields, {
      monday: 'Monday: closed',
      second: 'Tuesday: 11–22',
      rated: 'Hamburger Central',
      featured: 'Steaks and More',
      open: ['Tuesday: 11–22', 'Wednesday: 11–22'],
    });
  });

  test('a field named html holds markup', () => {
    const fields = run([{ name: 'html', selector: 'p.summary' }]);
    assert.equal(fields.html, 'Showing 3 of 120 listings');
    const markup = run([
      { name: 'html', selector: 'div.price', filters: [{ type: 'exclude', args: ['.fine-print'] }] },
    ]);
    assert.equal(markup.html, 'Average price: <b>$18</b> per person');
  });

  test('prefilters remove elements before any rule runs', () => {
    const rules = [
      { name: 'ad', selector: '#top-ad' },
      { name: 'first', selector: 'div:eq(0)' },
    ];
    const filtered = run(rules, { prefilters: ['.ad', 'footer'] });
    assert.equal('ad' in filtered, false);
    // With the ad gone, the first business is the only div at sibling index 0.
    assert.match(String(filtered.first), /^Hamburger Central\n/);
    assert.doesNotMatch(String(filtered.first), /Sponsored/);
    const unfiltered = run(rules);
    assert.match(String(unfiltered.ad), /^Sponsored: Hamburger Central/);
    assert.match(String(unfiltered.first), /^Sponsored/);
  });

  test('prefilters count every element they match and leave <template> contents alone', () => {
    const page = parseHtml(
      '<div class="ad"><p class="ad">a</p></div><template><p class="ad">t</p></template><p class="ad">b</p><p>kept</p>',
      PAGE_URL,
    );
    const ruleset = parseRuleset({
      api: 'x',
      urlPattern: '.',
      prefilters: ['.ad'],
      rules: [
        { name: 'paragraphs', selector: 'p' },
        { name: 'first', selector: 'p:eq(0)' },
      ],
    });
    assert.equal(removePrefiltered(page.document, [ruleset]), 3);
    // Rules skip <template> contents as prefilters do: inert markup is not page content. The
    // only first child left is the template's paragraph, so `first` finds nothing.
    assert.deepEqual(applyRulesets([ruleset], page.document, page.baseUrl), { paragraphs: 'kept' });
    assert.deepEqual(applyRules(ruleset.rules.slice(1), page.document, page.baseUrl), {});
  });

  test('a rule finds the same elements alone, beside other rules and as part of a rule set', () => {
    const html =
      '<template><p>inert</p><a href="/t">t</a></template><p>one</p><div><template><p>x</p></template><p>two</p></div>';
    const alone = parseRuleset({ api: 'x', urlPattern: '.', rules: [{ name: 'p', selector: 'p' }] });
    const beside = parseRuleset({
      api: 'x',
      urlPattern: '.',
      rules: [
        { name: 'p', selector: 'p' },
        { name: 'links', selector: 'a', filters: [{ type: 'attribute', args: ['href'] }] },
        { name: 'rows', selector: 'div', rules: [{ name: 'text', selector: 'p' }] },
      ],
    });
    const page = parseHtml(html, PAGE_URL);
    assert.deepEqual(applyRules(alone.rules, page.document, page.baseUrl), { p: ['one', 'two'] });
    assert.deepEqual(applyRules(beside.rules, page.document, page.baseUrl), {
      p: ['one', 'two'],
      rows: [{ text: 'two' }],
    });
    assert.deepEqual(applyRulesets([alone], page.document, page.baseUrl), { p: ['one', 'two'] });
  });

  test('later rule sets override earlier ones field by field', () => {
    const page = parseHtml(LISTING, PAGE_URL);
    const first = parseRuleset({
      api: 'x',
      urlPattern: '.',
      rules: [
        { name: 'a', value: 1 },
        { name: 'b', value: 1 },
      ],
    });
    const second = parseRuleset({ api: 'x', urlPattern: '.', rules: [{ name: 'b', value: 2 }] });
    assert.deepEqual(applyRulesets([first, second], page.document, page.baseUrl), { a: 1, b: 2 });
  });
});

describe('built-in field shapes', () => {
  test('a rule overriding tags keeps its [{label}] shape, one or several', () => {
    const page = parseHtml(
      '<ul class="t"><li>Lake</li><li>Summer</li></ul><p class="one">Town</p>',
      PAGE_URL,
    );
    const rules = parseRuleset({
      api: 'article',
      urlPattern: '.',
      rules: [
        { name: 'tags', selector: 'ul.t li' },
        { name: 'images', selector: 'p.one' },
      ],
    });
    assert.deepEqual(applyRules(rules.rules, page.document, page.baseUrl), {
      tags: [{ label: 'Lake' }, { label: 'Summer' }],
      images: [{ url: 'Town' }],
    });
  });
});
