import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, redactSecrets } from './logging.ts';

const SECRET = '0123456789abcdef0123456789abcdef';

test('no token secret reaches a log line, wherever it is', () => {
  const lines: string[] = [];
  const logger = createLogger({ stream: { write: (line: string) => lines.push(line) } });
  logger.error({ url: `/kg/v3/enhance?name=x&token=${SECRET}&size=2` }, 'unexpected error');
  logger.error({ err: new Error(`cannot reach http://h/v3/bulk/data?token=${SECRET}`) }, 'failed');
  logger.info({ body: { token: SECRET, name: 'job' } }, 'created');
  logger.info({ headers: { authorization: `Bearer ${SECRET}` } }, 'headers');
  logger.child({ link: `http://h/x;token=${SECRET}` }).warn('child');
  assert.equal(lines.length, 5);
  for (const line of lines) {
    assert.ok(!line.includes(SECRET), line);
    assert.match(line, /\[REDACTED\]/);
    JSON.parse(line); // still one JSON object per line
  }
  assert.match(lines[0], /"url":"\/kg\/v3\/enhance\?name=x&token=\[REDACTED\]&size=2"/);
});

test('lines without a secret are left as they are', () => {
  const line = '{"msg":"tokens created","count":3,"url":"/kg/v3/enhance?name=token"}';
  assert.equal(redactSecrets(line), line);
  assert.equal(redactSecrets('{"msg":"x"}'), '{"msg":"x"}');
});
