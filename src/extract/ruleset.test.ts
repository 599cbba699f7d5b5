import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidParameterError } from '../errors.ts';
import { apiNameOf, matchesUrl, parseRuleset } from './ruleset.ts';

const valid = {
  api: '/api/article',
  urlPattern: 'example\\.com/news/',
  testUrl: 'https://example.com/news/1',
  rules: [
    { name: 'title', selector: 'h1' },
    { name: 'source', value: 'Example' },
    { name: 'link', selector: 'a.more', filters: [{ type: 'attribute', args: ['HREF'] }] },
    {
      name: 'price',
      selector: '.price',
      filters: [
        { type: 'replace', args: ['\\$(\\d+)', '$1 USD'] },
        { type: 'exclude', args: ['.fine-print'] },
      ],
    },
    { name: 'items', selector: 'li', rules: [{ name: 'text', selector: 'span' }] },
  ],
  prefilters: ['.ad', 'aside'],
  xForwardHeaders: { 'User-Agent': ['A', 'B'], Cookie: 'x=1' },
  notes: ['made by a test'],
};

function rejects(input: unknown, parameter: string, message: RegExp): void {
  assert.throws(
    () => parseRuleset(input),
    (error: unknown) =>
      error instanceof InvalidParameterError && error.parameter === parameter && message.test(error.message),
    `${parameter} ${message}`,
  );
}

describe('parseRuleset', () => {
  test('normalises a valid rule set and compiles every part', () => {
    const compiled = parseRuleset(valid);
    assert.equal(compiled.apiName, 'article');
    assert.equal(compiled.definition.api, '/api/article');
    assert.deepEqual(compiled.definition.rules[2], {
      name: 'link',
      selector: 'a.more',
      filters: [{ type: 'attribute', args: ['href'] }],
    });
    assert.deepEqual(compiled.definition.rules[3].filters?.[0], {
      type: 'replace',
      args: ['\\$(\\d+)', '$1 USD'],
    });
    assert.equal(compiled.rules[2].attribute, 'href');
    assert.equal(
      compiled.rules[3].replacements[0].pattern.replaceAll('$12 and $3', '$1 USD'),
      '12 USD and 3 USD',
    );
    assert.equal(compiled.rules[3].exclude.length, 1);
    assert.equal(compiled.rules[4].children?.length, 1);
    assert.equal(compiled.prefilters.length, 2);
    assert.deepEqual(compiled.definition.xForwardHeaders, { 'User-Agent': ['A', 'B'], Cookie: 'x=1' });
    assert.deepEqual(compiled.definition.notes, ['made by a test']);
  });

  test('accepts a bare API name, an empty rules array and ignores listed hashes', () => {
    const compiled = parseRuleset({ api: 'recipes', urlPattern: '.*', rules: [], hash: 'abc', testUrl: '' });
    assert.equal(compiled.definition.api, '/api/recipes');
    assert.deepEqual(compiled.definition.rules, []);
    assert.equal('hash' in compiled.definition, false);
    assert.equal('testUrl' in compiled.definition, false);
  });

  test('rejects missing and malformed top-level fields, naming them', () => {
    rejects('nope', 'body', /must be a JSON object/);
    rejects({ urlPattern: 'x', rules: [] }, 'api', /is required/);
    rejects({ api: 'a/b', urlPattern: 'x', rules: [] }, 'api', /is not an API name/);
    rejects({ api: '/api/custom', urlPattern: 'x', rules: [] }, 'api', /reserved/);
    rejects({ api: 'x', rules: [] }, 'urlPattern', /is required/);
    rejects(
      { api: 'x', urlPattern: '(unclosed', rules: [] },
      'urlPattern',
      /Invalid regular expression "\(unclosed"/,
    );
    rejects({ api: 'x', urlPattern: 'x' }, 'rules', /is required/);
    rejects({ api: 'x', urlPattern: 'x', rules: {} }, 'rules', /must be an array/);
    rejects({ api: 'x', urlPattern: 'x', rules: [], testUrl: 'ftp://x' }, 'testUrl', /http or https/);
    rejects({ api: 'x', urlPattern: 'x', rules: [], surprise: 1 }, 'surprise', /not a known field/);
    rejects(
      { api: 'x', urlPattern: 'x', rules: [], prefilters: ['div:bogus'] },
      'prefilters[0]',
      /Unsupported selector construct ":bogus"/,
    );
    rejects(
      { api: 'x', urlPattern: 'x', rules: [], xForwardHeaders: { Host: 'a' } },
      'xForwardHeaders.Host',
      /cannot be set/,
    );
    rejects(
      { api: 'x', urlPattern: 'x', rules: [], xForwardHeaders: { 'Bad Name': 'a' } },
      'xForwardHeaders.Bad Name',
      /not a valid header name/,
    );
    rejects(
      { api: 'x', urlPattern: 'x', rules: [], xForwardHeaders: { A: 'x\r\ny' } },
      'xForwardHeaders.A',
      /line breaks/,
    );
  });

  test('rejects invalid rules, naming the rule path', () => {
    const base = { api: 'x', urlPattern: 'x' };
    rejects({ ...base, rules: [{ selector: 'h1' }] }, 'rules[0].name', /non-empty string/);
    rejects(
      { ...base, rules: [{ name: 'a', selector: 'h1', value: 'v' }] },
      'rules[0]',
      /both "selector" and "value"/,
    );
    rejects({ ...base, rules: [{ name: 'a' }] }, 'rules[0]', /needs a "selector" or a "value"/);
    rejects({ ...base, rules: [{ name: 'a', selector: 'h1:nope' }] }, 'rules[0].selector', /":nope"/);
    rejects(
      {
        ...base,
        rules: [
          { name: 'a', selector: 'h1' },
          { name: 'a', selector: 'h2' },
        ],
      },
      'rules[1].name',
      /duplicates/,
    );
    rejects({ ...base, rules: [{ name: 'pageUrl', value: 'x' }] }, 'rules[0].name', /reserved/);
    rejects({ ...base, rules: [{ name: '__proto__', value: 'x' }] }, 'rules[0].name', /reserved/);
    rejects(
      { ...base, rules: [{ name: 'a', value: { nested: 1 } }] },
      'rules[0].value',
      /string, number or boolean/,
    );
    rejects(
      { ...base, rules: [{ name: 'a', selector: 'h1', css: 'x' }] },
      'rules[0].css',
      /not a known field/,
    );
    rejects(
      {
        ...base,
        rules: [{ name: 'a', selector: 'li', rules: [{ name: 'b', selector: 'span:matches([)' }] }],
      },
      'rules[0].rules[0].selector',
      /Invalid regular expression/,
    );
  });

  test('rejects invalid filters, naming the filter path', () => {
    const rule = (filters: unknown) => ({
      api: 'x',
      urlPattern: 'x',
      rules: [{ name: 'a', selector: 'h1', filters }],
    });
    rejects(
      rule([{ type: 'uppercase', args: [] }]),
      'rules[0].filters[0].type',
      /unknown filter type "uppercase"/,
    );
    rejects(
      rule([{ type: 'replace', args: ['(', 'x'] }]),
      'rules[0].filters[0].args[0]',
      /Invalid regular expression/,
    );
    rejects(rule([{ type: 'replace', args: [] }]), 'rules[0].filters[0].args', /\[regex, replacement\]/);
    rejects(
      rule([{ type: 'attribute', args: [] }]),
      'rules[0].filters[0].args',
      /exactly one attribute name/,
    );
    rejects(
      rule([
        { type: 'attribute', args: ['href'] },
        { type: 'attribute', args: ['src'] },
      ]),
      'rules[0].filters[1]',
      /at most one attribute filter/,
    );
    rejects(rule([{ type: 'exclude', args: ['p:zzz'] }]), 'rules[0].filters[0].args[0]', /":zzz"/);
    rejects(rule([{ type: 'exclude', args: [] }]), 'rules[0].filters[0].args', /at least one selector/);
    rejects(rule([{ type: 'replace', args: [1, 2] }]), 'rules[0].filters[0].args', /array of strings/);
    rejects(rule('replace'), 'rules[0].filters', /array of filters/);
    rejects(
      {
        api: 'x',
        urlPattern: 'x',
        rules: [{ name: 'a', value: 'v', filters: [{ type: 'attribute', args: ['href'] }] }],
      },
      'rules[0].filters[0]',
      /needs a selector rule/,
    );
  });

  test('prefixes paths for items of an array body', () => {
    assert.throws(
      () => parseRuleset({ api: 'x', urlPattern: 'x', rules: [{ name: 'a' }] }, '[3]'),
      /'\[3\]\.rules\[0\]'/,
    );
  });
});

describe('rule set helpers', () => {
  test('apiNameOf accepts both spellings', () => {
    assert.equal(apiNameOf('/api/product'), 'product');
    assert.equal(apiNameOf('product'), 'product');
  });

  test('urlPattern is searched anywhere in the URL unless anchored', () => {
    const loose = parseRuleset({ api: 'x', urlPattern: 'example\\.com/news', rules: [] });
    assert.equal(matchesUrl(loose, 'https://www.example.com/news/today'), true);
    assert.equal(matchesUrl(loose, 'https://example.org/news'), false);
    const anchored = parseRuleset({ api: 'x', urlPattern: '^https://example\\.com/$', rules: [] });
    assert.equal(matchesUrl(anchored, 'https://example.com/'), true);
    assert.equal(matchesUrl(anchored, 'https://example.com/news'), false);
  });
});
