/**
 * Hand-made bulk enhance results for the export tests, and a collector for writer output.
 */
import { Writable } from 'node:stream';
import type { ExportEntity, ResultRecord } from '../src/export/index.ts';
import { Random } from '../src/random.ts';

/** Builds a result record: `matches` become `response.data` items (score 0.9 unless given). */
export function resultRecord(
  index: number,
  query: Record<string, unknown>,
  matches: readonly { entity: ExportEntity; score?: number; esscore?: number }[] = [],
): ResultRecord {
  return {
    index,
    query,
    response: {
      version: 3,
      hits: matches.length,
      kgversion: 'test-1',
      request_ctx: { query, query_ctx: { index } },
      data: matches.map((match) => ({
        score: match.score ?? 0.9,
        esscore: match.esscore ?? 10,
        entity: match.entity,
      })),
      errors: [],
    },
  };
}

/** A Person shaped like the reference ontology, with nested objects and lists. */
export const ADA: ExportEntity = Object.freeze({
  id: 'PER-ada',
  type: 'Person',
  name: 'Ada Lovelace',
  allNames: ['Ada Lovelace', 'Augusta Ada King', 'Countess of Lovelace', 'A. A. L.'],
  homepageUri: 'ada.example.org',
  location: { city: { name: 'London' }, country: { name: 'United Kingdom' } },
  locations: [
    { city: { name: 'London' }, country: { name: 'United Kingdom' }, isCurrent: true },
    { city: { name: 'Ockham' }, country: { name: 'United Kingdom' } },
  ],
  phoneNumbers: [{ string: '+44 20 7946 0000', digits: '+442079460000' }],
  emailAddresses: [{ contactString: 'ada@example.org' }],
  employments: [
    { employer: { name: 'Analytical Engine Co', id: 'ORG-ae' }, title: 'Programmer', isCurrent: true },
    { employer: { name: 'Royal Society' }, title: 'Correspondent' },
    { employer: { name: 'Babbage Lab' }, isCurrent: false },
  ],
  birthDate: { str: 'd1815-12-10', precision: 3 },
  importance: 88.5,
});

export const ACME: ExportEntity = Object.freeze({
  id: 'ORG-acme',
  type: 'Organization',
  name: 'Acme, "the" Company',
  allNames: ['Acme', 'Acme Corp'],
  homepageUri: 'acme.example.com',
  nbEmployees: 1200,
  location: { city: { name: 'Zürich' }, country: { name: 'Switzerland' } },
});

/** A writable that keeps everything written; `text()` / `buffer()` once it has finished. */
export class Collector extends Writable {
  readonly #chunks: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#chunks.push(chunk);
    callback();
  }

  buffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }
}

/** A deterministic PRNG (the project's mulberry32) so generated fixtures are the same on every run. */
export function seededRandom(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

const WORDS = [
  'Acme',
  'Zürich',
  'Ünïcödé',
  '東京',
  'São Paulo',
  'Ελληνικά',
  'emoji 😀',
  'quote "q"',
  'comma, here',
  'semi;colon',
  'new\nline',
  'crlf\r\nline',
  ' leading',
  'trailing ',
  'tab\tinside',
  '&amp; <tag>',
  '=SUM(A1)',
  'plain',
];
// Text that looks like a SpreadsheetML _xHHHH_ escape: Excel and SheetJS decode escapes, exceljs
// does not, so only the `controls` fixtures (read back with SheetJS) contain it.
const ESCAPE_LIKE = '_x0041_ literal';

export interface GeneratedOptions {
  /** Include C0 control characters in some names and text like `_x0041_` (xlsx escapes both). */
  controls?: boolean;
}

/**
 * `count` varied result records (seeded): Persons and Organizations with unicode, quotes,
 * commas, newlines and padding in their texts, integer and fractional numbers, lists, no
 * match (every 7th record) and two matches (every 5th).
 */
export function generatedRecords(count: number, seed = 42, options: GeneratedOptions = {}): ResultRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const words = options.controls ? [...WORDS, ESCAPE_LIKE] : WORDS;
  const text = (count: number) => Array.from({ length: count }, () => pick(words)).join(' ');
  const entity = (i: number, k: number): ExportEntity => {
    const person = random() < 0.5;
    const out: ExportEntity = {
      id: `${person ? 'PER' : 'ORG'}-${i}-${k}`,
      type: person ? 'Person' : 'Organization',
      name: text(1 + Math.floor(random() * 3)) + (options.controls && i % 11 === 0 ? '\u0001\u001f' : ''),
    };
    if (random() < 0.7) out.allNames = Array.from({ length: 1 + Math.floor(random() * 4) }, () => text(2));
    if (random() < 0.6) out.homepageUri = `www.example-${i}.com`;
    if (random() < 0.5)
      out.location = { city: { name: pick(WORDS) }, country: { name: pick(['France', 'Japan']) } };
    if (random() < 0.4) out.nbEmployees = Math.floor(random() * 100000);
    if (random() < 0.3) out.importance = Math.round(random() * 1e6) / 1e4;
    if (random() < 0.3) out.description = text(12);
    if (person && random() < 0.6) {
      out.employments = [{ employer: { name: text(1) }, title: text(1), isCurrent: true }];
    }
    return out;
  };
  return Array.from({ length: count }, (_, i) => {
    const query: Record<string, unknown> = { type: 'Organization', name: [text(1)] };
    if (i % 3 === 0) query.url = [`example-${i}.com`, `alt-${i}.org`];
    if (i % 4 !== 0) query.customId = `cid-${i}`;
    const matches =
      i % 7 === 0
        ? []
        : Array.from({ length: i % 5 === 0 ? 2 : 1 }, (_, k) => ({
            entity: entity(i, k),
            score: Math.round(random() * 1e6) / 1e6,
            esscore: random() * 50,
          }));
    return resultRecord(i, query, matches);
  });
}
