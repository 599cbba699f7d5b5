/**
 * Places: country names in any common spelling to ISO 3166-1 alpha-2 codes, state and province
 * abbreviations to their names, and free-text locations ("Ohio, United States", "paddington
 * nsw", "8 dryandra street, ballarat") split into what they can be recognised as.
 */
import { getCountries } from 'libphonenumber-js';
import { BoundedMemo } from './memo.ts';
import { foldText, textTokens } from './text.ts';

// Spellings the ICU English names do not cover: ISO official forms, short forms, old names.
const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
  usa: 'US',
  us: 'US',
  'u s a': 'US',
  'u s': 'US',
  'united states of america': 'US',
  america: 'US',
  uk: 'GB',
  'u k': 'GB',
  'great britain': 'GB',
  britain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  'viet nam': 'VN',
  'korea republic of': 'KR',
  'republic of korea': 'KR',
  korea: 'KR',
  'korea democratic peoples republic of': 'KP',
  'democratic peoples republic of korea': 'KP',
  'russian federation': 'RU',
  'iran islamic republic of': 'IR',
  'bolivia plurinational state of': 'BO',
  'tanzania united republic of': 'TZ',
  'syrian arab republic': 'SY',
  'lao peoples democratic republic': 'LA',
  'moldova republic of': 'MD',
  'venezuela bolivarian republic of': 'VE',
  'taiwan province of china': 'TW',
  'palestine state of': 'PS',
  'holy see vatican city state': 'VA',
  'holy see': 'VA',
  vatican: 'VA',
  'congo the democratic republic of the': 'CD',
  'democratic republic of the congo': 'CD',
  drc: 'CD',
  'congo republic': 'CG',
  'brunei darussalam': 'BN',
  macao: 'MO',
  turkiye: 'TR',
  turkey: 'TR',
  swaziland: 'SZ',
  'czech republic': 'CZ',
  'virgin islands british': 'VG',
  'cote divoire': 'CI',
  'ivory coast': 'CI',
  'north macedonia': 'MK',
  macedonia: 'MK',
  burma: 'MM',
  holland: 'NL',
  'the netherlands': 'NL',
  uae: 'AE',
  'hong kong sar china': 'HK',
  'macao sar china': 'MO',
  deutschland: 'DE',
  espana: 'ES',
  brasil: 'BR',
  'east timor': 'TL',
  'cape verde': 'CV',
};

// States and provinces whose abbreviations appear in addresses: abbreviation → folded name.
const REGION_ABBREVIATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  US: {
    al: 'alabama',
    ak: 'alaska',
    az: 'arizona',
    ar: 'arkansas',
    ca: 'california',
    co: 'colorado',
    ct: 'connecticut',
    de: 'delaware',
    dc: 'district of columbia',
    fl: 'florida',
    ga: 'georgia',
    hi: 'hawaii',
    id: 'idaho',
    il: 'illinois',
    in: 'indiana',
    ia: 'iowa',
    ks: 'kansas',
    ky: 'kentucky',
    la: 'louisiana',
    me: 'maine',
    md: 'maryland',
    ma: 'massachusetts',
    mi: 'michigan',
    mn: 'minnesota',
    ms: 'mississippi',
    mo: 'missouri',
    mt: 'montana',
    ne: 'nebraska',
    nv: 'nevada',
    nh: 'new hampshire',
    nj: 'new jersey',
    nm: 'new mexico',
    ny: 'new york',
    nc: 'north carolina',
    nd: 'north dakota',
    oh: 'ohio',
    ok: 'oklahoma',
    or: 'oregon',
    pa: 'pennsylvania',
    ri: 'rhode island',
    sc: 'south carolina',
    sd: 'south dakota',
    tn: 'tennessee',
    tx: 'texas',
    ut: 'utah',
    vt: 'vermont',
    va: 'virginia',
    wa: 'washington',
    wv: 'west virginia',
    wi: 'wisconsin',
    wy: 'wyoming',
    pr: 'puerto rico',
  },
  AU: {
    nsw: 'new south wales',
    vic: 'victoria',
    qld: 'queensland',
    sa: 'south australia',
    wa: 'western australia',
    tas: 'tasmania',
    nt: 'northern territory',
    act: 'australian capital territory',
  },
  CA: {
    ab: 'alberta',
    bc: 'british columbia',
    mb: 'manitoba',
    nb: 'new brunswick',
    nl: 'newfoundland and labrador',
    ns: 'nova scotia',
    on: 'ontario',
    pe: 'prince edward island',
    qc: 'quebec',
    sk: 'saskatchewan',
    nt: 'northwest territories',
    nu: 'nunavut',
    yt: 'yukon',
  },
};

function placeKey(text: string): string {
  return textTokens(text).join(' ');
}

const COUNTRY_BY_NAME: Map<string, string> = buildCountryTable();
// Full region names → the same name, plus abbreviations (only unambiguous ones without context).
const REGION_NAMES = new Set<string>();
for (const table of Object.values(REGION_ABBREVIATIONS))
  for (const name of Object.values(table)) REGION_NAMES.add(name);

function buildCountryTable(): Map<string, string> {
  const table = new Map<string, string>();
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  // Current ISO codes only (ICU also names withdrawn ones, e.g. VD "North Vietnam").
  for (const code of [...getCountries(), 'XK', 'AQ']) {
    const name = names.of(code);
    if (name && name !== code) table.set(placeKey(name), code);
  }
  for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) table.set(alias, code);
  return table;
}

const countries = new BoundedMemo<string | undefined>(10_000);

/** ISO 3166-1 alpha-2 code for a country name in a common spelling, else `undefined`. */
export function countryCode(name: string): string | undefined {
  return countries.get(name, () => lookUpCountry(name));
}

function lookUpCountry(name: string): string | undefined {
  const key = placeKey(name);
  if (key === '') return undefined;
  const direct = COUNTRY_BY_NAME.get(key);
  if (direct) return direct;
  if (/^[a-z]{2}$/.test(key) && name.trim() === name.trim().toUpperCase()) {
    const upper = key.toUpperCase();
    if ((getCountries() as string[]).includes(upper)) return upper;
  }
  return undefined;
}

// Place names repeat across a graph (a few thousand cities and regions for millions of
// entities): an import folds each once instead of once per entity.
const cities = new BoundedMemo<string>(10_000);
const regions = new BoundedMemo<string>(10_000);

/** The folded tokens of a city name, space-joined (`São Paulo` → `sao paulo`). */
export function cityName(name: string): string {
  return cities.get(name, () => placeKey(name));
}

/** The folded full name of a state or province (`VIC` → `victoria`, `Ohio` → `ohio`). */
export function regionName(name: string, country?: string): string {
  // Keyed unambiguously for every country: the country's length, the country, the name.
  const countryKey = country ?? '';
  return regions.get(`${countryKey.length}:${countryKey}${name}`, () => lookUpRegion(name, country));
}

function lookUpRegion(name: string, country: string | undefined): string {
  const key = placeKey(name);
  const own = (table: Readonly<Record<string, string>> | undefined) =>
    table && Object.hasOwn(table, key) ? table[key] : undefined;
  if (country && Object.hasOwn(REGION_ABBREVIATIONS, country)) {
    const found = own(REGION_ABBREVIATIONS[country]);
    if (found) return found;
  }
  if (!country) {
    const found = Object.values(REGION_ABBREVIATIONS)
      .map(own)
      .filter((value): value is string => value !== undefined);
    if (found.length === 1) return found[0];
  }
  return key;
}

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
}

/**
 * Reads a free-text location. A country is recognised as a whole comma-separated part or as the
 * text's last one to four words; state abbreviations are expanded (`nsw` → `new south wales`).
 */
export function parseLocation(text: string, regionHint?: string): ParsedLocation {
  const folded = foldText(text);
  const parts = folded
    .split(/[,;/]/)
    .map((part) => placeKey(part))
    .filter(Boolean);
  let country: string | undefined;
  let rest = parts;
  // The country is a trailing run of comma parts ("Korea, Republic of"; "Ohio, United States").
  for (let i = 0; i < parts.length && !country; i++) {
    const code = COUNTRY_BY_NAME.get(parts.slice(i).join(' '));
    if (code) {
      country = code;
      rest = parts.slice(0, i);
    }
  }
  let tokens = rest.join(' ').split(' ').filter(Boolean);
  if (!country && tokens.length > 1) {
    for (let n = Math.min(4, tokens.length - 1); n >= 1 && !country; n--) {
      const tail = tokens.slice(-n).join(' ');
      const code = COUNTRY_BY_NAME.get(tail);
      if (code && tail.length > 2) {
        country = code;
        tokens = tokens.slice(0, -n);
      }
    }
  }
  const joined = ` ${tokens.join(' ')} `;
  const regions = new Set<string>();
  for (const name of REGION_NAMES) if (joined.includes(` ${name} `)) regions.add(name);
  const hint = country ?? regionHint;
  for (const token of tokens) {
    const tables = hint
      ? Object.hasOwn(REGION_ABBREVIATIONS, hint)
        ? [REGION_ABBREVIATIONS[hint]]
        : []
      : Object.values(REGION_ABBREVIATIONS);
    for (const table of tables) {
      if (!Object.hasOwn(table, token)) continue;
      // Two-letter US codes collide with words ("in", "or", "me"): only 3-letter AU codes and
      // codes at the end of the text count without a country.
      const isLast = token === tokens[tokens.length - 1] || /^\d{4,6}$/.test(tokens[tokens.length - 1] ?? '');
      if (table?.[token] && (token.length >= 3 || isLast || hint)) regions.add(table[token]);
    }
  }
  const postcodes = tokens.filter((token) => /^\d{4,6}$/.test(token));
  return { ...(country ? { country } : {}), regions: [...regions], postcodes, tokens };
}
