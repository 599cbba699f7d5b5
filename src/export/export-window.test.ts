import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resultRecord } from '../../test/export-fixtures.ts';
import { InvalidParameterError } from '../errors.ts';
import { exportWindow, windowRecords } from './export-window.ts';

const TEN = Array.from({ length: 10 }, (_, i) => resultRecord(i, {}));

async function indices(options: Parameters<typeof exportWindow>[0]): Promise<number[]> {
  const out: number[] = [];
  for await (const record of windowRecords(TEN, exportWindow(options))) out.push(record.index);
  return out;
}

describe('exportWindow', () => {
  test('defaults: everything', async () => {
    assert.deepEqual(exportWindow(), { offset: 0, limit: undefined });
    assert.deepEqual(await indices({}), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('from is 1-based; 0 and 1 both start at the first record', async () => {
    assert.deepEqual(await indices({ from: 3 }), [2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(await indices({ from: 0 }), await indices({ from: 1 }));
  });

  test('size counts from from; -1 means all; 0 means none', async () => {
    assert.deepEqual(await indices({ from: 3, size: 2 }), [2, 3]);
    assert.deepEqual(await indices({ size: -1 }), await indices({}));
    assert.deepEqual(await indices({ size: 0 }), []);
  });

  test('head returns the first n, and caps a from/size window', async () => {
    assert.deepEqual(await indices({ head: 2 }), [0, 1]);
    assert.deepEqual(await indices({ from: 5, size: 4, head: 2 }), [4, 5]);
    assert.deepEqual(await indices({ from: 9, size: 5, head: 4 }), [8, 9]);
    assert.deepEqual(await indices({ from: 20 }), []);
  });

  test('query-string values are parsed', () => {
    assert.deepEqual(exportWindow({ head: '3', from: '2', size: '-1' }), { offset: 1, limit: 3 });
  });

  for (const [options, parameter] of [
    [{ head: -1 }, 'head'],
    [{ from: '1.5' }, 'from'],
    [{ size: -2 }, 'size'],
    [{ size: 'all' }, 'size'],
  ] as const) {
    test(`400 on ${parameter}: ${JSON.stringify(options)}`, () => {
      assert.throws(
        () => exportWindow(options),
        (error: unknown) => error instanceof InvalidParameterError && error.parameter === parameter,
      );
    });
  }

  test('stops reading the source once the window is complete', async () => {
    let read = 0;
    function* counting() {
      for (const record of TEN) {
        read++;
        yield record;
      }
    }
    for await (const _ of windowRecords(counting(), exportWindow({ head: 3 })));
    assert.equal(read, 3);
  });
});
