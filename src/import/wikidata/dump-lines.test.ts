import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dumpText, dv, entity, statedIn } from '../../../test/support/wikidata-dump.ts';
import { classesOf, DumpLineReader, entityNumberOf, labelsOf, looksLikeObject } from './dump-lines.ts';

/** Feeds `text` to a reader in chunks of `size` bytes; returns the lines visited and the oversized ones. */
function read(text: string | Buffer, size: number, maxLineBytes?: number) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const lines: [number, string][] = [];
  const oversized: [number, number][] = [];
  const reader = new DumpLineReader((line, n) => lines.push([n, line.toString('utf8')]), {
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    onOversized: (n, b) => oversized.push([n, b]),
  });
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size));
  reader.end();
  return { lines, oversized, count: reader.lines };
}

describe('DumpLineReader', () => {
  const text = '[\n{"id":"Q1","v":"é"},\r\n  {"id":"Q2"} ,\n\n{"id":"Q3"}\n]\n';
  test('visits entity lines without the array brackets, trailing commas, blanks or CR, at any chunking', () => {
    for (const size of [1, 2, 3, 5, 7, 64, 1 << 20]) {
      const { lines, count } = read(text, size);
      assert.deepEqual(
        lines,
        [
          [2, '{"id":"Q1","v":"é"}'],
          [3, '{"id":"Q2"}'],
          [5, '{"id":"Q3"}'],
        ],
        `chunks of ${size}`,
      );
      assert.equal(count, 6);
    }
  });

  test('a byte order mark is removed; a last line without newline counts', () => {
    const { lines } = read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"Q1"}')]), 2);
    assert.deepEqual(lines, [[1, '{"id":"Q1"}']]);
  });

  test('lines over the cap are reported with their size, never held', () => {
    const long = `{"id":"Q9","x":"${'a'.repeat(100)}"}`;
    for (const size of [3, 1000]) {
      const { lines, oversized } = read(`[\n${long},\n{"id":"Q1"}\n${long}`, size, 50);
      assert.deepEqual(lines, [[3, '{"id":"Q1"}']]);
      assert.deepEqual(oversized, [
        [2, long.length + 1],
        [4, long.length],
      ]);
    }
  });

  test('looksLikeObject tells a whole object from a truncated or foreign line', () => {
    assert.equal(looksLikeObject(Buffer.from('{"a":1}')), true);
    assert.equal(looksLikeObject(Buffer.from('{"a":1')), false);
    assert.equal(looksLikeObject(Buffer.from('not json')), false);
  });
});

describe('reading a line without parsing it', () => {
  const line = (spec: Parameters<typeof entity>[0]) => Buffer.from(JSON.stringify(entity(spec)));
  const reparsed = (buffer: Buffer) => {
    // The same line with the statements' keys in another order: read by parsing the group.
    const parsed = JSON.parse(buffer.toString()) as { claims: Record<string, Record<string, unknown>[]> };
    for (const list of Object.values(parsed.claims)) {
      for (const [i, statement] of list.entries()) {
        const { mainsnak, ...rest } = statement;
        list[i] = { ...rest, mainsnak };
      }
    }
    return Buffer.from(JSON.stringify(parsed));
  };

  test('classesOf reads P31 values, leaving out deprecated statements and novalue/somevalue', () => {
    const cases: [Buffer, ReturnType<typeof classesOf>][] = [
      [
        line({ id: 'Q1', claims: [['P31', dv.item(5), { references: [statedIn(36578)] }]] }),
        { kind: 'classes', classes: [5] },
      ],
      [
        line({
          id: 'Q2',
          claims: [
            ['P31', dv.item(4830453), { rank: 'deprecated' }],
            ['P31', 'novalue'],
            ['P31', 'somevalue'],
            [
              'P31',
              dv.item(891723),
              { rank: 'preferred', qualifiers: [['P580', dv.time('+2000-00-00T00:00:00Z', 9)]] },
            ],
            ['P279', dv.item(5)],
            ['P17', dv.item(30)],
          ],
        }),
        { kind: 'classes', classes: [891723] },
      ],
      [line({ id: 'Q3', claims: [['P279', dv.item(5)]] }), { kind: 'none' }],
      [
        line({ id: 'Q4', claims: [['P31', dv.item(5), { rank: 'deprecated' }]] }),
        { kind: 'classes', classes: [] },
      ],
    ];
    for (const [buffer, expected] of cases) {
      assert.deepEqual(classesOf(buffer), expected);
      if (expected.kind !== 'none')
        assert.deepEqual(classesOf(reparsed(buffer)), expected, 'another key order');
    }
    // A group cut short is malformed, whether it breaks off in a statement or in its first key.
    for (const cut of [
      '{"claims":{"P31":[{"mainsnak":{"snaktype":"value",',
      '{"claims":{"P31":[{"rank":"nor',
    ]) {
      assert.deepEqual(classesOf(Buffer.from(cut)), { kind: 'malformed' });
    }
  });

  test('entityNumberOf reads the id up front, or by parsing a line in another key order', () => {
    const buffer = line({ id: 'Q42', labels: { en: 'Douglas Adams' } });
    assert.equal(entityNumberOf(buffer), 42);
    const { type, id, ...rest } = JSON.parse(buffer.toString());
    assert.equal(entityNumberOf(Buffer.from(JSON.stringify({ ...rest, type, id }))), 42);
    assert.equal(entityNumberOf(Buffer.from('{"id":"Q7","type":"item"}')), 7);
    assert.equal(
      entityNumberOf(Buffer.from('{"type":"property","datatype":"string","id":"P31"}')),
      undefined,
    );
    assert.equal(entityNumberOf(Buffer.from('{"type":"item","id":"Q')), undefined);
  });

  test('labelsOf parses the labels alone', () => {
    const buffer = line({
      id: 'Q42',
      labels: { en: 'Douglas "DNA" Adams', de: 'Douglas Adams' },
      claims: [['P31', dv.item(5)]],
    });
    assert.deepEqual(labelsOf(buffer), {
      en: { language: 'en', value: 'Douglas "DNA" Adams' },
      de: { language: 'de', value: 'Douglas Adams' },
    });
    assert.equal(labelsOf(Buffer.from('{"id":"Q1"}')), undefined);
  });

  test('a whole dump text reads back to its entities', () => {
    const lines = [line({ id: 'Q1' }).toString(), line({ id: 'Q2' }).toString()];
    const { lines: seen } = read(dumpText(lines), 10);
    assert.deepEqual(
      seen.map(([, text]) => text),
      lines,
    );
  });
});
