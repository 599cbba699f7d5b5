/**
 * One Wikidata entity → one statement of the knowledge graph (pure; no I/O). The mapping table is
 * in docs/wikidata-import.md; in short:
 *
 * - Ranks: for a field that holds one value, the best-ranked statement wins (preferred, else
 *   normal; among equals the most precise date, the latest `point in time` (P585) of a count, else
 *   the first); every other value, normal or deprecated, goes to `nonCanonicalFacts`. For a list
 *   (employments, educations, industries, websites, images, subsidiaries, founders) every value
 *   that is not deprecated is an element, each with its own dates; deprecated ones go to
 *   `nonCanonicalFacts`.
 * - `novalue` and `somevalue` snaks state nothing the graph can hold: skipped, never an error.
 * - Items a statement refers to (an employer, a country) become placeholders resolved after the
 *   label pass (`linked-items.ts`); `refs` lists them.
 * - The entity's id is its Wikidata id (`Q42`), so a newer dump updates the same entity, and its
 *   origin is its page, `https://www.wikidata.org/wiki/Q42`.
 */
import type { DateFact, EntityType } from '../../kg/index.ts';
import { type LinkKind, placeholder } from './linked-items.ts';
import type { DataValue, Rank, Snak, Statement, WikidataEntity, WikidataTerm } from './wikidata-json.ts';
import { wikidataPage } from './wikidata-json.ts';
import {
  amountOf,
  commonsFileUrl,
  coordinatesOf,
  dateFactOf,
  hostOf,
  itemNumber,
  itemOf,
  textOf,
  timeOf,
} from './wikidata-values.ts';

/**
 * A line that cannot become a statement (its id is not an item's). Internal, not in the error
 * registry: the mapping job (`map-job.ts`) records it as a rejected line of the import.
 */
export class MappingRejection extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MappingRejection';
  }
}

export interface MapOptions {
  /** Languages of `name` and `description`, in order of preference; then any language. */
  readonly languages: readonly string[];
}

/** Default language preference: English, then the language-neutral `mul` labels, then any. */
export const DEFAULT_LANGUAGES: readonly string[] = Object.freeze(['en', 'mul']);

/** The statement, with placeholders, and the items it refers to. */
export interface MappedEntity {
  readonly statement: Record<string, unknown>;
  readonly refs: number[];
}

/** Most names kept in `allNames`: famous entities have labels in hundreds of languages. */
export const MAX_NAMES = 64;

/** sex or gender (P21) values written as the graph's bench data writes them; others by their label. */
const GENDERS: ReadonlyMap<number, string> = new Map([
  [6581097, 'Male'],
  [6581072, 'Female'],
]);

/** Social profiles: property → field and the profile's address (the graph's form, as extract/ writes it). */
const PROFILES: ReadonlyArray<readonly [string, string, (id: string) => string]> = [
  ['P2002', 'twitterUri', (id) => `twitter.com/${id}`],
  ['P2013', 'facebookUri', (id) => `facebook.com/${id}`],
  ['P2003', 'instagramUri', (id) => `instagram.com/${id}`],
  ['P4264', 'linkedInUri', (id) => `linkedin.com/company/${id}`],
  ['P6634', 'linkedInUri', (id) => `linkedin.com/in/${id}`],
  ['P2037', 'githubUri', (id) => `github.com/${id}`],
  ['P2397', 'youtubeUri', (id) => `youtube.com/channel/${id}`],
  ['P2088', 'crunchbaseUri', (id) => `crunchbase.com/organization/${id}`],
  ['P2087', 'crunchbaseUri', (id) => `crunchbase.com/person/${id}`],
];

/** Registry identifiers: property → key in `identifiers`. */
const IDENTIFIERS: ReadonlyArray<readonly [string, string]> = [
  ['P1278', 'lei'],
  ['P1320', 'openCorporates'],
  ['P946', 'isin'],
  ['P6782', 'ror'],
  ['P2427', 'grid'],
  ['P213', 'isni'],
  ['P214', 'viaf'],
  ['P496', 'orcid'],
];

const RANK_ORDER: Readonly<Record<Rank, number>> = { preferred: 0, normal: 1, deprecated: 2 };

function rankOf(statement: Statement): number {
  return RANK_ORDER[statement.rank] ?? 1;
}

/** The value of a snak, or undefined for novalue / somevalue (and malformed) snaks. */
function snakValue(snak: Snak | undefined): DataValue | undefined {
  return snak?.snaktype === 'value' ? snak.datavalue : undefined;
}

/** A term in the preferred languages, else the first one given. */
function preferredTerm(
  terms: Readonly<Record<string, WikidataTerm>> | undefined,
  languages: readonly string[],
): string | undefined {
  if (!terms || typeof terms !== 'object') return undefined;
  for (const language of languages) {
    const value = terms[language]?.value;
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  for (const language in terms) {
    const value = terms[language]?.value;
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** The label of an entity's labels object in the preferred languages (the label pass uses it too). */
export function preferredLabel(
  labels: Readonly<Record<string, { value?: unknown }>> | undefined,
  languages: readonly string[],
): string | undefined {
  return preferredTerm(labels as Readonly<Record<string, WikidataTerm>> | undefined, languages);
}

/** A value read from a statement, with the statement it came from. */
interface Read<T> {
  readonly value: T;
  readonly statement: Statement;
}

/** Builds one statement; holds the entity, the refs and the non-canonical values found. */
class StatementBuilder {
  readonly #entity: WikidataEntity;
  readonly #origin: string;
  readonly refs: number[] = [];
  readonly alternatives: { field: string; value: unknown; origins: string[] }[] = [];

  constructor(entity: WikidataEntity, origin: string) {
    this.#entity = entity;
    this.#origin = origin;
  }

  statements(property: string): readonly Statement[] {
    const list = this.#entity.claims?.[property];
    return Array.isArray(list) ? list : [];
  }

  /** The values of `property` that `read` can read, in statement order. */
  read<T>(property: string, read: (value: DataValue, statement: Statement) => T | undefined): Read<T>[] {
    const out: Read<T>[] = [];
    for (const statement of this.statements(property)) {
      const data = snakValue(statement?.mainsnak);
      if (data === undefined) continue;
      const value = read(data, statement);
      if (value !== undefined) out.push({ value, statement });
    }
    return out;
  }

  /** A placeholder for the item `n`, noting the reference. */
  link(n: number, kind: LinkKind): { $wd: string; k: LinkKind } {
    this.refs.push(n);
    return placeholder(n, kind);
  }

  /** The item value of a statement as a placeholder of `kind`. */
  linkOf(kind: LinkKind): (value: DataValue) => { $wd: string; k: LinkKind } | undefined {
    return (value) => {
      const n = itemOf(value);
      return n === undefined ? undefined : this.link(n, kind);
    };
  }

  /** Records a value its source ranks below the canonical one. */
  alternative(field: string, value: unknown): void {
    this.alternatives.push({ field, value, origins: [this.#origin] });
  }

  /**
   * The one value of a single-valued field: the best rank wins (`better` orders values of equal
   * rank; default: statement order); the others become alternatives of `field` (as `wrap` makes
   * them, for a part of a composite field such as `location`).
   */
  single<T>(
    field: string,
    values: Read<T>[],
    options: {
      better?: (a: Read<T>, b: Read<T>) => number;
      wrap?: (value: T) => unknown;
      /** A value that says the same as the winner (a date at a coarser precision): not listed. */
      same?: (value: T, winner: T) => boolean;
    } = {},
  ): Read<T> | undefined {
    if (values.length === 0) return undefined;
    const ordered = [...values].sort(
      (a, b) => rankOf(a.statement) - rankOf(b.statement) || (options.better?.(a, b) ?? 0),
    );
    const winner = ordered[0];
    if (winner.statement.rank === 'deprecated') {
      // Only deprecated values: none is stated as a fact.
      for (const read of ordered)
        this.alternative(field, options.wrap ? options.wrap(read.value) : read.value);
      return undefined;
    }
    for (const read of ordered.slice(1)) {
      if (options.same?.(read.value, winner.value)) continue;
      this.alternative(field, options.wrap ? options.wrap(read.value) : read.value);
    }
    return winner;
  }

  /** The elements of a list field: every value not deprecated; deprecated ones become alternatives. */
  list<T>(field: string, values: Read<T>[]): T[] {
    const out: T[] = [];
    for (const read of values) {
      if (read.statement.rank === 'deprecated') this.alternative(field, read.value);
      else out.push(read.value);
    }
    return out;
  }
}

/** The value of the first qualifier `property` of a statement that is a value. */
function qualifier(statement: Statement, property: string): DataValue | undefined {
  const snaks = statement.qualifiers?.[property];
  if (!Array.isArray(snaks)) return undefined;
  for (const snak of snaks) {
    const value = snakValue(snak);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A date qualifier of a statement (P580 start time, P582 end time, P585 point in time). */
function dateQualifier(statement: Statement, property: string): DateFact | undefined {
  return dateFactOf(timeOf(qualifier(statement, property)));
}

/** Whether a statement has the qualifier `property` at all, unknown value (somevalue) included. */
function hasQualifier(statement: Statement, property: string): boolean {
  const snaks = statement.qualifiers?.[property];
  return (
    Array.isArray(snaks) && snaks.some((snak) => snak?.snaktype === 'value' || snak?.snaktype === 'somevalue')
  );
}

/** Whether `date` is `winner` at a coarser precision (`d1952` beside `d1952-03-11`). */
function coarserForm(date: DateFact, winner: DateFact): boolean {
  return (date.precision ?? 3) < (winner.precision ?? 3) && winner.str.startsWith(`${date.str}-`);
}

/** Orders dates most precise first (a full birth date beats the year alone). */
function morePrecise(a: Read<DateFact>, b: Read<DateFact>): number {
  return (b.value.precision ?? 0) - (a.value.precision ?? 0);
}

/** Orders counts latest `point in time` (P585) first; undated ones last. */
function latestFirst<T>(a: Read<T>, b: Read<T>): number {
  const at = dateQualifier(a.statement, 'P585')?.str ?? '';
  const bt = dateQualifier(b.statement, 'P585')?.str ?? '';
  return at === bt ? 0 : at === '' ? 1 : bt === '' ? -1 : compareDateStrings(bt, at);
}

/** Compares `d`-prefixed date strings chronologically (BC years are negative, parts missing are 0). */
function compareDateStrings(a: string, b: string): number {
  const parts = (s: string) => {
    const match = /^d(-?\d+)(?:-(\d+))?(?:-(\d+))?/.exec(s);
    return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : [0, 0, 0];
  };
  const [x, y] = [parts(a), parts(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

function dates(builder: StatementBuilder, property: string): Read<DateFact>[] {
  return builder.read(property, (value) => dateFactOf(timeOf(value)));
}

/**
 * Maps a dump entity selected as `type` to a statement. Throws `MappingRejection` when its id is
 * not an item id.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the property-by-property mapping of an item to an entity, in the entity's field order over one StatementBuilder; read top to bottom it is the mapping's documentation
export function mapEntity(entity: WikidataEntity, type: EntityType, options: MapOptions): MappedEntity {
  const id = entity?.id;
  if (itemNumber(id) === undefined) {
    throw new MappingRejection(`id ${JSON.stringify(id)} is not a Wikidata item id (Q…)`);
  }
  const origin = wikidataPage(id);
  const b = new StatementBuilder(entity, origin);
  const out: Record<string, unknown> = { id, type };

  // Names: the label in the preferred languages; every label, the preferred languages' aliases,
  // official and short names in allNames.
  const languages = options.languages;
  const name = preferredTerm(entity.labels, languages) ?? firstAlias(entity, languages);
  if (name !== undefined) out.name = name;
  const names = allNamesOf(entity, b, name, languages);
  if (names.length > 0) out.allNames = names;
  const description = preferredTerm(entity.descriptions, languages);
  if (description !== undefined) out.description = description;

  // Websites (P856): the best is the homepage, every one not deprecated is in allUris.
  const sites = b.read('P856', (value) => {
    const text = textOf(value);
    return text === undefined ? undefined : hostOf(text);
  });
  const homepage = b.single(
    'homepageUri',
    sites.filter((s) => s.statement.rank !== 'deprecated'),
  );
  // Alternatives of allUris would repeat those of homepageUri: deprecated sites are listed once.
  for (const site of sites)
    if (site.statement.rank === 'deprecated') b.alternative('homepageUri', site.value);
  if (homepage) out.homepageUri = homepage.value;
  const uris = [...new Set(sites.filter((s) => s.statement.rank !== 'deprecated').map((s) => s.value))];
  if (uris.length > 0) out.allUris = uris;
  out.origins = [origin];

  const location = type === 'Organization' ? organizationLocation(b) : personLocation(b);
  if (location !== undefined) out.location = location;

  if (type === 'Organization') {
    const founded = b.single('foundingDate', dates(b, 'P571'), { better: morePrecise, same: coarserForm });
    if (founded) out.foundingDate = founded.value;
    const dissolved = b.single('dissolutionDate', dates(b, 'P576'), {
      better: morePrecise,
      same: coarserForm,
    });
    if (dissolved) out.dissolutionDate = dissolved.value;
  }
  let died: DateFact | undefined;
  if (type === 'Person') {
    const born = b.single('birthDate', dates(b, 'P569'), { better: morePrecise, same: coarserForm });
    if (born) out.birthDate = born.value;
    const death = b.single('deathDate', dates(b, 'P570'), { better: morePrecise, same: coarserForm });
    if (death) {
      out.deathDate = death.value;
      died = death.value;
    }
    const gender = b.single(
      'gender',
      b.read('P21', (value) => {
        const n = itemOf(value);
        if (n === undefined) return undefined;
        const known = GENDERS.get(n);
        return { normalizedValue: known ?? b.link(n, 'l') };
      }),
    );
    if (gender) out.gender = gender.value;
    const detail = nameDetailOf(b);
    if (detail !== undefined) out.nameDetail = detail;
  }

  if (type === 'Organization') {
    const employees = b.single(
      'nbEmployees',
      b.read('P1128', (value) => {
        const amount = amountOf(value);
        return amount !== undefined && amount >= 0 ? Math.round(amount) : undefined;
      }),
      { better: latestFirst },
    );
    if (employees) out.nbEmployees = employees.value;
    const industries = b.list('industries', b.read('P452', b.linkOf('l')));
    if (industries.length > 0) out.industries = industries;
  }

  if (type === 'Person') {
    const employments = [
      ...b.list(
        'employments',
        b.read('P108', (value, statement) => employmentOf(b, value, statement, died !== undefined)),
      ),
      ...b.list(
        'employments',
        b.read('P106', (value) => {
          const n = itemOf(value);
          return n === undefined ? undefined : { title: b.link(n, 'l') };
        }),
      ),
    ];
    if (employments.length > 0) out.employments = employments;
    const educations = b.list(
      'educations',
      b.read('P69', (value, statement) => educationOf(b, value, statement)),
    );
    if (educations.length > 0) out.educations = educations;
  }

  const images = [
    ...b.list(
      'images',
      b.read('P18', (value) => commonsImage(value)),
    ),
    ...b.list(
      'images',
      b.read('P154', (value) => commonsImage(value)),
    ),
  ];
  if (images.length > 0) {
    images[0] = { ...images[0], primary: true };
    out.images = images;
  }

  if (type === 'Organization') {
    const parent = b.single('parentCompany', b.read('P749', b.linkOf('o')));
    if (parent) out.parentCompany = parent.value;
    const subsidiaries = b.list('subsidiaries', b.read('P355', b.linkOf('o')));
    if (subsidiaries.length > 0) out.subsidiaries = subsidiaries;
    const founders = b.list('founders', b.read('P112', b.linkOf('o')));
    if (founders.length > 0) out.founders = founders;
    const ceo = b.single('ceo', b.read('P169', b.linkOf('o')));
    if (ceo) out.ceo = ceo.value;
  }

  for (const [property, field, uri] of PROFILES) {
    if (out[field] !== undefined) continue;
    const profile = b.single(
      field,
      b.read(property, (value) => {
        const text = textOf(value);
        return text === undefined || /[\s/?#]/.test(text) ? undefined : uri(text);
      }),
    );
    if (profile) out[field] = profile.value;
  }
  const wikipedia = wikipediaOf(entity, languages);
  if (wikipedia !== undefined) out.wikipediaUri = wikipedia;
  const identifiers: Record<string, string> = {};
  for (const [property, key] of IDENTIFIERS) {
    // Identifiers are not disputed facts: the best-ranked value, the others not listed.
    const best = b
      .read(property, (value) => textOf(value))
      .filter((read) => read.statement.rank !== 'deprecated')
      .sort((x, y) => rankOf(x.statement) - rankOf(y.statement))[0];
    if (best) identifiers[key] = best.value;
  }
  if (Object.keys(identifiers).length > 0) out.identifiers = identifiers;

  if (b.alternatives.length > 0) out.nonCanonicalFacts = b.alternatives;
  return { statement: out, refs: b.refs };
}

function firstAlias(entity: WikidataEntity, languages: readonly string[]): string | undefined {
  for (const language of languages) {
    const list = entity.aliases?.[language];
    if (!Array.isArray(list)) continue;
    for (const alias of list)
      if (typeof alias?.value === 'string' && alias.value.trim() !== '') return alias.value.trim();
  }
  return undefined;
}

function allNamesOf(
  entity: WikidataEntity,
  b: StatementBuilder,
  name: string | undefined,
  languages: readonly string[],
): string[] {
  const names = new Set<string>();
  const add = (value: unknown) => {
    if (names.size < MAX_NAMES && typeof value === 'string' && value.trim() !== '') names.add(value.trim());
  };
  add(name);
  const labels = entity.labels ?? {};
  const aliases = entity.aliases ?? {};
  for (const language of languages) {
    add(labels[language]?.value);
    for (const alias of Array.isArray(aliases[language]) ? aliases[language] : []) add(alias?.value);
  }
  // Official (P1448) and short (P1813) names, then every other language's label.
  for (const read of b.read('P1448', (value) => textOf(value)))
    if (read.statement.rank !== 'deprecated') add(read.value);
  for (const read of b.read('P1813', (value) => textOf(value)))
    if (read.statement.rank !== 'deprecated') add(read.value);
  for (const language in labels) add(labels[language]?.value);
  return [...names];
}

function organizationLocation(b: StatementBuilder): Record<string, unknown> | undefined {
  const location: Record<string, unknown> = {};
  const wrap = (part: string) => (value: unknown) => ({ [part]: value });
  // Headquarters (P159), else the administrative unit the organization is in (P131).
  const headquarters = b.single('location', b.read('P159', b.linkOf('p')), { wrap: wrap('city') });
  const city = headquarters ?? b.single('location', b.read('P131', b.linkOf('p')), { wrap: wrap('city') });
  const hq = headquarters?.statement;
  const street =
    (hq && textOf(qualifier(hq, 'P6375'))) ??
    b.single(
      'location',
      b.read('P6375', (value) => textOf(value)),
      { wrap: wrap('street') },
    )?.value;
  if (street !== undefined) location.street = street;
  if (city) location.city = city.value;
  const postalCode =
    (hq && textOf(qualifier(hq, 'P281'))) ??
    b.single(
      'location',
      b.read('P281', (value) => textOf(value)),
      { wrap: wrap('postalCode') },
    )?.value;
  if (postalCode !== undefined) location.postalCode = postalCode;
  const country = b.single('location', b.read('P17', b.linkOf('p')), { wrap: wrap('country') });
  if (country) location.country = country.value;
  const point =
    b.single(
      'location',
      b.read('P625', (value) => coordinatesOf(value)),
      { wrap: (value) => value },
    )?.value ?? (hq ? coordinatesOf(qualifier(hq, 'P625')) : undefined);
  if (point) {
    location.latitude = point.latitude;
    location.longitude = point.longitude;
  }
  return Object.keys(location).length > 0 ? location : undefined;
}

function personLocation(b: StatementBuilder): Record<string, unknown> | undefined {
  const location: Record<string, unknown> = {};
  const city = b.single('location', b.read('P551', b.linkOf('p')), { wrap: (value) => ({ city: value }) });
  if (city) location.city = city.value;
  const country = b.single('location', b.read('P27', b.linkOf('p')), {
    wrap: (value) => ({ country: value }),
  });
  if (country) location.country = country.value;
  return Object.keys(location).length > 0 ? location : undefined;
}

function nameDetailOf(b: StatementBuilder): Record<string, unknown> | undefined {
  // Given names in their series order (P1545); the first is the first name, the others middle.
  const given = b
    .read('P735', (value) => itemOf(value))
    .filter((read) => read.statement.rank !== 'deprecated')
    .map((read, index) => ({
      n: read.value,
      order: Number(textOf(qualifier(read.statement, 'P1545')) ?? index + 1),
    }))
    .sort((x, y) => (Number.isFinite(x.order) ? x.order : 1e9) - (Number.isFinite(y.order) ? y.order : 1e9));
  const family = b
    .read('P734', (value) => itemOf(value))
    .filter((read) => read.statement.rank !== 'deprecated')
    .sort((x, y) => rankOf(x.statement) - rankOf(y.statement))[0];
  const detail: Record<string, unknown> = {};
  if (given.length > 0) detail.firstName = b.link(given[0].n, 'l');
  if (given.length > 1) detail.middleName = given.slice(1).map((g) => b.link(g.n, 'l'));
  if (family) detail.lastName = b.link(family.value, 'l');
  return Object.keys(detail).length > 0 ? detail : undefined;
}

function employmentOf(
  b: StatementBuilder,
  value: DataValue,
  statement: Statement,
  dead: boolean,
): Record<string, unknown> | undefined {
  const n = itemOf(value);
  if (n === undefined) return undefined;
  const employment: Record<string, unknown> = { employer: b.link(n, 'o') };
  // The role held there: "subject has role" (P2868), else "object has role" (P3831), else "as" (P794).
  const role =
    itemOf(qualifier(statement, 'P2868')) ??
    itemOf(qualifier(statement, 'P3831')) ??
    itemOf(qualifier(statement, 'P794'));
  if (role !== undefined) employment.title = b.link(role, 'l');
  // Current while it has no end (an unknown end, somevalue, is an end) and the person lives.
  employment.isCurrent = !hasQualifier(statement, 'P582') && !dead;
  const from = dateQualifier(statement, 'P580');
  if (from) employment.from = from;
  const to = dateQualifier(statement, 'P582');
  if (to) employment.to = to;
  return employment;
}

function educationOf(
  b: StatementBuilder,
  value: DataValue,
  statement: Statement,
): Record<string, unknown> | undefined {
  const n = itemOf(value);
  if (n === undefined) return undefined;
  const education: Record<string, unknown> = { institution: b.link(n, 'o') };
  const degree = itemOf(qualifier(statement, 'P512'));
  if (degree !== undefined) education.degree = { name: b.link(degree, 'l') };
  const major = itemOf(qualifier(statement, 'P812'));
  if (major !== undefined) education.major = { name: b.link(major, 'l') };
  const from = dateQualifier(statement, 'P580');
  if (from) education.from = from;
  const to = dateQualifier(statement, 'P582');
  if (to) education.to = to;
  return education;
}

function commonsImage(value: DataValue): { url: string; primary?: boolean } | undefined {
  const file = textOf(value);
  return file === undefined ? undefined : { url: commonsFileUrl(file) };
}

/** The Wikipedia article in the first preferred language that has one: `en.wikipedia.org/wiki/…`. */
function wikipediaOf(entity: WikidataEntity, languages: readonly string[]): string | undefined {
  const sitelinks = entity.sitelinks;
  if (!sitelinks || typeof sitelinks !== 'object') return undefined;
  for (const language of languages) {
    const title = sitelinks[`${language}wiki`]?.title;
    if (typeof title === 'string' && title.trim() !== '') {
      return `${language}.wikipedia.org/wiki/${encodeURI(title.trim().replace(/ /g, '_'))}`;
    }
  }
  return undefined;
}
