/**
 * Places: a hierarchy of countries (ISO 3166-1), their first-level divisions (states, provinces,
 * regions) and cities, with common names, other-language names, aliases and the abbreviations
 * addresses use, read from shipped data (`./data/places-*.tsv`, `./data/place-aliases.tsv`).
 * Free-text locations ("Ohio, United States", "paddington nsw", "8 dryandra street, ballarat",
 * "Melbourne") are read into what they can name, and two places are compared through the
 * hierarchy: a place that contains another agrees with it ("Australia" and a person living in
 * Melbourne), two places apart at a level both know conflict ("France" and Munich).
 */
import { getCountries } from 'libphonenumber-js';
import { listField, readDataFile } from './data.ts';
import { BoundedMemo } from './memo.ts';
import { foldText, textTokens } from './text.ts';

/** A place as the hierarchy knows it: a country, a division of it, or a city in it. */
export interface PlaceRef {
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** The division's folded canonical name (`victoria`, `bavaria`), when known. */
  readonly region?: string;
  /** The city's folded canonical name, for a city. */
  readonly city?: string;
}

function placeKey(text: string): string {
  return textTokens(text).join(' ');
}

// ---------------------------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------------------------

interface CountryTables {
  /** Folded name or alias → ISO code. */
  readonly byName: ReadonlyMap<string, string>;
  /** The ISO codes libphonenumber knows (`getCountries`, an array built per call), as a set. */
  readonly codes: ReadonlySet<string>;
  /** ISO 3166-1 alpha-3 code ("DEU") → alpha-2 ("DE"). */
  readonly byAlpha3: ReadonlyMap<string, string>;
}

interface RegionTables {
  /** Folded name or alias → the divisions it names (several countries may share a name). */
  readonly byName: ReadonlyMap<string, readonly PlaceRef[]>;
  /** Per country, abbreviation in use (folded) → canonical name. */
  readonly abbreviations: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * `abbreviations` the other way round: abbreviation → the divisions it abbreviates, in the
   * order of `abbreviations`' countries (a token is looked up once, not in every country's table).
   */
  readonly byAbbreviation: ReadonlyMap<string, readonly PlaceRef[]>;
  /** Most words in a division's name. */
  readonly longest: number;
}

interface CityTables {
  /** Folded name or alias → the cities of that name. */
  readonly byName: ReadonlyMap<string, readonly PlaceRef[]>;
  readonly longest: number;
}

let countryTables: CountryTables | undefined;
let regionTables: RegionTables | undefined;
let cityTables: CityTables | undefined;

function aliases(kind: string): string[][] {
  return readDataFile('place-aliases.tsv').filter(([k]) => k === kind);
}

function countries(): CountryTables {
  if (countryTables) return countryTables;
  const byName = new Map<string, string>();
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  // Current ISO codes only (ICU also names withdrawn ones, e.g. VD "North Vietnam").
  for (const code of [...getCountries(), 'XK', 'AQ']) {
    const name = names.of(code);
    if (name && name !== code) byName.set(placeKey(name), code);
  }
  const byAlpha3 = new Map<string, string>();
  for (const [code, name, others, alpha3] of readDataFile('places-countries.tsv')) {
    if (alpha3) byAlpha3.set(alpha3, code);
    for (const spelling of [name, ...listField(others)]) {
      const key = placeKey(spelling);
      if (key && !byName.has(key)) byName.set(key, code);
    }
  }
  // Aliases win: they are written for the spellings the tables get wrong or lack.
  for (const [, name, , code] of aliases('country')) byName.set(placeKey(name), code);
  countryTables = { byName, codes: new Set(getCountries()), byAlpha3 };
  return countryTables;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function regions(): RegionTables {
  if (regionTables) return regionTables;
  const byName = new Map<string, PlaceRef[]>();
  const abbreviations = new Map<string, Map<string, string>>();
  let longest = 1;
  const add = (key: string, ref: PlaceRef) => {
    if (!key) return;
    const list = byName.get(key);
    if (list?.some((r) => r.country === ref.country && r.region === ref.region)) return;
    push(byName, key, ref);
    longest = Math.max(longest, key.split(' ').length);
  };
  for (const [country, name, others, abbreviation] of readDataFile('places-regions.tsv')) {
    const ref: PlaceRef = { country, region: placeKey(name) };
    add(ref.region!, ref);
    for (const other of listField(others)) add(placeKey(other), ref);
    if (abbreviation) {
      const table = abbreviations.get(country) ?? new Map<string, string>();
      abbreviations.set(country, table);
      table.set(placeKey(abbreviation), ref.region!);
    }
  }
  for (const [, name, region, country] of aliases('region'))
    add(placeKey(name), { country, region: placeKey(region) });
  const byAbbreviation = new Map<string, PlaceRef[]>();
  for (const [country, table] of abbreviations)
    for (const [abbreviation, region] of table) push(byAbbreviation, abbreviation, { country, region });
  regionTables = { byName, abbreviations, byAbbreviation, longest };
  return regionTables;
}

function cities(): CityTables {
  if (cityTables) return cityTables;
  const byName = new Map<string, PlaceRef[]>();
  let longest = 1;
  const canonical = new Map<string, PlaceRef[]>();
  for (const [country, region, name] of readDataFile('places-cities.tsv')) {
    const key = placeKey(name);
    if (!key) continue;
    const ref: PlaceRef = region ? { country, region: placeKey(region), city: key } : { country, city: key };
    push(byName, key, ref);
    push(canonical, `${country}:${key}`, ref);
    longest = Math.max(longest, key.split(' ').length);
  }
  for (const [, name, city, country] of aliases('city')) {
    const key = placeKey(name);
    for (const ref of canonical.get(`${country}:${placeKey(city)}`) ?? [{ country, city: placeKey(city) }]) {
      if (!byName.get(key)?.includes(ref)) push(byName, key, ref);
    }
    longest = Math.max(longest, key.split(' ').length);
  }
  cityTables = { byName, longest };
  return cityTables;
}

// ---------------------------------------------------------------------------------------------
// Names of places
// ---------------------------------------------------------------------------------------------

const countryMemo = new BoundedMemo<string | undefined>(2 * 1024 * 1024, () => 8);

/**
 * ISO 3166-1 alpha-2 code for a country name in a common spelling, else `undefined`. Alpha-3
 * codes are `alpha3Country`'s: an entity's country field read through here keys its phones, so
 * reading "DEU" here would change stored keys (a recompute).
 */
export function countryCode(name: string): string | undefined {
  return countryMemo.get(name, () => lookUpCountry(name));
}

function lookUpCountry(name: string): string | undefined {
  const key = placeKey(name);
  if (key === '') return undefined;
  const direct = countries().byName.get(key);
  if (direct) return direct;
  if (/^[a-z]{2}$/.test(key) && name.trim() === name.trim().toUpperCase()) {
    const upper = key.toUpperCase();
    if (countries().codes.has(upper)) return upper;
  }
  return undefined;
}

/**
 * The alpha-2 code of a country written as its ISO 3166-1 alpha-3 code in capitals, alone
 * ("DEU", " GBR "), else `undefined`: lowercase or mixed case ("can", "Per") is a word. Only for
 * a text set apart as a place; "ACME IND" (industries), "ACME FIN" (finance) end with words.
 */
export function alpha3Country(text: string): string | undefined {
  const trimmed = text.trim();
  return /^[A-Z]{3}$/.test(trimmed) ? countries().byAlpha3.get(trimmed) : undefined;
}

// Place names repeat across a graph (a few thousand cities and regions for millions of
// entities): an import folds each once instead of once per entity.
const cityMemo = new BoundedMemo<string>(2 * 1024 * 1024);
const regionMemo = new BoundedMemo<string>(2 * 1024 * 1024);

/** The folded tokens of a city name, space-joined (`São Paulo` → `sao paulo`). */
export function cityName(name: string): string {
  return cityMemo.get(name, () => placeKey(name));
}

/**
 * The folded canonical name of a state, province or region (`VIC` → `victoria`, `Bayern` →
 * `bavaria`, `Community of Madrid` → `madrid`); the folded name itself when the tables do not
 * know it. `country` (ISO code) decides between namesakes and reads abbreviations.
 */
export function regionName(name: string, country?: string): string {
  // Keyed unambiguously for every country: the country's length, the country, the name.
  const countryKey = country ?? '';
  return regionMemo.get(`${countryKey.length}:${countryKey}${name}`, () => lookUpRegion(name, country));
}

function lookUpRegion(name: string, country: string | undefined): string {
  const key = placeKey(name);
  const tables = regions();
  if (country) {
    const abbreviated = tables.abbreviations.get(country)?.get(key);
    if (abbreviated) return abbreviated;
  } else {
    const found = [...tables.abbreviations.values()].map((t) => t.get(key)).filter((v) => v !== undefined);
    if (found.length === 1) return found[0];
  }
  const named = tables.byName.get(key);
  if (named) {
    const own = country
      ? named.find((r) => r.country === country)
      : named.length === 1
        ? named[0]
        : undefined;
    if (own?.region) return own.region;
  }
  return key;
}

// ---------------------------------------------------------------------------------------------
// Places written into other text
// ---------------------------------------------------------------------------------------------

/**
 * Whether `text` is, as a whole, a place's name: a country (its name, an alias, or its ISO code
 * in capitals, "DE", "UK"), a city, a division of two words or more ("New York"), or with
 * `anyLevel` any division ("Bavaria"). One-word divisions count only when the text is set apart
 * as a place (in parentheses, after a comma): many are words of names too ("Capital", "Centre").
 */
export function isPlaceName(text: string, anyLevel = false): boolean {
  const key = placeKey(text);
  if (key === '') return false;
  const trimmed = text.trim();
  const capitals = trimmed === trimmed.toUpperCase();
  // Two letters are a country only in capitals ("UK", "DE"; "us" is a word).
  if (countries().byName.has(key) && (key.length > 2 || capitals)) return true;
  if (/^[A-Z]{2}$/.test(trimmed) && countries().codes.has(trimmed)) return true;
  if (cities().byName.has(key)) return true;
  // A division of two words or more is a place wherever it stands ("New York", "New South Wales").
  return (anyLevel || key.includes(' ')) && regions().byName.has(key);
}

// ---------------------------------------------------------------------------------------------
// Free-text locations
// ---------------------------------------------------------------------------------------------

/** What a free-text location was recognised as. */
export interface ParsedLocation {
  /** ISO 3166-1 alpha-2, when a country was named. */
  readonly country?: string;
  /** Folded names of states/provinces that were named (full names). */
  readonly regions: readonly string[];
  /** Postal codes (digit runs of 4–6). */
  readonly postcodes: readonly string[];
  /** Every folded token of the text except the country's, for city/street comparison. */
  readonly tokens: readonly string[];
  /**
   * What the text can name in the hierarchy, each a possible reading: "Melbourne" is a city in
   * Victoria, Australia or one in Florida; "Australia" is the country; empty when it names no
   * known place (a street, a village the tables lack, a typo).
   */
  readonly places: readonly PlaceRef[];
}

/** The phrases (runs of up to `longest` words) of `tokens`, longest first. */
function* phrases(tokens: readonly string[], longest: number): Generator<[string, number, number]> {
  for (let n = Math.min(longest, tokens.length); n >= 1; n--) {
    for (let i = 0; i + n <= tokens.length; i++) yield [tokens.slice(i, i + n).join(' '), i, i + n];
  }
}

/**
 * Reads a free-text location. A country is recognised as a whole comma-separated part or as the
 * text's last one to four words; state abbreviations are expanded (`nsw` → `new south wales`);
 * divisions and cities are looked up by name (and alias) in the hierarchy. Remembered per
 * thread by the text (and hint), frozen (every caller shares it): a query's location is mostly
 * one of a few thousand places (827 distinct of 8,437 locations in 20,000 bench queries on
 * 1M + 1M), each read in ~10-20 µs.
 */
export function parseLocation(text: string, regionHint?: string): ParsedLocation {
  const hint = regionHint ?? '';
  return locations.get(`${hint.length}:${hint}${text}`, () => frozenLocation(readLocation(text, regionHint)));
}

// 4 MiB: ~10,000 locations (~400 bytes each).
const locations = new BoundedMemo<ParsedLocation>(4 * 1024 * 1024, locationBytes);

function locationBytes(location: ParsedLocation): number {
  let bytes = 160 + 64 * location.places.length;
  for (const list of [location.regions, location.postcodes, location.tokens])
    for (const word of list) bytes += 48 + 2 * word.length;
  return bytes;
}

function frozenLocation(location: ParsedLocation): ParsedLocation {
  Object.freeze(location.regions);
  Object.freeze(location.postcodes);
  Object.freeze(location.tokens);
  Object.freeze(location.places);
  return Object.freeze(location);
}

/** `parseLocation` read afresh (not remembered, not frozen). */
export function readLocation(text: string, regionHint?: string): ParsedLocation {
  const folded = foldText(text);
  const parts = folded
    .split(/[,;/]/)
    .map((part) => placeKey(part))
    .filter(Boolean);
  const byName = countries().byName;
  let country: string | undefined;
  let rest = parts;
  // The country is a trailing run of comma parts ("Korea, Republic of"; "Ohio, United States").
  for (let i = 0; i < parts.length && !country; i++) {
    const code = byName.get(parts.slice(i).join(' '));
    if (code) {
      country = code;
      rest = parts.slice(0, i);
    }
  }
  let tokens = rest.join(' ').split(' ').filter(Boolean);
  if (!country && tokens.length > 1) {
    for (let n = Math.min(4, tokens.length - 1); n >= 1 && !country; n--) {
      const tail = tokens.slice(-n).join(' ');
      const code = byName.get(tail);
      // "New South Wales" ends with a country's name but is a division.
      if (code && tail.length > 2 && !endsWithRegion(tokens, n)) {
        country = code;
        tokens = tokens.slice(0, -n);
      }
    }
  }
  // A country's code in capitals as the last word: two letters after a comma when the city
  // before it lies there ("Munich, DE", "Paris, FR"; "Wilmington, DE" and "San Diego, CA" stay
  // US states), three set apart ("Sydney, AUS", "Paris (FRA)", "GBR").
  if (!country) {
    const code =
      (tokens.length > 1 ? countryCodeAfterCity(text, tokens) : undefined) ?? alpha3AtEnd(text, tokens);
    if (code) {
      country = code;
      tokens = tokens.slice(0, -1);
    }
  }
  // A country written as its ISO code in capitals ("CH", "IN"; "CA" is also California).
  if (!country && /^[A-Z]{2}$/.test(text.trim())) {
    const code = text.trim();
    if (countries().codes.has(code)) {
      country = code;
      tokens = [];
    }
  }
  const all = parts.join(' ').split(' ').filter(Boolean);
  const fromCode = country !== undefined && /^[A-Z]{2}$/.test(text.trim());
  // A code is also every division abbreviated so ("DE" Delaware, "MH" Maharashtra, "CA"
  // California): each is a reading beside the country.
  const regionRefs = fromCode
    ? namedRegions(all, all, undefined, undefined)
    : namedRegions(all, tokens, country ?? regionHint, country);
  const cityRefs = namedCities(tokens, country, regionRefs);
  const places: PlaceRef[] = [...cityRefs];
  // A division the text names is a reading of its own unless a city of it is named too.
  for (const region of regionRefs) {
    if (!cityRefs.some((c) => c.country === region.country && c.region === region.region))
      places.push(region);
  }
  if (country && (places.length === 0 || fromCode)) places.push({ country });
  const postcodes = tokens.filter((token) => /^\d{4,6}$/.test(token));
  return {
    ...(country ? { country } : {}),
    regions: [...new Set(regionRefs.map((r) => r.region!))],
    postcodes,
    tokens,
    places,
  };
}

/**
 * The ISO code written in capitals as the last comma part of `text` ("Munich, DE") when a city
 * of that country is named by the words before it (`tokens`, the text's words, the code last);
 * undefined otherwise.
 */
function countryCodeAfterCity(text: string, tokens: readonly string[]): string | undefined {
  const comma = text.lastIndexOf(',');
  const code = comma < 0 ? '' : text.slice(comma + 1).trim();
  if (!/^[A-Z]{2}$/.test(code) || !countries().codes.has(code)) return undefined;
  return namedCities(tokens.slice(0, -1), code, []).length ? code : undefined;
}

/** A three-letter code in capitals after a comma, semicolon or slash, in parentheses, or alone. */
const ALPHA3_AT_END = /(?:^|[,;/(]\s*)([A-Z]{3})\s*(?:\)\s*)?$/u;

/**
 * The country `text` ends with as its ISO 3166-1 alpha-3 code in capitals, set apart as the
 * location's last part ("Sydney, AUS", "Paris (FRA)", "GBR"; `tokens`, the text's words, the
 * code last), unless the words before name cities elsewhere only: some codes are divisions'
 * abbreviations too ("Indianapolis, IND" Indiana, "Birmingham, ALA" Alabama, not India and
 * Åland). A division's abbreviation in use ("COL" Colima, "MEX" México State) is the country
 * only when a city of it is named before ("Bogotá, COL"). Undefined otherwise.
 */
function alpha3AtEnd(text: string, tokens: readonly string[]): string | undefined {
  const written = ALPHA3_AT_END.exec(text)?.[1];
  const code = written ? alpha3Country(written) : undefined;
  const key = written?.toLowerCase();
  if (!code || tokens[tokens.length - 1] !== key) return undefined;
  const before = tokens.slice(0, -1);
  if (namedCities(before, code, []).length) return code;
  const division = [...regions().abbreviations.values()].some((table) => table.has(key));
  return !division && namedCities(before, undefined, []).length === 0 ? code : undefined;
}

/** True when a division's name longer than `n` words ends the text `tokens`. */
function endsWithRegion(tokens: readonly string[], n: number): boolean {
  const tables = regions();
  for (let m = Math.min(tables.longest, tokens.length); m > n; m--) {
    if (tables.byName.has(tokens.slice(-m).join(' '))) return true;
  }
  return false;
}

/**
 * The divisions named in `all` (every word, the country's included: "England" is a country
 * alias and a division) and abbreviated in `tokens` (`nsw`; two-letter US codes collide with
 * words, "in", "or", "me", so only codes of 3 letters, at the end or before a postcode, or with
 * a country, count).
 */
function namedRegions(
  all: readonly string[],
  tokens: readonly string[],
  hint: string | undefined,
  country: string | undefined,
): PlaceRef[] {
  const tables = regions();
  const out: PlaceRef[] = [];
  const add = (ref: PlaceRef, anyCountry = false) => {
    if (country && ref.country !== country && !anyCountry) return;
    if (!out.some((r) => r.country === ref.country && r.region === ref.region)) out.push(ref);
  };
  // A text that is a country's name and a division's ("Georgia") is read both ways.
  const whole = all.join(' ');
  for (const [phrase] of phrases(all, tables.longest)) {
    for (const ref of tables.byName.get(phrase) ?? []) add(ref, phrase === whole);
  }
  const last = tokens[tokens.length - 1] ?? '';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const atEnd = i === tokens.length - 1 || (i === tokens.length - 2 && /^\d{4,6}$/.test(last));
    if (hint) {
      const region = tables.abbreviations.get(hint)?.get(token);
      if (region) add({ country: hint, region });
    } else if (token.length >= 3 || atEnd) {
      for (const { country: code, region } of tables.byAbbreviation.get(token) ?? [])
        add({ country: code, region });
    }
  }
  return out;
}

/**
 * The cities named in `tokens` (the words that are not the country's), within the country and
 * the divisions named when there are any ("Paris, Texas" is not the French one).
 */
function namedCities(
  tokens: readonly string[],
  country: string | undefined,
  named: readonly PlaceRef[],
): PlaceRef[] {
  if (tokens.length === 0) return [];
  const tables = cities();
  const out: PlaceRef[] = [];
  for (const [phrase] of phrases(tokens, tables.longest)) {
    for (const ref of tables.byName.get(phrase) ?? []) {
      if (country && ref.country !== country) continue;
      // A division named beside the city decides between namesakes; the city's own division
      // named alone ("New York", "Berlin") is the city's reading too.
      if (
        named.length &&
        !named.some((r) => r.country === ref.country && (r.region === ref.region || !ref.region))
      )
        if (!named.some((r) => r.region === phrase)) continue;
      if (!out.includes(ref)) out.push(ref);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparing places
// ---------------------------------------------------------------------------------------------

/** Where an entity is, as far as the hierarchy can tell from its stated places. */
export interface EntityPlaces {
  readonly countries: ReadonlySet<string>;
  /** `country:region` of its divisions, stated or implied by its cities. */
  readonly regions: ReadonlySet<string>;
  /** Its cities' folded names. */
  readonly cities: ReadonlySet<string>;
  /** `country:city` of its cities the hierarchy knows (large enough to be in its tables). */
  readonly knownCities: ReadonlySet<string>;
  /** Countries in which it has a division, and in which it has a known city. */
  readonly regionCountries: ReadonlySet<string>;
  readonly cityCountries: ReadonlySet<string>;
}

// 8 MiB: about 20,000 entities' places (six small sets each, ~64 bytes per member).
const entityMemo = new BoundedMemo<EntityPlaces>(8 * 1024 * 1024, placesBytes);
function placesBytes(places: EntityPlaces): number {
  let members = 0;
  for (const set of Object.values(places) as ReadonlySet<string>[]) members += set.size;
  return 6 * 64 + members * 64;
}

const NO_PLACES: EntityPlaces = {
  countries: new Set(),
  regions: new Set(),
  cities: new Set(),
  knownCities: new Set(),
  regionCountries: new Set(),
  cityCountries: new Set(),
};

/**
 * The places of an entity from its stated countries (ISO codes), divisions (canonical folded
 * names) and cities (folded): a city the hierarchy knows adds its division and, when no country
 * is stated, its country; a city of several places (Liverpool, England and New South Wales)
 * adds each of them as a place the entity may be.
 */
export function entityPlaces(
  countryCodes: readonly string[],
  regionNames: readonly string[],
  cityNames: readonly string[],
): EntityPlaces {
  if (countryCodes.length + regionNames.length + cityNames.length === 0) return NO_PLACES;
  const key = `${countryCodes.join(',')}|${regionNames.join(',')}|${cityNames.join(',')}`;
  return entityMemo.get(key, () => {
    const countriesOf = new Set(countryCodes.filter((c) => /^[A-Z]{2}$/.test(c)));
    const regionsOf = new Set<string>();
    const known = regions().byName;
    for (const region of regionNames) {
      const refs = (known.get(region) ?? []).filter(
        (r) => countriesOf.size === 0 || countriesOf.has(r.country),
      );
      if (refs.length === 1) {
        regionsOf.add(`${refs[0].country}:${refs[0].region}`);
        countriesOf.add(refs[0].country);
      } else for (const country of countriesOf) regionsOf.add(`${country}:${region}`);
    }
    const byName = cities().byName;
    const knownCities = new Set<string>();
    const stated = countriesOf.size > 0;
    for (const city of cityNames) {
      const refs = (byName.get(city) ?? []).filter(
        (r) =>
          (!stated || countriesOf.has(r.country)) &&
          (regionNames.length === 0 || (r.region !== undefined && regionNames.includes(r.region))),
      );
      // Each reading of the city is a place the entity may be (Liverpool: England or New South
      // Wales): a query naming any of them is no conflict.
      for (const ref of refs) {
        knownCities.add(`${ref.country}:${ref.city}`);
        if (!stated) countriesOf.add(ref.country);
        if (ref.region) regionsOf.add(`${ref.country}:${ref.region}`);
      }
    }
    const countryOf = (key: string) => key.slice(0, key.indexOf(':'));
    return {
      countries: countriesOf,
      regions: regionsOf,
      cities: new Set(cityNames),
      knownCities,
      regionCountries: new Set([...regionsOf].map(countryOf)),
      cityCountries: new Set([...knownCities].map(countryOf)),
    };
  });
}

/** How a query's location compares with an entity's places. */
export interface PlaceComparison {
  /** Some reading of the query lies in the entity's country (or contains it). */
  readonly country: boolean;
  /** … in the entity's division. */
  readonly region: boolean;
  /** … names the entity's city. */
  readonly city: boolean;
  /**
   * Every reading of the query is elsewhere, at a level where both sides are known: a country
   * the entity is not in, or a division or city of its country that is not its own.
   */
  readonly conflict: boolean;
  /** The conflict is at the country level (no reading shares a country with the entity). */
  readonly countryConflict: boolean;
}

const NO_COMPARISON: PlaceComparison = {
  country: false,
  region: false,
  city: false,
  conflict: false,
  countryConflict: false,
};

/** Compares the readings of a query location with an entity's places (see `PlaceComparison`). */
export function comparePlaces(query: ParsedLocation, entity: EntityPlaces): PlaceComparison {
  if (query.places.length === 0 || (entity.countries.size === 0 && entity.cities.size === 0))
    return NO_COMPARISON;
  let country = false;
  let region = false;
  let city = false;
  let compatible = false;
  let sharesCountry = false;
  for (const place of query.places) {
    const countryKnown = entity.countries.size > 0;
    const inCountry = entity.countries.has(place.country);
    if (countryKnown && !inCountry) continue;
    sharesCountry ||= inCountry;
    const regionKey = place.region ? `${place.country}:${place.region}` : undefined;
    if (regionKey && entity.regionCountries.has(place.country) && !entity.regions.has(regionKey)) continue;
    // Another city of the same country is elsewhere, when the hierarchy knows the entity's
    // city; one it does not know may be a district or suburb of the query's (Paddington, London).
    const elsewhere = !entity.knownCities.has(`${place.country}:${place.city}`);
    if (place.city && entity.cityCountries.has(place.country) && elsewhere) continue;
    compatible = true;
    country ||= inCountry;
    region ||= regionKey !== undefined && entity.regions.has(regionKey);
    city ||=
      place.city !== undefined &&
      (entity.cities.has(place.city) || entity.knownCities.has(`${place.country}:${place.city}`));
  }
  const conflict = !compatible;
  return {
    country,
    region,
    city,
    conflict,
    countryConflict: conflict && !sharesCountry && entity.countries.size > 0,
  };
}
