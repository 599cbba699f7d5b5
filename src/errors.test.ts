import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as errors from './errors.ts';

const { ERROR_CODES, QuarryError } = errors;

/** One instance of every exported QuarryError class (constructor arguments filled in). */
function instances(): InstanceType<typeof QuarryError>[] {
  const out: InstanceType<typeof QuarryError>[] = [];
  for (const value of Object.values(errors)) {
    if (typeof value !== 'function' || !(value.prototype instanceof QuarryError)) continue;
    const Class = value as unknown as new (...args: unknown[]) => InstanceType<typeof QuarryError>;
    const args = value === errors.FetchError ? ['fetch_timeout', 'm'] : ['p', 'message'];
    out.push(new Class(...args));
  }
  return out;
}

test('every error class has a registered code, and the status and errorCode the registry gives', () => {
  const all = instances();
  assert.ok(all.length >= 15, `${all.length} classes`);
  for (const error of all) {
    const info = ERROR_CODES[error.code] as errors.ErrorCodeInfo | undefined;
    assert.ok(info, `${error.name}: code ${error.code} is registered`);
    assert.equal(error.status, info.status, `${error.name} status`);
    if (info.errorCode !== undefined && error.name !== 'NotFoundError') {
      assert.equal(error.errorCode, info.errorCode, `${error.name} errorCode`);
    }
    assert.ok(['retry', 'fail-record', 'stop-job'].includes(error.outcome));
  }
});

test('a fetch error is retried when transient, fails the record otherwise', () => {
  assert.equal(new errors.FetchError('fetch_http_status', 'm', { transient: true }).outcome, 'retry');
  assert.equal(new errors.FetchError('fetch_http_status', 'm').outcome, 'fail-record');
  assert.equal(new errors.InsufficientStorageError('full').outcome, 'retry');
  assert.ok(errors.isRetryableHttpStatus(503) && errors.isRetryableHttpStatus(429));
  assert.ok(!errors.isRetryableHttpStatus(404));
});

test('isDiskFullError: SQLSTATE 53100 in any language, ENOSPC, SQLite and OS texts; not the other class 53 states', () => {
  // Shapes as pg's DatabaseError and Node's errno errors carry them (test/bulk-full-disk.test.ts
  // provokes the real PostgreSQL one: a tablespace on a full tmpfs).
  assert.ok(
    errors.isDiskFullError({
      code: '53100',
      message: 'konnte Datei nicht erweitern: Auf dem Gerät ist kein Speicherplatz mehr verfügbar',
    }),
  );
  assert.ok(errors.isDiskFullError({ code: 'ENOSPC', message: 'write failed' }));
  assert.ok(errors.isDiskFullError(new Error('database or disk is full')));
  assert.ok(errors.isDiskFullError(new Error('could not extend file "base/1/2": No space left on device')));
  for (const code of ['53200', '53300', '53400', '23505']) {
    assert.ok(!errors.isDiskFullError({ code, message: 'out of memory' }), code);
  }
  assert.ok(!errors.isDiskFullError(null) && !errors.isDiskFullError('disk is full?'));
});

test('outcomeOf: a registered error says what happens next; any other error says nothing', () => {
  assert.equal(errors.outcomeOf(new errors.UnavailableError('busy')), 'retry');
  assert.equal(errors.outcomeOf(new errors.InvalidParameterError('name', 'bad')), 'fail-record');
  assert.equal(errors.outcomeOf(new errors.InvalidTokenError()), 'stop-job');
  assert.equal(
    errors.outcomeOf(new errors.FetchError('fetch_timeout', 'slow', { transient: true })),
    'retry',
  );
  assert.equal(errors.outcomeOf(new TypeError('a bug')), undefined);
  assert.equal(errors.outcomeOf({ outcome: 'retry' }), undefined, 'not an error');
  assert.equal(errors.outcomeOf(Object.assign(new Error('x'), { outcome: 'later' })), undefined);
  assert.equal(errors.outcomeOf(undefined), undefined);
});

test('docs/errors.md lists every code with its status, errorCode and outcome', () => {
  const doc = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');
  for (const [code, info] of Object.entries(ERROR_CODES) as [string, errors.ErrorCodeInfo][]) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    assert.ok(row, `docs/errors.md has a row for ${code}`);
    const cells = row.split('|').map((cell) => cell.trim());
    assert.equal(cells[2], String(info.status), `${code} status`);
    assert.equal(cells[3], String(info.errorCode ?? info.status), `${code} errorCode`);
    assert.equal(cells[4], info.outcome, `${code} outcome`);
  }
});
