import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeHtml, detectCharset, parseMediaType } from './charset.ts';

describe('parseMediaType', () => {
  test('reads the essence and a quoted or bare charset', () => {
    assert.deepEqual(parseMediaType('Text/HTML; Charset="ISO-8859-1"'), {
      essence: 'text/html',
      charset: 'ISO-8859-1',
    });
    assert.deepEqual(parseMediaType('text/html;charset=utf-8'), { essence: 'text/html', charset: 'utf-8' });
    assert.deepEqual(parseMediaType(undefined), { essence: undefined, charset: undefined });
    assert.equal(parseMediaType('garbage').essence, undefined);
  });
});

describe('detectCharset', () => {
  const latin1Cafe = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in windows-1252

  test('a byte order mark wins over everything', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<meta charset="windows-1252">é'),
    ]);
    assert.equal(detectCharset(body, 'iso-8859-2'), 'utf-8');
  });

  test('the Content-Type charset wins over a meta declaration', () => {
    assert.equal(detectCharset(Buffer.from('<meta charset="utf-8">'), 'shift_jis'), 'shift_jis');
  });

  test('an unknown Content-Type charset is ignored', () => {
    assert.equal(detectCharset(Buffer.from('<meta charset="euc-kr">'), 'no-such-charset'), 'euc-kr');
  });

  test('meta charset and http-equiv declarations are found in the first 1024 bytes', () => {
    assert.equal(detectCharset(Buffer.from('<head><meta charset=iso-8859-1>')), 'windows-1252');
    assert.equal(
      detectCharset(Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">')),
      'koi8-r',
    );
    const late = Buffer.concat([
      Buffer.from(`<!-- ${'x'.repeat(1100)} -->`),
      Buffer.from('<meta charset="koi8-r">'),
    ]);
    assert.equal(detectCharset(late), 'utf-8');
  });

  test('undeclared bodies are UTF-8 when valid, windows-1252 otherwise', () => {
    assert.equal(detectCharset(Buffer.from('<p>naïve – ok</p>')), 'utf-8');
    assert.equal(detectCharset(latin1Cafe), 'windows-1252');
  });

  test('decodeHtml decodes with the detected charset', () => {
    const sjis = Buffer.concat([
      Buffer.from('<p>'),
      Buffer.from([0x93, 0xfa, 0x96, 0x7b]),
      Buffer.from('</p>'),
    ]);
    assert.deepEqual(decodeHtml(sjis, 'text/html; charset=Shift_JIS'), {
      text: '<p>日本</p>',
      charset: 'shift_jis',
    });
    assert.equal(decodeHtml(latin1Cafe).text, 'café');
  });
});
