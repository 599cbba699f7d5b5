import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMAIL_NOISE, emailTokens, placeTokens } from './profile.ts';
import { Random } from './training/random.ts';

/** Seeded random strings over `alphabet`, up to `longest` characters. */
function samples(alphabet: string, longest: number, count: number): string[] {
  const random = new Random(11);
  const out = ['', alphabet];
  for (let n = 0; n < count; n++) {
    let sample = '';
    for (let length = random.int(longest + 1); length > 0; length--) {
      sample += alphabet[random.int(alphabet.length)];
    }
    out.push(sample);
  }
  return out;
}

test('emailTokens: runs of a-z of 3+ letters, noise labels left out, each once in order', () => {
  assert.deepEqual(emailTokens('mei.muller@nerenabe.example'), ['mei', 'muller', 'nerenabe', 'example']);
  assert.deepEqual(emailTokens('jo.x2y@mail.co.uk'), []);
  assert.deepEqual(emailTokens('ann.ann_smith@smith.com'), ['ann', 'smith']);
  // The rule as a regular expression (same noise labels), against seeded random addresses.
  const reference = (address: string) => [
    ...new Set(address.split(/[^a-z]+/).filter((t) => t.length >= 3 && !EMAIL_NOISE.has(t))),
  ];
  for (const address of samples('abcomw.@-_1é', 14, 4000)) {
    assert.deepEqual(emailTokens(address), reference(address), JSON.stringify(address));
  }
});

test('placeTokens: postcodes of 4-6 digits and words of 3+ characters not starting with a digit', () => {
  assert.deepEqual(placeTokens(['12', 'rue', 'de', 'la', '75001', 'paris', '1234567', '3rd', 'road']), [
    'rue',
    '75001',
    'paris',
  ]);
  const reference = (tokens: string[]) =>
    tokens.filter((t) => /^\d{4,6}$/.test(t) || (t.length >= 3 && !/^\d/.test(t)));
  const tokens = samples('0159ab', 8, 4000);
  assert.deepEqual(placeTokens(tokens), reference(tokens));
});
