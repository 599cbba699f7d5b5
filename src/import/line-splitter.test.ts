import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSplitter, type SplitLine } from './line-splitter.ts';

function split(
  input: Buffer | string,
  options: ConstructorParameters<typeof LineSplitter>[0] = {},
  chunk = 0,
) {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const splitter = new LineSplitter(options);
  const out: SplitLine[] = [];
  const size = chunk > 0 ? chunk : bytes.length || 1;
  for (let i = 0; i < bytes.length; i += size) splitter.push(bytes.subarray(i, i + size), out);
  splitter.end(out);
  return { out, splitter };
}

describe('LineSplitter', () => {
  test('splits on LF and CRLF, keeps a last line without newline, numbers lines from 1', () => {
    const { out } = split('a\r\nb\n\nc');
    assert.deepEqual(out, [
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 3, text: '' },
      { line: 4, text: 'c' },
    ]);
  });

  test('gives the same lines whatever the chunk boundaries, multi-byte characters included', () => {
    const input = '\ufeff{"name":"Zoë 東京 🎓"}\r\nsecond\nthird';
    const whole = split(input).out;
    assert.equal(whole[0].text, '{"name":"Zoë 東京 🎓"}', 'the BOM is removed');
    for (const chunk of [1, 2, 3, 5, 7]) assert.deepEqual(split(input, {}, chunk).out, whole);
  });

  test('skips an over-long line without holding it, and carries on', () => {
    const long = 'x'.repeat(5000);
    const { out } = split(`ok\n${long}\nafter\n`, { maxLineBytes: 100 }, 64);
    assert.equal(out.length, 3);
    assert.deepEqual(out[0], { line: 1, text: 'ok' });
    assert.equal(out[1].line, 2);
    assert.match(out[1].error ?? '', /5000 bytes long, more than the 100-byte limit/);
    assert.deepEqual(out[2], { line: 3, text: 'after' });
  });

  test('accepts a line of exactly the limit, with or without CR', () => {
    const exact = 'y'.repeat(10);
    const { out } = split(`${exact}\r\n${exact}\n${exact}z\n`, { maxLineBytes: 10 }, 3);
    assert.deepEqual(out[0], { line: 1, text: exact });
    assert.deepEqual(out[1], { line: 2, text: exact });
    assert.ok(out[2].error);
  });

  test('reports a line that is not valid UTF-8; a real U+FFFD is fine', () => {
    const bad = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\nok \ufffd\n'),
    ]);
    const { out } = split(bad);
    assert.deepEqual(out[0], { line: 1, error: 'line is not valid UTF-8' });
    assert.deepEqual(out[1], { line: 2, text: 'ok \ufffd' });
  });

  test('csv mode: newlines inside quotes stay in the record; records keep their first line number', () => {
    const input = 'id,name\n1,"two\nlines"\n2,"a ""quoted"" word"\n3,x\n';
    for (const chunk of [0, 1, 4]) {
      const { out, splitter } = split(input, { csv: true }, chunk);
      assert.deepEqual(out, [
        { line: 1, text: 'id,name' },
        { line: 2, text: '1,"two\nlines"' },
        { line: 4, text: '2,"a ""quoted"" word"' },
        { line: 5, text: '3,x' },
      ]);
      assert.equal(splitter.lines, 5);
    }
  });

  test('refuses a nonsensical limit', () => {
    assert.throws(() => new LineSplitter({ maxLineBytes: 0 }), RangeError);
  });
});
