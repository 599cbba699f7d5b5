import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Collector } from '../../test/export-fixtures.ts';
import { OutputSink } from './output-sink.ts';

test('a flush writes strings (UTF-8) and buffers in order, byte for byte', async () => {
  const chunks: (string | Buffer)[] = [
    'ascii,',
    'Zoë 東京 😀,',
    'lone \ud800 surrogate,',
    Buffer.from([0, 255, 1]),
    '',
    'x'.repeat(70_000),
    Buffer.from('end\r\n'),
  ];
  const output = new Collector();
  const sink = new OutputSink(output);
  for (const chunk of chunks) if (sink.push(chunk)) await sink.flush();
  await sink.end();
  const expected = Buffer.concat(
    chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)),
  );
  assert.deepEqual(output.buffer(), expected);
  assert.equal(sink.bytes, expected.length);
});
