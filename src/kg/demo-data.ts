/**
 * The demo knowledge graph: a deterministic, synthetic graph of any size.
 *
 * Everything here is fictitious and says so: names are made of generated syllables (no real
 * company), domains are under the reserved `.example` TLD, origins under
 * `https://demo.quarry.example/`, every description says "Quarry demo data", IPv4 ranges come from
 * the reserved 240.0.0.0/4 block and IPv6 ranges from the documentation prefix 2001:db8::/32.
 *
 * Determinism: every entity is a pure function of (seed, index, sizes), drawn from its own
 * seeded generator, so the same seed and sizes give byte-identical JSON Lines and a person can
 * name its employer without the organizations being held in memory (1M + 1M streams).
 *
 * Shape: organizations first, then persons. About 2% of organizations share their name with the
 * previous one in another country, ~5% have acronym names, and ~3% of organizations and ~2% of
 * persons are stated a second time by another source (`https://registry.demo.quarry.example/…`)
 * that disagrees on a fact, so the demo shows non-canonical facts and fact origins.
 */
import type { Writable } from 'node:stream';
import { type CountryCode, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import type { Entity, Location } from './entity.ts';
import { applyStatement, type LedgerState, sourceOf } from './fact-ledger.ts';

/** Seed of the demo graph `npm start` loads (and of `demoExamples`). */
export const DEFAULT_DEMO_SEED = 42;

/** Sizes of the demo graph `serve --demo` loads into an empty store. */
export const DEFAULT_DEMO_SIZES = Object.freeze({ organizations: 3000, persons: 3000 });

export interface DemoGraphOptions {
  readonly organizations: number;
  readonly persons: number;
  /** Default `DEFAULT_DEMO_SEED`. */
  readonly seed?: number;
}

/** The `fileName` demo statements are imported under (their source is their origins). */
export const DEMO_FILE_NAME = 'demo-data.jsonl';

// ---------------------------------------------------------------------------------------------
// Deterministic randomness
// ---------------------------------------------------------------------------------------------

function mix32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A small seeded generator (SplitMix32 stream) for one entity. */
class Random {
  #state: number;
  constructor(...parts: number[]) {
    let h = 0x9e3779b9;
    for (const part of parts) h = mix32(h ^ mix32(part));
    this.#state = h;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x9e3779b9) | 0;
    return mix32(this.#state) / 2 ** 32;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const ORG = 1;
const PERSON = 2;

// ---------------------------------------------------------------------------------------------
// Vocabulary (fictitious names; real places so that locations look like locations)
// ---------------------------------------------------------------------------------------------

interface Country {
  readonly code: CountryCode;
  readonly name: string;
  readonly suffixes: readonly string[];
  readonly places: readonly (readonly [city: string, region: string])[];
}

const COUNTRIES: readonly Country[] = [
  {
    code: 'US',
    name: 'United States',
    suffixes: ['Inc', 'LLC', 'Corp'],
    places: [
      ['San Francisco', 'California'],
      ['Austin', 'Texas'],
      ['New York', 'New York'],
      ['Chicago', 'Illinois'],
      ['Seattle', 'Washington'],
    ],
  },
  {
    code: 'GB',
    name: 'United Kingdom',
    suffixes: ['Ltd', 'PLC'],
    places: [
      ['London', 'England'],
      ['Manchester', 'England'],
      ['Edinburgh', 'Scotland'],
    ],
  },
  {
    code: 'DE',
    name: 'Germany',
    suffixes: ['GmbH', 'AG'],
    places: [
      ['Munich', 'Bavaria'],
      ['Berlin', 'Berlin'],
      ['Hamburg', 'Hamburg'],
      ['Frankfurt', 'Hesse'],
    ],
  },
  {
    code: 'FR',
    name: 'France',
    suffixes: ['SA', 'SAS'],
    places: [
      ['Paris', 'Île-de-France'],
      ['Lyon', 'Auvergne-Rhône-Alpes'],
      ['Toulouse', 'Occitanie'],
    ],
  },
  {
    code: 'ES',
    name: 'Spain',
    suffixes: ['SL', 'SA'],
    places: [
      ['Madrid', 'Community of Madrid'],
      ['Barcelona', 'Catalonia'],
    ],
  },
  {
    code: 'NL',
    name: 'Netherlands',
    suffixes: ['BV', 'NV'],
    places: [
      ['Amsterdam', 'North Holland'],
      ['Rotterdam', 'South Holland'],
    ],
  },
  {
    code: 'CH',
    name: 'Switzerland',
    suffixes: ['AG', 'SA', 'GmbH'],
    places: [
      ['Zürich', 'Zürich'],
      ['Genève', 'Geneva'],
    ],
  },
  {
    code: 'BR',
    name: 'Brazil',
    suffixes: ['Ltda', 'SA'],
    places: [
      ['São Paulo', 'São Paulo'],
      ['Rio de Janeiro', 'Rio de Janeiro'],
    ],
  },
  {
    code: 'JP',
    name: 'Japan',
    suffixes: ['KK'],
    places: [
      ['Tokyo', 'Tokyo'],
      ['Osaka', 'Osaka'],
    ],
  },
  {
    code: 'IN',
    name: 'India',
    suffixes: ['Pvt Ltd'],
    places: [
      ['Bengaluru', 'Karnataka'],
      ['Mumbai', 'Maharashtra'],
    ],
  },
  {
    code: 'AU',
    name: 'Australia',
    suffixes: ['Pty Ltd'],
    places: [
      ['Sydney', 'New South Wales'],
      ['Melbourne', 'Victoria'],
    ],
  },
  {
    code: 'CA',
    name: 'Canada',
    suffixes: ['Inc', 'Ltd'],
    places: [
      ['Toronto', 'Ontario'],
      ['Montréal', 'Quebec'],
    ],
  },
];

const CONSONANTS = 'bdfgklmnprstvzch'.split('');
CONSONANTS.splice(14, 2, 'ch', 'th');
const VOWELS = ['a', 'e', 'i', 'o'];
/** 64 syllables: 4 of them make a word for each of 64^4 = 16.7M organizations. */
const SYLLABLES = CONSONANTS.flatMap((c) => VOWELS.map((v) => c + v));
const WORD_SPACE = 64 ** 4;

const NOUNS = [
  'Systems',
  'Analytics',
  'Logistics',
  'Robotics',
  'Foods',
  'Energy',
  'Labs',
  'Media',
  'Capital',
  'Textiles',
  'Pharma',
  'Networks',
  'Materials',
  'Motors',
  'Software',
  'Health',
  'Partners',
  'Dynamics',
];
const INDUSTRIES = [
  'Software',
  'Logistics',
  'Manufacturing',
  'Food Production',
  'Renewable Energy',
  'Financial Services',
  'Biotechnology',
  'Retail',
  'Telecommunications',
  'Media',
  'Construction',
  'Automotive',
  'Healthcare',
  'Consulting',
];
const FIRST_NAMES = [
  'Ada',
  'Amir',
  'Anna',
  'Ben',
  'Carla',
  'Chen',
  'Dana',
  'David',
  'Elena',
  'Emma',
  'Farid',
  'Fatima',
  'Hana',
  'Hugo',
  'Ines',
  'Ivan',
  'James',
  'João',
  'Julia',
  'Kenji',
  'Lara',
  'Leon',
  'Lucas',
  'Maria',
  'Mateo',
  'Mei',
  'Nadia',
  'Noah',
  'Olga',
  'Omar',
  'Paul',
  'Priya',
  'Rafael',
  'Sara',
  'Sofia',
  'Tom',
  'Yuki',
  'Zoë',
  'Åsa',
  'Łukasz',
];
const LAST_NAMES = [
  'Smith',
  'Müller',
  'García',
  'Rossi',
  'Dubois',
  'Tanaka',
  'Silva',
  'Kowalski',
  'Nguyen',
  'Patel',
  'Brown',
  'Jensen',
  'Novak',
  'Haddad',
  'Okafor',
  'Schmidt',
  'Martin',
  'Lopez',
  'Kim',
  'Wagner',
  'Costa',
  'Ivanova',
  'Berg',
  'Yamamoto',
  'Fischer',
  'Moreau',
  'Santos',
  'Hoffmann',
  'Petrov',
  "O'Brien",
];
const TITLES = [
  'Chief Executive Officer',
  'Chief Technology Officer',
  'Software Engineer',
  'Data Scientist',
  'Product Manager',
  'Sales Director',
  'Accountant',
  'Operations Manager',
  'Designer',
  'Research Scientist',
  'Marketing Lead',
  'Logistics Coordinator',
];
const DEGREES = ['BSc', 'MSc', 'MBA', 'PhD', 'BA', 'MA'];
const MAJORS = ['Computer Science', 'Economics', 'Chemistry', 'Design', 'Mechanical Engineering', 'Law'];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** ASCII letters only, for e-mail local parts ("João" → "joao", "O'Brien" → "obrien"). */
function asciiSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** The fictitious word of organization `index`: a bijection of [0, 64^4) for a given seed. */
function orgWord(index: number, seed: number): string {
  // Odd multiplier: a permutation modulo a power of two.
  const n =
    (Number((BigInt(index) * 2654435761n + BigInt(mix32(seed))) % BigInt(WORD_SPACE)) + WORD_SPACE) %
    WORD_SPACE;
  return (
    SYLLABLES[n & 63] + SYLLABLES[(n >>> 6) & 63] + SYLLABLES[(n >>> 12) & 63] + SYLLABLES[(n >>> 18) & 63]
  );
}

function hexId(kind: number, index: number, seed: number): string {
  return (
    ((mix32(mix32(seed * 31 + kind) ^ index) ^ index) >>> 0).toString(16).padStart(8, '0') +
    index.toString(36)
  );
}

/** Id of organization `index` in the graph of `seed`. */
export function demoOrganizationId(index: number, seed = DEFAULT_DEMO_SEED): string {
  return `ORG-demo-${hexId(ORG, index, seed)}`;
}

/** Id of person `index` in the graph of `seed`. */
export function demoPersonId(index: number, seed = DEFAULT_DEMO_SEED): string {
  return `PER-demo-${hexId(PERSON, index, seed)}`;
}

// ---------------------------------------------------------------------------------------------
// Phone numbers valid for their country (libphonenumber-js, full metadata)
// ---------------------------------------------------------------------------------------------

function phoneFor(country: Country, random: Random): { string: string; digits: string } {
  const example = getExampleNumber(country.code, examples);
  const national = example ? String(example.nationalNumber) : '';
  // The example's last four digits varied: still valid in nearly every plan; checked anyway.
  for (let attempt = 0; attempt < 8 && national.length > 4; attempt++) {
    const digits = national.slice(0, -4) + String(random.int(10_000)).padStart(4, '0');
    const parsed = parsePhoneNumberFromString(digits, country.code);
    if (parsed?.isValid()) return { string: parsed.formatInternational(), digits: parsed.number };
  }
  return { string: example!.formatInternational(), digits: example!.number };
}

// ---------------------------------------------------------------------------------------------
// Organizations
// ---------------------------------------------------------------------------------------------

interface OrgCore {
  readonly id: string;
  readonly name: string;
  readonly domain: string;
  readonly country: Country;
  readonly place: readonly [string, string];
}

/** Name, domain and place of organization `index` (what persons need of their employer). */
function orgCore(index: number, seed: number): OrgCore {
  const random = new Random(seed, ORG, index);
  // Every 50th organization shares the name of the previous one, in another country.
  const twin = index % 50 === 49;
  const base = twin ? index - 1 : index;
  const baseRandom = twin ? new Random(seed, ORG, base) : random;
  const word = orgWord(base, seed);
  const baseCountry = baseRandom.int(COUNTRIES.length);
  const noun = baseRandom.pick(NOUNS);
  const acronym = baseRandom.chance(0.05);
  const country = twin
    ? COUNTRIES[(baseCountry + 1 + random.int(COUNTRIES.length - 1)) % COUNTRIES.length]
    : COUNTRIES[baseCountry];
  const stem = acronym
    ? `${
        word
          .slice(0, 4)
          .toUpperCase()
          .replace(/[AEIOU]/g, '') || word.slice(0, 3).toUpperCase()
      } ${noun}`
    : `${capitalize(word)} ${noun}`;
  const name = `${stem} ${random.pick(country.suffixes)}`;
  const domain = twin ? `${word}-${country.code.toLowerCase()}.example` : `${word}.example`;
  return { id: demoOrganizationId(index, seed), name, domain, country, place: random.pick(country.places) };
}

function locationOf(country: Country, place: readonly [string, string]): Location {
  return { city: { name: place[0] }, region: { name: place[1] }, country: { name: country.name } };
}

function ipv4Range(index: number): string {
  // 240.0.0.0/4 is reserved: 2^20 distinct /24 blocks, none of them anyone's real network.
  const n = index % 2 ** 20;
  return `${240 + (n >>> 16)}.${(n >>> 8) & 255}.${n & 255}.0/24`;
}

function ipv6Range(index: number): string {
  const n = index % 2 ** 24;
  return `2001:db8:${(n >>> 8).toString(16)}:${((n & 255) << 8).toString(16)}::/56`;
}

/** The statement(s) of organization `index`: one, or two from disagreeing sources. */
function organizationRecords(index: number, seed: number): Entity[] {
  const core = orgCore(index, seed);
  const random = new Random(seed, ORG, index, 1);
  const industry = random.pick(INDUSTRIES);
  const year = 1900 + random.int(124);
  const nbEmployees = Math.round(Math.exp(random.next() * Math.log(100_000)));
  const location = locationOf(core.country, core.place);
  const org: Entity = {
    id: core.id,
    type: 'Organization',
    name: core.name,
    allNames: [core.name],
    description: `${core.name} is a fictitious ${industry.toLowerCase()} company in ${core.place[0]}, ${core.country.name} (Quarry demo data: synthetic, not a real organization).`,
    homepageUri: core.domain,
    allUris: [core.domain, `www.${core.domain}`],
    location,
    locations: [location],
    phoneNumbers: [phoneFor(core.country, random)],
    industries: random.chance(0.3)
      ? [industry, random.pick(INDUSTRIES)].filter((v, i, a) => a.indexOf(v) === i)
      : [industry],
    foundingDate: random.chance(0.7)
      ? { str: `d${year}`, precision: 1 }
      : {
          str: `d${year}-${String(1 + random.int(12)).padStart(2, '0')}-${String(1 + random.int(28)).padStart(2, '0')}`,
          precision: 3,
        },
    nbEmployees,
    ipRanges: random.chance(0.1) ? [ipv4Range(index), ipv6Range(index)] : [ipv4Range(index)],
    importance: Math.round((Math.log10(nbEmployees + 1) / 5) * 100) / 100,
    origins: [`https://demo.quarry.example/org/${core.id}`],
  };
  if (random.chance(0.2)) {
    const other = random.pick(COUNTRIES);
    const place = random.pick(other.places);
    org.locations = [location, { ...locationOf(other, place), isCurrent: true }];
  }
  if (index % 33 !== 5) return [org];
  // A business registry states the same organization and disagrees on size and founding year.
  const registry: Entity = {
    id: core.id,
    type: 'Organization',
    name: core.name,
    homepageUri: core.domain,
    foundingDate: { str: `d${year + 1 + random.int(3)}`, precision: 1 },
    nbEmployees: Math.max(1, Math.round(nbEmployees * (0.7 + random.next() * 0.2))),
    phoneNumbers: [phoneFor(core.country, random)],
    origins: [`https://registry.demo.quarry.example/org/${core.id}`],
  };
  return [org, registry];
}

// ---------------------------------------------------------------------------------------------
// Persons
// ---------------------------------------------------------------------------------------------

function dateFact(year: number, random: Random): { str: string; precision: number } {
  return { str: `d${year}-${String(1 + random.int(12)).padStart(2, '0')}`, precision: 2 };
}

function personRecords(index: number, options: Required<DemoGraphOptions>): Entity[] {
  const { seed, organizations } = options;
  const random = new Random(seed, PERSON, index);
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const middle = random.chance(0.2) ? [random.pick(FIRST_NAMES)] : undefined;
  const name = middle ? `${first} ${middle[0]} ${last}` : `${first} ${last}`;
  const id = demoPersonId(index, seed);
  const person: Entity = { id, type: 'Person', name, allNames: [name] };
  person.nameDetail = middle
    ? { firstName: first, middleName: middle, lastName: last }
    : { firstName: first, lastName: last };
  person.description = `${name} is a fictitious person (Quarry demo data: synthetic, not a real person).`;
  let country = random.pick(COUNTRIES);
  let place = random.pick(country.places);
  if (organizations > 0) {
    const employer = orgCore(random.int(organizations), seed);
    country = employer.country;
    place = employer.place;
    const start = 2005 + random.int(19);
    const employments: NonNullable<Entity['employments']> = [
      {
        employer: { id: employer.id, name: employer.name },
        title: random.pick(TITLES),
        isCurrent: true,
        from: dateFact(start, random),
      },
    ];
    for (let past = random.int(3); past > 0; past--) {
      const previous = orgCore(random.int(organizations), seed);
      const to = start - random.int(6);
      employments.push({
        employer: { id: previous.id, name: previous.name },
        title: random.pick(TITLES),
        isCurrent: false,
        from: dateFact(to - 1 - random.int(5), random),
        to: dateFact(to, random),
      });
    }
    person.employments = employments;
    const local = `${asciiSlug(first)}.${asciiSlug(last)}${random.chance(0.3) ? random.int(100) : ''}`;
    person.emailAddresses = [{ contactString: `${local}@${employer.domain}` }];
    if (random.chance(0.3)) {
      const education = random.chance(0.4) ? orgCore(random.int(organizations), seed) : undefined;
      person.educations = [
        {
          institution: education
            ? { id: education.id, name: education.name }
            : { name: `${capitalize(orgWord(random.int(5000), seed + 1))} School of ${random.pick(MAJORS)}` },
          degree: { name: random.pick(DEGREES) },
          major: { name: random.pick(MAJORS) },
        },
      ];
    }
  }
  person.location = locationOf(country, place);
  if (random.chance(0.5)) person.phoneNumbers = [phoneFor(country, random)];
  const birthYear = 1950 + random.int(50);
  if (random.chance(0.4)) {
    person.birthDate = {
      str: `d${birthYear}-${String(1 + random.int(12)).padStart(2, '0')}-${String(1 + random.int(28)).padStart(2, '0')}`,
      precision: 3,
    };
  }
  person.origins = [`https://demo.quarry.example/person/${id}`];
  if (index % 50 !== 7) return [person];
  // A second directory states the same person with another birth year and city.
  const other = random.pick(country.places);
  const directory: Entity = {
    id,
    type: 'Person',
    name,
    birthDate: { str: `d${birthYear + 1}`, precision: 1 },
    location: locationOf(country, other === place ? country.places[0] : other),
    origins: [`https://registry.demo.quarry.example/person/${id}`],
  };
  return [person, directory];
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

function resolve(options: DemoGraphOptions): Required<DemoGraphOptions> {
  for (const key of ['organizations', 'persons'] as const) {
    const n = options[key];
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`${key} must be a non-negative integer, got ${n}`);
  }
  return {
    organizations: options.organizations,
    persons: options.persons,
    seed: options.seed ?? DEFAULT_DEMO_SEED,
  };
}

/**
 * The statements of the demo graph, in order: organizations, then persons; an entity stated by
 * two sources yields two consecutive records with the same id. Lazy: any size streams.
 */
export function* demoRecords(options: DemoGraphOptions): Generator<Entity> {
  const resolved = resolve(options);
  for (let i = 0; i < resolved.organizations; i++) yield* organizationRecords(i, resolved.seed);
  for (let i = 0; i < resolved.persons; i++) yield* personRecords(i, resolved);
}

/**
 * Writes the demo graph as JSON Lines to `out` (honouring backpressure). Resolves with the
 * number of lines written. The same options always give the same bytes.
 */
export async function writeDemoGraph(out: Writable, options: DemoGraphOptions): Promise<number> {
  let lines = 0;
  let buffer = '';
  for (const record of demoRecords(options)) {
    buffer += `${JSON.stringify(record)}\n`;
    lines++;
    if (buffer.length >= 1 << 20) {
      if (!out.write(buffer)) await new Promise<void>((resolve) => out.once('drain', resolve));
      buffer = '';
    }
  }
  if (buffer.length > 0 && !out.write(buffer))
    await new Promise<void>((resolve) => out.once('drain', resolve));
  return lines;
}

/** Example entities of a demo graph, as the store holds them after `loadDemoGraph`. */
export interface DemoExamples {
  /** An organization with a domain (`homepageUri`), stated by one source. */
  readonly organization: Entity;
  /** A person with a current employer that is `employer`. */
  readonly person: Entity;
  /** The current employer of `person`. */
  readonly employer: Entity;
  /** An organization two sources disagree on: has `nonCanonicalFacts`. */
  readonly disputedOrganization: Entity;
}

function canonical(records: readonly Entity[]): Entity {
  let state: LedgerState | undefined;
  for (const record of records) {
    state = applyStatement(state, sourceOf(record, { fileName: DEMO_FILE_NAME }), record);
  }
  return state!.doc;
}

/**
 * Well-chosen entities of the demo graph of `options` (default: the `npm start` graph), for
 * documentation examples and tests. Needs at least 6 organizations and 1 person.
 */
export function demoExamples(options: DemoGraphOptions = DEFAULT_DEMO_SIZES): DemoExamples {
  const resolved = resolve(options);
  if (resolved.organizations < 6 || resolved.persons < 1) {
    throw new RangeError('demoExamples needs a graph of at least 6 organizations and 1 person');
  }
  const person = canonical(personRecords(0, resolved));
  const employerId = person.employments?.find((e) => e.isCurrent)?.employer?.id;
  let employerIndex = 0;
  while (demoOrganizationId(employerIndex, resolved.seed) !== employerId) employerIndex++;
  return {
    organization: canonical(organizationRecords(0, resolved.seed)),
    person,
    employer: canonical(organizationRecords(employerIndex, resolved.seed)),
    disputedOrganization: canonical(organizationRecords(5, resolved.seed)),
  };
}
