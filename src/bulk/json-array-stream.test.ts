import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  JsonArraySyntaxError,
  JsonBodyTooLargeError,
  JsonElementTooLargeError,
  splitJsonArray,
} from './json-array-stream.ts';

async function* chunked(text: string | Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let at = 0;
  let k = 0;
  while (at < bytes.length) {
    const size = sizes[k++ % sizes.length];
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

async function split(text: string | Buffer, sizes = [1 << 20], options = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const group of splitJsonArray(chunked(text, sizes), options)) out.push(...group);
  return out;
}

const SAMPLE = [
  { type: 'Organization', name: 'Acme "Robotics" \\ Inc.', url: ['a.example'] },
  { type: 'Person', name: ['Zoë 東京 🎓', 'x\\'], email: 'a@b.example', nested: { a: [1, { b: '[]{}' }] } },
  'a string with ] and , inside',
  12.5e3,
  true,
  null,
  [],
  {},
  { id: 'ORG-1', customId: 7, q: 'ends with backslash \\\\' },
];

describe('splitJsonArray', () => {
  test('yields every element as its own JSON text, in order, whatever the chunking', async () => {
    const text = ` \n[ ${SAMPLE.map((v) => JSON.stringify(v, null, 1)).join(' ,\n')} ]\n `;
    const expected = SAMPLE.map((v) => JSON.stringify(v));
    for (const sizes of [[1 << 20], [1], [2], [3], [7], [1, 5, 2, 13], [64]]) {
      const elements = await split(text, sizes);
      assert.deepEqual(
        elements.map((e) => JSON.stringify(JSON.parse(e))),
        expected,
        `chunk sizes ${sizes.join(',')}`,
      );
    }
  });

  test('splits at every possible byte boundary', async () => {
    const text = Buffer.from(JSON.stringify(SAMPLE));
    for (let cut = 1; cut < text.length; cut++) {
      const elements = await split(text, [cut, text.length]);
      assert.equal(elements.length, SAMPLE.length, `cut at ${cut}`);
      assert.deepEqual(JSON.parse(`[${elements.join(',')}]`), SAMPLE);
    }
  });

  test('accepts an empty array and a leading byte-order mark', async () => {
    assert.deepEqual(await split('[]'), []);
    assert.deepEqual(await split(' [ \n ] '), []);
    assert.deepEqual(
      await split(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"a":1}]')])),
      ['{"a":1}'],
    );
  });

  test('rejects what is not one JSON array, with the byte offset', async () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['   ', /empty/],
      ['{"a":1}', /must be a JSON array.*byte 0/],
      ['[{"a":1},]', /comma is followed by the end/],
      ['[,{"a":1}]', /unexpected comma/],
      ['[{"a":1} {"b":2}]', /expected a comma/],
      ['[{"a":1}', /not closed/],
      ['[{"a":"x]', /not closed/],
      ['[{"a":1}] x', /after the end/],
      ['[1][2]', /after the end/],
    ];
    for (const [text, message] of cases) {
      await assert.rejects(
        split(text),
        (e: unknown) => e instanceof JsonArraySyntaxError && message.test(e.message),
        text,
      );
    }
  });

  test('enforces the body and element size limits', async () => {
    const text = JSON.stringify([{ a: 'x'.repeat(100) }, { a: 'y'.repeat(10) }]);
    await assert.rejects(split(text, [16], { maxBytes: text.length - 1 }), JsonBodyTooLargeError);
    assert.equal((await split(text, [16], { maxBytes: text.length })).length, 2);
    await assert.rejects(
      split(text, [16], { maxElementBytes: 50 }),
      (e: unknown) => e instanceof JsonElementTooLargeError && e.index === 0,
    );
    await assert.rejects(
      split(text, [1 << 20], { maxElementBytes: 50 }),
      (e: unknown) => e instanceof JsonElementTooLargeError && e.index === 0,
    );
  });
});
