/**
 * A seeded synthetic graph for matching benchmarks: organizations with realistic-looking names
 * (place + descriptor + kind + legal form), hosts, countries and phones; people with given names
 * and surnames drawn from skewed (Zipf-like) lists so that frequent tokens are frequent, e-mails,
 * cities and a current employer. Same seed and sizes → the same graph.
 */
import type { Entity } from '../../src/kg/index.ts';
import { indexEntity } from '../../src/match/index.ts';
import type { EntityStore, EntityWrite } from '../../src/storage/index.ts';
import { Random } from '../../src/random.ts';

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ten',
  'dor',
  'vel',
  'san',
  'bri',
  'sto',
  'nor',
  'wes',
  'ham',
  'ly',
  'ton',
  'ber',
  'gar',
  'fin',
  'mar',
  'cel',
  'dun',
  'ash',
  'el',
  'ro',
  'pen',
  'quin',
  'zu',
  'ha',
  'vik',
  'ol',
];
const DESCRIPTORS = [
  'Global',
  'United',
  'Advanced',
  'Northern',
  'Southern',
  'Pacific',
  'Atlantic',
  'Blue',
  'Green',
  'Red',
  'Silver',
  'Golden',
  'Bright',
  'Prime',
  'First',
  'National',
  'Royal',
  'Modern',
  'Digital',
  'Applied',
  'Integrated',
  'Smart',
  'Rapid',
  'Clear',
  'Open',
];
const KINDS = [
  'Systems',
  'Technologies',
  'Logistics',
  'Foods',
  'Energy',
  'Software',
  'Consulting',
  'Partners',
  'Holdings',
  'Labs',
  'Analytics',
  'Motors',
  'Pharma',
  'Capital',
  'Media',
  'Networks',
  'Robotics',
  'Bank',
  'Insurance',
  'University',
  'College',
  'Institute',
  'Hospital',
  'Foundation',
  'Studio',
];
const LEGAL = ['Inc', 'Ltd', 'GmbH', 'LLC', 'SA', 'Corp', 'BV', 'AG', 'PLC', ''];
const COUNTRIES = [
  'United States',
  'United Kingdom',
  'Germany',
  'France',
  'Japan',
  'Brazil',
  'India',
  'Canada',
  'Australia',
  'Spain',
  'Italy',
  'Mexico',
  'Netherlands',
  'Sweden',
  'Poland',
  'China',
  'South Africa',
  'Nigeria',
  'Argentina',
  'Korea, Republic of',
];
const TLDS = ['com', 'io', 'net', 'org', 'co.uk', 'de', 'fr', 'com.br', 'co.jp', 'in'];
const GIVEN = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'William',
  'Elizabeth',
  'David',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Daniel',
  'Nancy',
  'Matthew',
  'Lisa',
  'Anthony',
  'Betty',
  'Mark',
  'Sandra',
  'Paul',
  'Ashley',
  'Steven',
  'Emily',
  'Andrew',
  'Donna',
  'Kenneth',
  'Michelle',
  'Joshua',
  'Carol',
  'Kevin',
  'Amanda',
  'Brian',
  'Melissa',
  'George',
  'Deborah',
  'Timothy',
  'Stephanie',
  'Ronald',
  'Rebecca',
  'Jason',
  'Laura',
  'Oliver',
  'Amelia',
  'Noah',
  'Isla',
  'Leo',
  'Ava',
  'Arthur',
  'Mia',
  'Muhammad',
  'Ivy',
];
const CITIES = [
  'London',
  'Paris',
  'Berlin',
  'Madrid',
  'Rome',
  'Tokyo',
  'Sydney',
  'Toronto',
  'Chicago',
  'Boston',
  'Seattle',
  'Austin',
  'Denver',
  'Lyon',
  'Munich',
  'Hamburg',
  'Osaka',
  'Melbourne',
  'Leeds',
  'Bristol',
  'Glasgow',
  'Dublin',
  'Lisbon',
  'Porto',
  'Milan',
  'Turin',
  'Krakow',
  'Warsaw',
  'Prague',
  'Vienna',
];

function word(random: Random, syllables: number): string {
  let out = '';
  for (let i = 0; i < syllables; i++) out += random.pick(SYLLABLES);
  return out[0].toUpperCase() + out.slice(1);
}

/** Index in [0, n) with a Zipf-like skew (small indexes far more frequent). */
function skewed(random: Random, n: number): number {
  return Math.min(n - 1, Math.floor(n ** random.next() - 1));
}

/** A pool of invented surnames / place words, built once per seed. */
function pool(random: Random, size: number, syllables: [number, number]): string[] {
  const out = new Set<string>();
  while (out.size < size) out.add(word(random, syllables[0] + random.int(syllables[1] - syllables[0] + 1)));
  return [...out];
}

export interface GraphSizes {
  readonly organizations: number;
  readonly persons: number;
}

/** The entities of the synthetic graph, generated lazily in id order. */
export function* syntheticEntities(sizes: GraphSizes, seed: number): Generator<Entity> {
  const random = new Random(seed);
  const places = pool(random, 20_000, [2, 4]);
  const surnames = pool(random, 50_000, [2, 4]);
  for (let i = 0; i < sizes.organizations; i++) {
    const place = places[skewed(random, places.length)];
    const parts = [
      place,
      random.chance(0.5) ? random.pick(DESCRIPTORS) : '',
      random.pick(KINDS),
      random.pick(LEGAL),
    ];
    const name = parts.filter(Boolean).join(' ');
    const host = `${name
      .toLowerCase()
      .replace(/[^a-z]+/g, '')
      .slice(0, 18)}${i.toString(36)}.${random.pick(TLDS)}`;
    yield {
      id: `ORG-syn-${i}`,
      type: 'Organization',
      name,
      homepageUri: host,
      allUris: [host],
      location: { country: { name: random.pick(COUNTRIES) }, city: { name: random.pick(CITIES) } },
      ...(random.chance(0.3)
        ? { phoneNumbers: [{ string: `+1 202 555 ${String(1000 + (i % 9000)).padStart(4, '0')}` }] }
        : {}),
    };
  }
  for (let i = 0; i < sizes.persons; i++) {
    const first = GIVEN[skewed(random, GIVEN.length)];
    const last = surnames[skewed(random, surnames.length)];
    const employer = random.int(Math.max(1, sizes.organizations));
    yield {
      id: `PER-syn-${i}`,
      type: 'Person',
      name: `${first} ${last}`,
      nameDetail: { firstName: first, lastName: last },
      emailAddresses: [
        {
          contactString: `${first.toLowerCase()}.${last.toLowerCase()}${i.toString(36)}@example${i % 97}.com`,
        },
      ],
      location: { city: { name: random.pick(CITIES) } },
      employments: [
        {
          isCurrent: true,
          title: random.pick(['engineer', 'manager', 'analyst', 'director', 'designer']),
          employer: { id: `ORG-syn-${employer}`, name: `Employer ${employer}` },
        },
      ],
    };
  }
}

/**
 * Writes the synthetic graph into `store` in batches of 5,000; returns the time spent in
 * `indexEntity` alone (ms) and in total.
 */
export function writeSyntheticGraph(
  store: Pick<EntityStore, 'writeBatch'>,
  sizes: GraphSizes,
  seed: number,
  progress: (written: number) => void = () => {},
): { indexMs: number; totalMs: number; entities: number } {
  const started = performance.now();
  let indexMs = 0;
  let batch: EntityWrite[] = [];
  let written = 0;
  for (const doc of syntheticEntities(sizes, seed)) {
    const t = performance.now();
    const { profile, keys } = indexEntity(doc);
    indexMs += performance.now() - t;
    batch.push({ id: doc.id, type: doc.type, doc, ledger: null, profile, keys });
    if (batch.length === 5000) {
      store.writeBatch(batch);
      written += batch.length;
      batch = [];
      if (written % 100_000 === 0) progress(written);
    }
  }
  if (batch.length) store.writeBatch(batch);
  written += batch.length;
  return { indexMs, totalMs: performance.now() - started, entities: written };
}
