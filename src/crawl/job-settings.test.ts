import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidJobNameError, InvalidParameterError } from '../errors.ts';
import {
  apiNameOf,
  matchesProcessPattern,
  parseCustomHeaders,
  parseJobCreation,
  parseUrls,
  validateJobName,
} from './job-settings.ts';

const minimal = { name: 'news_1-a', apiUrl: '/v3/article', urls: 'https://a.example/1 https://b.example/2' };

test('a minimal creation gets the documented defaults', () => {
  const creation = parseJobCreation(minimal);
  assert.equal(creation.name, 'news_1-a');
  assert.deepEqual(creation.settings, {
    apiUrl: '/v3/article',
    api: 'article',
    customHeaders: {},
    notifyWebhook: '',
    notifyEmail: '',
    obeyRobots: true,
    repeat: 0,
    maxRounds: 0,
    pageProcessPattern: '',
    crawlDelay: 0.25,
    kgIngest: false,
  });
  assert.deepEqual(creation.urls, [
    { url: 'https://a.example/1', host: 'a.example' },
    { url: 'https://b.example/2', host: 'b.example' },
  ]);
});

test('form strings and JSON values are both accepted, fractions included', () => {
  const fromForm = parseJobCreation({
    ...minimal,
    obeyRobots: '0',
    repeat: '0.5',
    maxRounds: '3',
    crawlDelay: '1.5',
    kgIngest: '1',
    notifyWebhook: 'https://hooks.example/done',
    pageProcessPattern: '/news/||/blog/',
    customHeaders: ['User-Agent:MyBot/1.0', 'Cookie: a=b; c=d'],
  });
  const fromJson = parseJobCreation({
    ...minimal,
    obeyRobots: 0,
    repeat: 0.5,
    maxRounds: 3,
    crawlDelay: 1.5,
    kgIngest: true,
    notifyWebhook: 'https://hooks.example/done',
    pageProcessPattern: '/news/||/blog/',
    customHeaders: { 'User-Agent': 'MyBot/1.0', Cookie: 'a=b; c=d' },
  });
  assert.deepEqual(fromForm, fromJson);
  assert.equal(fromForm.settings.obeyRobots, false);
  assert.equal(fromForm.settings.repeat, 0.5);
  assert.equal(fromForm.settings.crawlDelay, 1.5);
  assert.deepEqual(fromForm.settings.customHeaders, { 'User-Agent': 'MyBot/1.0', Cookie: 'a=b; c=d' });
});

test('job names: 505 for forbidden characters, 400 naming name when missing', () => {
  for (const bad of ['has space', 'semi;colon', 'ünïcode', 'a/b', 42]) {
    assert.throws(() => validateJobName(bad), InvalidJobNameError, String(bad));
  }
  assert.throws(
    () => validateJobName(undefined),
    (e: unknown) => e instanceof InvalidParameterError && e.parameter === 'name',
  );
  assert.throws(() => validateJobName('x'.repeat(129)), /at most 128/);
  const error = new InvalidJobNameError();
  assert.equal(error.errorCode, 505);
  assert.equal(error.status, 400);
});

test('every bad field is a 400 naming it, and unknown fields are refused', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...minimal, urls: '' }, 'urls'],
    [{ ...minimal, urls: '   ' }, 'urls'],
    [{ ...minimal, urls: 5 }, 'urls'],
    [{ ...minimal, apiUrl: undefined }, 'apiUrl'],
    [{ ...minimal, apiUrl: '/v2/article' }, 'apiUrl'],
    [{ ...minimal, crawlDelay: '-1' }, 'crawlDelay'],
    [{ ...minimal, crawlDelay: 'fast' }, 'crawlDelay'],
    [{ ...minimal, repeat: '-0.5' }, 'repeat'],
    [{ ...minimal, maxRounds: '1.5' }, 'maxRounds'],
    [{ ...minimal, maxRounds: '-2' }, 'maxRounds'],
    [{ ...minimal, obeyRobots: 'maybe' }, 'obeyRobots'],
    [{ ...minimal, notifyWebhook: 'ftp://x.example/' }, 'notifyWebhook'],
    [{ ...minimal, notifyWebhook: 'not a url' }, 'notifyWebhook'],
    [{ ...minimal, customHeaders: 'NoColon' }, 'customHeaders'],
    [{ ...minimal, customHeaders: 'Bad Name:x' }, 'customHeaders'],
    [{ ...minimal, name: ['a', 'b'] }, 'name'],
    [{ ...minimal, maxHops: '2' }, 'maxHops'],
  ];
  for (const [fields, parameter] of cases) {
    assert.throws(
      () => parseJobCreation(fields),
      (e: unknown) =>
        e instanceof InvalidParameterError && e.parameter === parameter && e.message.includes(parameter),
      `${parameter}: ${JSON.stringify(fields[parameter])}`,
    );
  }
});

test('URLs: split on any whitespace, de-duplicated, invalid ones kept with the reason', () => {
  const urls = parseUrls([
    'https://a.example/x#frag\nhttps://a.example/x\thttps://A.example/x',
    'ftp://f.example/ nope https://b.example:8443/',
  ]);
  assert.deepEqual(urls, [
    { url: 'https://a.example/x', host: 'a.example' },
    { url: 'ftp://f.example/', invalid: 'only http and https URLs are fetched' },
    { url: 'nope', invalid: 'not an absolute URL' },
    { url: 'https://b.example:8443/', host: 'b.example:8443' },
  ]);
});
test('URLs: none valid is a 400 naming the first few and why', () => {
  assert.throws(
    () => parseUrls('file:///etc/passwd javascript:alert(1)'),
    /'urls': none of the URLs can be fetched .*"file:\/\/\/etc\/passwd" \(only http and https URLs are fetched\), "javascript:alert\(1\)"/,
  );
});

test('apiUrl names the API by its path', () => {
  assert.equal(apiNameOf('/v3/article'), 'article');
  assert.equal(apiNameOf('https://api.example.com/v3/product?fields=x'), 'product');
  assert.equal(apiNameOf('/api/myCustom_1'), 'myCustom_1');
  assert.equal(apiNameOf('/v3/'), undefined);
  assert.equal(apiNameOf('/v3/a/b'), undefined);
});

test('customHeaders accepts newline-separated lines and keeps colons in values', () => {
  assert.deepEqual(parseCustomHeaders('Referer: https://x.example/a:b\nX-One:1'), {
    Referer: 'https://x.example/a:b',
    'X-One': '1',
  });
  assert.throws(() => parseCustomHeaders({ 'X-A': 'a\r\nInjected: 1' }), /line break/);
});

test('pageProcessPattern: any of the ||-separated substrings, empty processes all', () => {
  assert.equal(matchesProcessPattern('', 'https://a.example/x'), true);
  assert.equal(matchesProcessPattern('/news/||/blog/', 'https://a.example/blog/1'), true);
  assert.equal(matchesProcessPattern('/news/||/blog/', 'https://a.example/shop/1'), false);
  assert.equal(matchesProcessPattern('||', 'https://a.example/shop/1'), true);
});
