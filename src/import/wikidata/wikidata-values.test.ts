import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dv } from '../../../test/support/wikidata-dump.ts';
import type { DataValue, TimeValue } from './wikidata-json.ts';
import {
  amountOf,
  commonsFileUrl,
  coordinatesOf,
  dateFactOf,
  hostOf,
  itemNumber,
  itemOf,
  textOf,
} from './wikidata-values.ts';

const time = (t: string, precision: number) => (dv.time(t, precision) as { value: TimeValue }).value;

test('dateFactOf: precisions 11, 10, 9 to day, month, year; coarser ones and year 0 state no date', () => {
  assert.deepEqual(dateFactOf(time('+1952-03-11T00:00:00Z', 11)), { str: 'd1952-03-11', precision: 3 });
  assert.deepEqual(dateFactOf(time('+1952-03-11T10:30:00Z', 14)), { str: 'd1952-03-11', precision: 3 });
  assert.deepEqual(dateFactOf(time('+1952-03-00T00:00:00Z', 10)), { str: 'd1952-03', precision: 2 });
  assert.deepEqual(dateFactOf(time('+1952-00-00T00:00:00Z', 9)), { str: 'd1952', precision: 1 });
  assert.deepEqual(dateFactOf(time('+00000001952-01-01T00:00:00Z', 9)), { str: 'd1952', precision: 1 });
  assert.deepEqual(dateFactOf(time('+0800-12-25T00:00:00Z', 11)), { str: 'd0800-12-25', precision: 3 });
  assert.equal(dateFactOf(time('+1950-00-00T00:00:00Z', 8)), undefined, 'a decade');
  assert.equal(dateFactOf(time('+0000-00-00T00:00:00Z', 9)), undefined);
  assert.equal(dateFactOf(time('1952', 9)), undefined);
});

test('dateFactOf: BC years keep their numbering; unknown parts lower the precision', () => {
  assert.deepEqual(dateFactOf(time('-0044-03-15T00:00:00Z', 11)), { str: 'd-0044-03-15', precision: 3 });
  assert.deepEqual(dateFactOf(time('-13798000000-00-00T00:00:00Z', 9)), {
    str: 'd-13798000000',
    precision: 1,
  });
  assert.deepEqual(dateFactOf(time('+1952-00-00T00:00:00Z', 11)), { str: 'd1952', precision: 1 });
  assert.deepEqual(dateFactOf(time('+1952-04-00T00:00:00Z', 11)), { str: 'd1952-04', precision: 2 });
});

test('amounts, items, texts, hosts, coordinates and Commons files', () => {
  assert.equal(amountOf(dv.quantity(135301) as DataValue), 135301);
  assert.equal(amountOf(dv.quantity(-3.5) as DataValue), -3.5);
  assert.equal(
    amountOf(dv.quantity(12, 'http://www.wikidata.org/entity/Q11573') as DataValue),
    undefined,
    'metres',
  );
  assert.equal(itemNumber('Q42'), 42);
  for (const id of ['P31', 'Q', 'Q0', 'Q4a', 'L1', 42]) assert.equal(itemNumber(id), undefined);
  assert.equal(itemOf(dv.item(95) as DataValue), 95);
  assert.equal(itemOf(dv.string('Q95') as DataValue), undefined);
  assert.equal(textOf(dv.text(' Acme ', 'en') as DataValue), 'Acme');
  assert.equal(textOf(dv.string('  ') as DataValue), undefined);
  assert.equal(hostOf('https://WWW.Example.com:8080/path?q=1'), 'example.com');
  assert.deepEqual(coordinatesOf(dv.globe(51.5, -0.12) as DataValue), { latitude: 51.5, longitude: -0.12 });
  const mars = {
    type: 'globecoordinate',
    value: {
      latitude: 1,
      longitude: 2,
      altitude: null,
      precision: 1,
      globe: 'http://www.wikidata.org/entity/Q111',
    },
  };
  assert.equal(coordinatesOf(mars as DataValue), undefined, 'not on Earth');
  assert.equal(
    commonsFileUrl('Jane Doe (2019) é.jpg'),
    'https://commons.wikimedia.org/wiki/Special:FilePath/Jane_Doe_(2019)_%C3%A9.jpg',
  );
});
