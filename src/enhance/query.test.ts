import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidParameterError } from '../errors.ts';
import { echoQuery, parseEnhanceQuery, parseSearchMode } from './query.ts';

describe('parseEnhanceQuery', () => {
  test('trims, de-duplicates and drops empty list values; omits empty scalars', () => {
    const { query, options } = parseEnhanceQuery(
      { type: 'organization', name: [' Acme ', 'Acme', ''], url: 'acme.example', phone: '  ' },
      'post',
    );
    assert.equal(query.type, 'Organization');
    assert.deepEqual(query.name, ['Acme']);
    assert.deepEqual(query.url, ['acme.example']);
    assert.equal(query.phone, undefined);
    assert.deepEqual(options, {
      size: 1,
      threshold: undefined,
      refresh: false,
      search: 'OFF',
      nonCanonicalFacts: false,
      jsonmode: undefined,
      filter: undefined,
      filterExclude: undefined,
    });
  });

  test('search takes a boolean or a mode name, any case; anything else is a 400 naming it', () => {
    const mode = (search: unknown) =>
      parseEnhanceQuery({ type: 'Organization', name: 'A', search }, 'get').options.search;
    assert.equal(mode(undefined), 'OFF');
    assert.equal(mode('true'), 'ON');
    assert.equal(mode('1'), 'ON');
    assert.equal(mode(true), 'ON');
    assert.equal(mode('false'), 'OFF');
    assert.equal(mode('fallback'), 'FALLBACK');
    assert.equal(mode('SearchOnly'), 'SEARCHONLY');
    assert.equal(mode(['ON']), 'ON');
    assert.equal(parseSearchMode(false), 'OFF', 'a job stored before the modes kept a boolean');
    for (const bad of ['maybe', 'FALLBACKS', 2, ['ON', 'OFF']]) {
      assert.throws(
        () => mode(bad),
        (e: unknown) => e instanceof InvalidParameterError && e.parameter === 'search',
      );
    }
  });

  test('bulk id records may omit type; other bulk records may not', () => {
    const { query } = parseEnhanceQuery({ id: 'ORG-1', customId: 7 }, 'bulk-record');
    assert.equal(query.type, undefined);
    assert.equal(query.customId, '7');
    assert.throws(
      () => parseEnhanceQuery({ name: 'Acme' }, 'bulk-record'),
      (e: unknown) => e instanceof InvalidParameterError && e.parameter === 'type',
    );
  });

  test('bulk records do not take per-request options, and report them as unknown', () => {
    const { warnings } = parseEnhanceQuery({ type: 'Person', name: 'Jo', size: 3 }, 'bulk-record');
    assert.deepEqual(warnings, ["Unknown parameter 'size' was ignored"]);
  });

  test('rejects non-object input, over-long values and too many values', () => {
    assert.throws(() => parseEnhanceQuery([] as never, 'post'), /JSON object/);
    assert.throws(
      () => parseEnhanceQuery({ type: 'Person', name: 'x'.repeat(2001) }, 'post'),
      /'name'.*longer/,
    );
    assert.throws(
      () =>
        parseEnhanceQuery({ type: 'Person', name: Array.from({ length: 26 }, (_, i) => `n${i}`) }, 'post'),
      /'name'.*more than 25/,
    );
  });

  test('accepts IPv6 addresses and numeric booleans', () => {
    const { query, options } = parseEnhanceQuery(
      { type: 'Organization', ip: '2001:db8::1', nonCanonicalFacts: '1', refresh: 'false' },
      'get',
    );
    assert.equal(query.ip, '2001:db8::1');
    assert.equal(options.nonCanonicalFacts, true);
    assert.equal(options.refresh, false);
  });

  test('echoQuery leaves out absent and empty fields', () => {
    const { query } = parseEnhanceQuery({ type: 'Person', email: 'a@b.example' }, 'get');
    assert.deepEqual(echoQuery(query), { type: 'Person', email: ['a@b.example'] });
  });
});
