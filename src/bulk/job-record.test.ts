import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidParameterError } from '../errors.ts';
import { parseSubmitParams } from './job-record.ts';

test('parseSubmitParams: job options, name, and a webhook URL that must be http(s) and public', () => {
  const params = parseSubmitParams(
    {
      name: ' nightly ',
      size: '3',
      threshold: '0.7',
      refresh: 'true',
      webhookurl: 'https://hooks.example/x?a=1',
      token: 't',
    },
    100,
  );
  assert.equal(params.name, 'nightly');
  assert.deepEqual(params.options, {
    size: 3,
    threshold: 0.7,
    refresh: true,
    search: 'OFF',
    nonCanonicalFacts: false,
  });
  assert.equal(parseSubmitParams({ search: 'fallback' }, 100).options.search, 'FALLBACK');
  assert.equal(parseSubmitParams({ search: 'true' }, 100).options.search, 'ON');
  assert.throws(
    () => parseSubmitParams({ search: 'often' }, 100),
    (e: unknown) => e instanceof InvalidParameterError && e.parameter === 'search',
  );
  assert.equal(params.webhookUrl, 'https://hooks.example/x?a=1');
  assert.equal(parseSubmitParams({}, 100).name, undefined);
  for (const url of [
    'http://127.0.0.1:9/hook',
    'http://10.1.2.3/',
    'http://[::1]/',
    'http://169.254.169.254/',
  ]) {
    assert.throws(
      () => parseSubmitParams({ webhookurl: url }, 100),
      (e: unknown) =>
        e instanceof InvalidParameterError &&
        e.parameter === 'webhookurl' &&
        /not a public address/.test(e.message),
      url,
    );
    assert.equal(
      parseSubmitParams({ webhookurl: url }, 100, { allowPrivateNetwork: true }).webhookUrl,
      new URL(url).href,
    );
  }
  assert.throws(() => parseSubmitParams({ webhookurl: 'file:///etc/passwd' }, 100), /only http and https/);
  assert.throws(() => parseSubmitParams({ size: '101' }, 100), /'size'/);
});
