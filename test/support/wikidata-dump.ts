/**
 * Wikidata dump lines in the exact shape of the JSON dumps (`latest-all.json`): entities with
 * labels, descriptions, aliases, claims (statements with mainsnak, qualifiers and their order,
 * ranks, references), sitelinks and page fields, every data value type the dumps use. Used by
 * the Wikidata import's tests (a fixture of hand-written cases plus seeded filler) and by its
 * benchmark (a large synthetic dump of a realistic mix of entities, with a fixed seed).
 */
import type { Writable } from 'node:stream';

/** A seeded generator (mulberry32): the same seed gives the same dump. */
export class Seeded {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  hex(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.next() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }
}

/** The datatype of each property the builders use (what the dumps write in `datatype`). */
const DATATYPES: Readonly<Record<string, string>> = {
  P18: 'commonsMedia',
  P154: 'commonsMedia',
  P213: 'external-id',
  P214: 'external-id',
  P227: 'external-id',
  P244: 'external-id',
  P281: 'string',
  P304: 'string',
  P356: 'external-id',
  P433: 'string',
  P478: 'string',
  P496: 'external-id',
  P569: 'time',
  P570: 'time',
  P571: 'time',
  P576: 'time',
  P577: 'time',
  P580: 'time',
  P582: 'time',
  P585: 'time',
  P813: 'time',
  P625: 'globe-coordinate',
  P856: 'url',
  P854: 'url',
  P4656: 'url',
  P946: 'external-id',
  P1128: 'quantity',
  P1082: 'quantity',
  P1278: 'external-id',
  P1320: 'external-id',
  P1448: 'monolingualtext',
  P1476: 'monolingualtext',
  P1545: 'string',
  P1813: 'monolingualtext',
  P2002: 'external-id',
  P2003: 'external-id',
  P2013: 'external-id',
  P2037: 'external-id',
  P2088: 'external-id',
  P2093: 'string',
  P2397: 'external-id',
  P4264: 'external-id',
  P6375: 'monolingualtext',
  P6634: 'external-id',
  P225: 'string',
  P684: 'string',
};

/** A data value: the `datavalue` of a snak. */
export type DataValue = { readonly value: unknown; readonly type: string };

export const dv = {
  item: (n: number): DataValue => ({
    value: { 'entity-type': 'item', 'numeric-id': n, id: `Q${n}` },
    type: 'wikibase-entityid',
  }),
  /** `time` as Wikidata writes it (`+1952-03-11T00:00:00Z`, month/day `00` when unknown). */
  time: (time: string, precision: number, calendar = 'Q1985727'): DataValue => ({
    value: {
      time,
      timezone: 0,
      before: 0,
      after: 0,
      precision,
      calendarmodel: `http://www.wikidata.org/entity/${calendar}`,
    },
    type: 'time',
  }),
  quantity: (amount: number, unit = '1'): DataValue => ({
    value: { amount: `${amount >= 0 ? '+' : ''}${amount}`, unit },
    type: 'quantity',
  }),
  string: (value: string): DataValue => ({ value, type: 'string' }),
  text: (text: string, language: string): DataValue => ({
    value: { text, language },
    type: 'monolingualtext',
  }),
  globe: (latitude: number, longitude: number): DataValue => ({
    value: {
      latitude,
      longitude,
      altitude: null,
      precision: 0.0001,
      globe: 'http://www.wikidata.org/entity/Q2',
    },
    type: 'globecoordinate',
  }),
};

/** A snak value: a data value, or no value / an unknown value. */
export type SnakValue = DataValue | 'novalue' | 'somevalue';

/** Fresh hashes and statement GUIDs (deterministic: from their own seeded generator). */
const ids = new Seeded(7);

export function snak(property: string, value: SnakValue): Record<string, unknown> {
  const datatype = DATATYPES[property] ?? 'wikibase-item';
  if (value === 'novalue' || value === 'somevalue') {
    return { snaktype: value, property, hash: ids.hex(40), datatype };
  }
  return { snaktype: 'value', property, hash: ids.hex(40), datavalue: value, datatype };
}

export interface StatementOptions {
  readonly rank?: 'preferred' | 'normal' | 'deprecated';
  readonly qualifiers?: readonly (readonly [string, SnakValue])[];
  /** Each reference: its snaks. */
  readonly references?: readonly (readonly (readonly [string, SnakValue])[])[];
}

function snakMap(pairs: readonly (readonly [string, SnakValue])[]): {
  snaks: Record<string, unknown[]>;
  order: string[];
} {
  const snaks: Record<string, unknown[]> = {};
  const order: string[] = [];
  for (const [property, value] of pairs) {
    if (!snaks[property]) {
      snaks[property] = [];
      order.push(property);
    }
    snaks[property].push(snak(property, value));
  }
  return { snaks, order };
}

function guid(): string {
  const h = ids.hex(32).toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A statement as the dumps write it: mainsnak, type, qualifiers and their order, id, rank, references. */
export function statement(
  entityId: string,
  property: string,
  value: SnakValue,
  options: StatementOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { mainsnak: snak(property, value), type: 'statement' };
  if (options.qualifiers && options.qualifiers.length > 0) {
    const { snaks, order } = snakMap(options.qualifiers);
    out.qualifiers = snaks;
    out['qualifiers-order'] = order;
  }
  out.id = `${entityId}$${guid()}`;
  out.rank = options.rank ?? 'normal';
  if (options.references && options.references.length > 0) {
    out.references = options.references.map((pairs) => {
      const { snaks, order } = snakMap(pairs);
      return { hash: ids.hex(40), snaks, 'snaks-order': order };
    });
  }
  return out;
}

/** A claim: property, value and statement options (the builders' input). */
export type Claim = readonly [string, SnakValue, StatementOptions?];

export interface EntitySpec {
  /** `Q…`. */
  readonly id: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly descriptions?: Readonly<Record<string, string>>;
  readonly aliases?: Readonly<Record<string, readonly string[]>>;
  readonly claims?: readonly Claim[];
  /** Site (`enwiki`) → article title. */
  readonly sitelinks?: Readonly<Record<string, string>>;
}

function terms(map: Readonly<Record<string, string>> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [language, value] of Object.entries(map ?? {})) out[language] = { language, value };
  return out;
}

/** An entity as the dumps write it, keys in their order. */
export function entity(spec: EntitySpec): Record<string, unknown> {
  const claims: Record<string, unknown[]> = {};
  for (const [property, value, options] of spec.claims ?? []) {
    claims[property] ??= [];
    claims[property].push(statement(spec.id, property, value, options));
  }
  const aliases: Record<string, unknown> = {};
  for (const [language, values] of Object.entries(spec.aliases ?? {})) {
    aliases[language] = values.map((value) => ({ language, value }));
  }
  const sitelinks: Record<string, unknown> = {};
  for (const [site, title] of Object.entries(spec.sitelinks ?? {}))
    sitelinks[site] = { site, title, badges: [] };
  const n = Number(spec.id.slice(1));
  return {
    type: 'item',
    id: spec.id,
    labels: terms(spec.labels),
    descriptions: terms(spec.descriptions),
    aliases,
    claims,
    sitelinks,
    pageid: 100 + n,
    ns: 0,
    title: spec.id,
    lastrevid: 2_000_000_000 + n,
    modified: '2025-01-15T08:30:00Z',
  };
}

/** A dump file's text: `[`, one entity per line followed by `,` (but the last), `]`. */
export function dumpText(lines: readonly string[]): string {
  return `[\n${lines.join(',\n')}\n]\n`;
}

/** The usual reference of a statement: stated in (P248) a database, retrieved (P813) on a day. */
export function statedIn(source: number): readonly (readonly [string, SnakValue])[] {
  return [
    ['P248', dv.item(source)],
    ['P813', dv.time('+2024-06-01T00:00:00Z', 11)],
  ];
}

/** The reference "imported from English Wikipedia" (P143, Q328) with its import URL (P4656). */
export function fromWikipedia(title: string): readonly (readonly [string, SnakValue])[] {
  return [
    ['P143', dv.item(328)],
    [
      'P4656',
      dv.string(`https://en.wikipedia.org/w/index.php?title=${encodeURIComponent(title)}&oldid=1000`),
    ],
  ];
}

// biome-ignore format: a table
const LANGUAGES = [
  'en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'ru', 'pl', 'sv', 'uk', 'ja', 'zh', 'ar', 'fa', 'ca', 'cs',
  'fi', 'hu', 'ko', 'tr', 'he', 'id', 'vi', 'ro', 'nb', 'da', 'el', 'bg', 'sr', 'eo', 'et', 'lt', 'sk',
  'sl', 'hr', 'eu', 'gl', 'hi', 'bn', 'ta', 'te', 'th', 'ms', 'af', 'sq', 'hy', 'az', 'ka', 'kk', 'lv',
  'mk', 'mn', 'ur', 'uz', 'be', 'ga', 'cy', 'is', 'lb', 'la', 'oc', 'br', 'ast', 'an', 'fy', 'gd', 'sco',
];

// biome-ignore format: a table
const SYLLABLES = [
  'ka', 'lo', 'mi', 'ran', 'tos', 'vel', 'dor', 'ne', 'sa', 'bri', 'gan', 'hol', 'jun', 'ler', 'mar',
  'nor', 'pel', 'ris', 'sun', 'tar', 'ul', 'ven', 'wil', 'yor', 'zan', 'cor', 'fen', 'gol', 'ith', 'qua',
];

function word(random: Seeded, min = 2, max = 3): string {
  let out = '';
  const count = random.int(min, max);
  for (let i = 0; i < count; i++) out += random.pick(SYLLABLES);
  return out.charAt(0).toUpperCase() + out.slice(1);
}

/** Pools of shared items the synthetic entities refer to (places, occupations, names, journals). */
export interface SyntheticPools {
  readonly countries: readonly number[];
  readonly cityBase: number;
  readonly cities: number;
  readonly occupationBase: number;
  readonly occupations: number;
  readonly industryBase: number;
  readonly industries: number;
  readonly givenNameBase: number;
  readonly givenNames: number;
  readonly familyNameBase: number;
  readonly familyNames: number;
  readonly journalBase: number;
  readonly journals: number;
}

/**
 * The pools of a dump of `entities` entity lines: they grow with it (a larger dump refers to more
 * distinct places and names), about 5% of its lines in all. Item numbers: pools from 1,000,001,
 * entities from 100,000,000 on.
 */
export function syntheticPools(entities: number): SyntheticPools {
  const size = (share: number, least: number) => Math.max(least, Math.round(entities * share));
  const cities = size(0.02, 200);
  const occupations = size(0.003, 50);
  const industries = size(0.0005, 20);
  const givenNames = size(0.005, 100);
  const familyNames = size(0.02, 200);
  const journals = size(0.005, 50);
  let base = 1_000_000;
  const next = (count: number) => {
    const start = base;
    base += count;
    return start;
  };
  return {
    countries: [30, 183, 142, 145, 38, 17, 148, 668, 155, 96, 16, 408, 29, 31, 39],
    cityBase: next(cities),
    cities,
    occupationBase: next(occupations),
    occupations,
    industryBase: next(industries),
    industries,
    givenNameBase: next(givenNames),
    givenNames,
    familyNameBase: next(familyNames),
    familyNames,
    journalBase: next(journals),
    journals,
  };
}

/** Item number of the synthetic dump's entity `index`. */
const ENTITY_BASE = 100_000_000;

/** The kinds of entity of the synthetic dump, with their share of its lines (about Wikidata's own). */
export const SYNTHETIC_MIX: readonly (readonly [string, number])[] = [
  ['scholarly article', 0.4],
  ['human', 0.11],
  ['organization', 0.025],
  ['taxon', 0.035],
  ['human settlement', 0.045],
  ['category', 0.05],
  ['astronomical object', 0.08],
  ['gene or protein', 0.02],
  ['family or given name', 0.015],
  ['other', 0.22],
];

/** An entity of the synthetic dump: a function of (seed, index) only, so any size is deterministic. */
export function syntheticEntity(seed: number, index: number, pools: SyntheticPools): string {
  const random = new Seeded(seed * 1_000_003 + index);
  // Item numbers: the shared items come first, then one per line.
  const n = ENTITY_BASE + index;
  const id = `Q${n}`;
  let roll = random.next();
  let kind = 'other';
  for (const [name, share] of SYNTHETIC_MIX) {
    if (roll < share) {
      kind = name;
      break;
    }
    roll -= share;
  }
  const ref = () => [statedIn(random.pick([36578, 54919, 17299517, 19938912, 423048]))];
  const langs = (count: number) => {
    const out = new Set(['en']);
    while (out.size < Math.min(count, LANGUAGES.length)) out.add(random.pick(LANGUAGES));
    return [...out];
  };
  // Most items have few labels; famous ones have hundreds (the heavy tail of line sizes).
  const labelCount = () => (random.next() < 0.9 ? random.int(1, 6) : random.int(20, LANGUAGES.length));
  const ids = (count: number, min: number, max: number): Claim[] =>
    Array.from({ length: count }, (_, i) => [
      random.pick(['P214', 'P213', 'P227', 'P244', 'P496', 'P356']),
      dv.string(`${random.int(min, max)}${i}`),
      { references: ref() },
    ]);
  switch (kind) {
    case 'scholarly article': {
      const title = `${word(random, 3, 4)} of ${word(random)} ${word(random)} in ${word(random)}`;
      const authors = random.next() < 0.85 ? random.int(1, 6) : random.int(8, 30);
      const citing = random.next();
      // A heavy tail, as in the dumps: a few articles cite hundreds of works.
      const cites =
        citing < 0.7
          ? 0
          : citing < 0.93
            ? random.int(1, 12)
            : citing < 0.99
              ? random.int(15, 60)
              : random.int(100, 400);
      const claims: Claim[] = [
        ['P31', dv.item(13442814), { references: ref() }],
        ['P1476', dv.text(title, 'en'), { references: ref() }],
        [
          'P577',
          dv.time(
            `+${random.int(1950, 2024)}-${String(random.int(1, 12)).padStart(2, '0')}-00T00:00:00Z`,
            10,
          ),
          { references: ref() },
        ],
        ['P1433', dv.item(pools.journalBase + random.int(1, pools.journals)), { references: ref() }],
        ['P356', dv.string(`10.${random.int(1000, 9999)}/${random.hex(10)}`), { references: ref() }],
        ['P478', dv.string(String(random.int(1, 300)))],
        ['P304', dv.string(`${random.int(1, 500)}-${random.int(501, 999)}`)],
      ];
      for (let a = 0; a < authors; a++) {
        claims.push([
          'P2093',
          dv.string(`${word(random)} ${word(random)}`),
          { qualifiers: [['P1545', dv.string(String(a + 1))]] },
        ]);
      }
      for (let c = 0; c < cites; c++)
        claims.push(['P2860', dv.item(ENTITY_BASE + random.int(0, index + 1000))]);
      return JSON.stringify(
        entity({
          id,
          labels: { en: title },
          descriptions: { en: `scholarly article published ${random.int(1950, 2024)}` },
          claims,
        }),
      );
    }
    case 'human': {
      const given = pools.givenNameBase + random.int(1, pools.givenNames);
      const family = pools.familyNameBase + random.int(1, pools.familyNames);
      const name = `${word(random)} ${word(random)}`;
      const labels: Record<string, string> = {};
      for (const language of langs(labelCount())) labels[language] = name;
      const claims: Claim[] = [
        ['P31', dv.item(5), { references: ref() }],
        ['P21', dv.item(random.next() < 0.5 ? 6581097 : 6581072), { references: ref() }],
        ['P27', dv.item(random.pick(pools.countries)), { references: ref() }],
        [
          'P569',
          dv.time(
            `+${random.int(1900, 2000)}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}T00:00:00Z`,
            11,
          ),
          { references: ref() },
        ],
        ['P19', dv.item(pools.cityBase + random.int(1, pools.cities)), { references: ref() }],
        ['P735', dv.item(given)],
        ['P734', dv.item(family)],
      ];
      for (let o = random.int(1, 3); o > 0; o--)
        claims.push([
          'P106',
          dv.item(pools.occupationBase + random.int(1, pools.occupations)),
          { references: ref() },
        ]);
      // Employers: organizations of this dump, found by index (about 1 line in 40 is one).
      for (let e = random.next() < 0.3 ? random.int(1, 2) : 0; e > 0; e--) {
        claims.push([
          'P108',
          dv.item(ENTITY_BASE + random.int(0, index + 1000)),
          {
            qualifiers: [['P580', dv.time(`+${random.int(1990, 2020)}-00-00T00:00:00Z`, 9)]],
            references: ref(),
          },
        ]);
      }
      claims.push(...ids(random.int(1, 12), 10000, 99999999));
      return JSON.stringify(
        entity({
          id,
          labels,
          descriptions: { en: 'person' },
          aliases: random.next() < 0.3 ? { en: [`${name.split(' ')[0][0]}. ${name.split(' ')[1]}`] } : {},
          claims,
          sitelinks: random.next() < 0.2 ? { enwiki: name } : {},
        }),
      );
    }
    case 'organization': {
      const name = `${word(random)} ${random.pick(['Systems', 'Industries', 'University', 'Bank', 'Group', 'Foundation', 'Labs'])}`;
      const host = `${name.toLowerCase().replace(/[^a-z]+/g, '-')}-${n}.example`;
      const labels: Record<string, string> = {};
      for (const language of langs(labelCount())) labels[language] = name;
      const claims: Claim[] = [
        [
          'P31',
          dv.item(random.pick([4830453, 783794, 891723, 3918, 163740, 327333, 43229])),
          { references: ref() },
        ],
        ['P856', dv.string(`https://www.${host}/`), { references: ref() }],
        ['P17', dv.item(random.pick(pools.countries)), { references: ref() }],
        ['P159', dv.item(pools.cityBase + random.int(1, pools.cities)), { references: ref() }],
        ['P571', dv.time(`+${random.int(1800, 2020)}-00-00T00:00:00Z`, 9), { references: ref() }],
        ['P452', dv.item(pools.industryBase + random.int(1, pools.industries))],
        [
          'P1128',
          dv.quantity(random.int(5, 200000)),
          { qualifiers: [['P585', dv.time('+2023-00-00T00:00:00Z', 9)]], references: ref() },
        ],
      ];
      claims.push(...ids(random.int(0, 8), 1000, 9999999));
      return JSON.stringify(
        entity({
          id,
          labels,
          descriptions: { en: 'organization' },
          claims,
          sitelinks: random.next() < 0.3 ? { enwiki: name } : {},
        }),
      );
    }
    case 'human settlement': {
      const name = word(random, 2, 4);
      const labels: Record<string, string> = {};
      for (const language of langs(labelCount() + 3)) labels[language] = name;
      const claims: Claim[] = [
        ['P31', dv.item(486972), { references: ref() }],
        ['P17', dv.item(random.pick(pools.countries)), { references: ref() }],
        [
          'P625',
          dv.globe(random.int(-600000, 600000) / 10000, random.int(-1800000, 1800000) / 10000),
          { references: ref() },
        ],
        ['P131', dv.item(pools.cityBase + random.int(1, pools.cities))],
      ];
      for (let p = random.int(0, 8); p > 0; p--)
        claims.push([
          'P1082',
          dv.quantity(random.int(100, 2000000)),
          {
            qualifiers: [['P585', dv.time(`+${random.int(1900, 2020)}-00-00T00:00:00Z`, 9)]],
            references: ref(),
          },
        ]);
      claims.push(...ids(random.int(1, 10), 1000, 9999999));
      return JSON.stringify(
        entity({ id, labels, descriptions: { en: 'settlement' }, claims, sitelinks: { enwiki: name } }),
      );
    }
    case 'taxon': {
      const name = `${word(random)} ${word(random).toLowerCase()}`;
      return JSON.stringify(
        entity({
          id,
          labels: { en: name },
          claims: [
            ['P31', dv.item(16521), { references: ref() }],
            ['P225', dv.string(name), { references: ref() }],
            ['P105', dv.item(7432)],
            ['P171', dv.item(ENTITY_BASE + random.int(0, index + 10))],
            ...ids(random.int(2, 15), 1000, 9999999),
          ],
        }),
      );
    }
    case 'astronomical object':
      return JSON.stringify(
        entity({
          id,
          labels: {
            en: `${random.pick(['HD', 'TYC', 'Gaia DR3', '2MASS J'])} ${random.int(1000, 999999999)}`,
          },
          claims: [
            ['P31', dv.item(random.pick([523, 318, 1457376])), { references: ref() }],
            ['P59', dv.item(random.int(8000, 9000))],
            ...ids(random.int(1, 6), 1000, 9999999),
          ],
        }),
      );
    case 'category':
      return JSON.stringify(
        entity({
          id,
          labels: { en: `Category:${word(random)} ${word(random)}` },
          claims: [['P31', dv.item(4167836)]],
          sitelinks: { enwiki: `Category:${word(random)}` },
        }),
      );
    case 'gene or protein':
      return JSON.stringify(
        entity({
          id,
          labels: { en: `${word(random, 1, 1).toUpperCase()}${random.int(1, 99)}` },
          claims: [
            ['P31', dv.item(random.next() < 0.5 ? 7187 : 8054), { references: ref() }],
            ['P684', dv.string(`P${random.int(10000, 99999)}`)],
            ...ids(random.int(2, 10), 1000, 9999999),
          ],
        }),
      );
    case 'family or given name': {
      const name = word(random);
      return JSON.stringify(
        entity({
          id,
          labels: Object.fromEntries(langs(labelCount()).map((l) => [l, name])),
          claims: [['P31', dv.item(random.next() < 0.5 ? 101352 : 202444)]],
        }),
      );
    }
    default: {
      const name = `${word(random)} ${word(random)}`;
      // No P31 at all on some (Wikidata has several million such items).
      const claims: Claim[] =
        random.next() < 0.1 ? [] : [['P31', dv.item(random.int(100, 100000)), { references: ref() }]];
      claims.push(...ids(random.int(0, 6), 1000, 9999999));
      return JSON.stringify(
        entity({
          id,
          labels: Object.fromEntries(langs(labelCount()).map((l) => [l, name])),
          descriptions: { en: 'thing' },
          claims,
        }),
      );
    }
  }
}

/** The shared items the synthetic entities refer to (countries, cities, occupations, …), as lines. */
export function* syntheticSharedItems(pools: SyntheticPools): Generator<string> {
  const random = new Seeded(11);
  for (const n of pools.countries) {
    yield JSON.stringify(
      entity({
        id: `Q${n}`,
        labels: { en: `Country ${n}`, mul: `Country ${n}` },
        claims: [['P31', dv.item(6256)]],
      }),
    );
  }
  const named = (base: number, count: number, cls: number, prefix: string) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify(
        entity({
          id: `Q${base + i + 1}`,
          labels: { en: `${prefix}${word(random)}` },
          claims: [['P31', dv.item(cls)]],
        }),
      ),
    );
  yield* named(pools.cityBase, pools.cities, 515, '');
  yield* named(pools.occupationBase, pools.occupations, 28640, 'occupation ');
  yield* named(pools.industryBase, pools.industries, 268592, 'industry ');
  yield* named(pools.givenNameBase, pools.givenNames, 202444, '');
  yield* named(pools.familyNameBase, pools.familyNames, 101352, '');
  yield* named(pools.journalBase, pools.journals, 5633421, 'Journal of ');
}

/**
 * Writes a synthetic dump of `entities` entity lines after the shared items (about 5% more lines),
 * waiting for the stream to drain. Returns the lines written (shared items included).
 */
export async function writeSyntheticDump(out: Writable, entities: number, seed = 1): Promise<number> {
  let lines = 0;
  let first = true;
  const write = async (line: string) => {
    const ok = out.write(first ? `[\n${line}` : `,\n${line}`);
    first = false;
    lines++;
    if (!ok) await new Promise<void>((resolve) => out.once('drain', resolve));
  };
  const pools = syntheticPools(entities);
  for (const line of syntheticSharedItems(pools)) await write(line);
  for (let i = 0; i < entities; i++) await write(syntheticEntity(seed, i, pools));
  out.write('\n]\n');
  return lines;
}
