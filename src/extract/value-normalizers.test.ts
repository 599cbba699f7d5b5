import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  countryOfHost,
  currencyCode,
  formatHttpDate,
  normalizeAvailability,
  parseDate,
  parsePrice,
  toDateFact,
  toPhoneNumber,
} from './value-normalizers.ts';

describe('dates', () => {
  test('parses the forms pages use and formats them as the reference API does', () => {
    assert.equal(formatHttpDate(parseDate('2024-03-05T09:30:00+01:00')!), 'Tue, 05 Mar 2024 08:30:00 GMT');
    assert.equal(formatHttpDate(parseDate('2024-03-05')!), 'Tue, 05 Mar 2024 00:00:00 GMT');
    assert.equal(formatHttpDate(parseDate('March 5, 2024 UTC')!), 'Tue, 05 Mar 2024 00:00:00 GMT');
    assert.equal(formatHttpDate(parseDate('2024/03/05')!), 'Tue, 05 Mar 2024 00:00:00 GMT');
    assert.equal(formatHttpDate(parseDate('Tuesday, March 5th, 2024 UTC')!), 'Tue, 05 Mar 2024 00:00:00 GMT');
    assert.equal(parseDate('not a date'), undefined);
    assert.equal(parseDate('1066-10-14'), undefined);
    assert.equal(parseDate(''), undefined);
  });

  test('builds knowledge-graph date facts with their precision', () => {
    assert.deepEqual(toDateFact('2009'), {
      str: 'd2009-XX-XX',
      precision: 1,
      timestamp: Date.UTC(2009, 0, 1),
    });
    assert.deepEqual(toDateFact('2009-06'), {
      str: 'd2009-06-XX',
      precision: 2,
      timestamp: Date.UTC(2009, 5, 1),
    });
    assert.deepEqual(toDateFact('1978-04-12'), {
      str: 'd1978-04-12',
      precision: 3,
      timestamp: Date.UTC(1978, 3, 12),
    });
    assert.equal(toDateFact('soon'), undefined);
  });
});

describe('prices', () => {
  test('reads amounts with either decimal convention and the currency next to them', () => {
    assert.deepEqual(parsePrice('$1,299.99'), {
      amount: 1299.99,
      text: '$1,299.99',
      symbol: '$',
      currency: 'USD',
    });
    assert.deepEqual(parsePrice('1.299,99 €'), {
      amount: 1299.99,
      text: '1.299,99 €',
      symbol: '€',
      currency: 'EUR',
    });
    assert.deepEqual(parsePrice('24,50 €'), { amount: 24.5, text: '24,50 €', symbol: '€', currency: 'EUR' });
    assert.deepEqual(parsePrice('EUR 12.50'), { amount: 12.5, text: 'EUR 12.50', currency: 'EUR' });
    assert.deepEqual(parsePrice('Now only £12'), { amount: 12, text: '£12', symbol: '£', currency: 'GBP' });
    assert.deepEqual(parsePrice('1,299'), { amount: 1299, text: '1,299' });
    assert.deepEqual(parsePrice('2.499.000 ₫'), {
      amount: 2499000,
      text: '2.499.000 ₫',
      symbol: '₫',
      currency: 'VND',
    });
    assert.equal(parsePrice('19.99', 'usd')?.currency, 'USD');
    assert.equal(parsePrice('free'), undefined);
  });

  test('maps symbols and codes to ISO 4217', () => {
    assert.equal(currencyCode('€'), 'EUR');
    assert.equal(currencyCode('gbp'), 'GBP');
    assert.equal(currencyCode('R$'), 'BRL');
    assert.equal(currencyCode('¤'), undefined);
  });
});

describe('availability', () => {
  test('normalises schema.org values and free text', () => {
    assert.deepEqual(normalizeAvailability('https://schema.org/InStock'), {
      status: 'InStock',
      available: true,
    });
    assert.deepEqual(normalizeAvailability('http://schema.org/OutOfStock'), {
      status: 'OutOfStock',
      available: false,
    });
    assert.deepEqual(normalizeAvailability('PreOrder'), { status: 'PreOrder', available: true });
    assert.deepEqual(normalizeAvailability('in stock'), { status: 'InStock', available: true });
    assert.deepEqual(normalizeAvailability('Sold out'), { status: 'SoldOut', available: false });
    assert.equal(normalizeAvailability('maybe'), undefined);
  });
});

describe('phones and countries', () => {
  test('keeps the written form and adds E.164 digits when valid', () => {
    assert.deepEqual(toPhoneNumber('+1 (510) 555-0142'), {
      string: '+1 (510) 555-0142',
      digits: '+15105550142',
    });
    assert.deepEqual(toPhoneNumber('020 7946 0321', 'GB'), {
      string: '020 7946 0321',
      digits: '+442079460321',
    });
    assert.deepEqual(toPhoneNumber('555 0142 77'), { string: '555 0142 77' });
    assert.equal(toPhoneNumber('12-34'), undefined);
  });

  test('suggests a country from a country-code TLD', () => {
    assert.equal(countryOfHost('www.example.de'), 'DE');
    assert.equal(countryOfHost('shop.example.co.uk'), 'GB');
    assert.equal(countryOfHost('example.com'), undefined);
  });
});
