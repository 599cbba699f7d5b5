/**
 * Training queries generated from graph entities with seeded noise of the kinds real queries
 * carry (see noise.ts). Which fields a query has varies as in real traffic: name only, url only,
 * name + location, e-mail only, name + title, …
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Entity } from '../../kg/index.ts';
import { normalizeDomain } from '../../kg/index.ts';
import type { MatchQuery } from '../query-analysis.ts';
import {
  abbreviate,
  acronym,
  changeCase,
  dropWord,
  nickname,
  removeDiacritics,
  reorder,
  typo,
  typos,
  urlVariant,
} from './noise.ts';
import type { Random } from './random.ts';

type NameNoise = (name: string, random: Random) => string;
const ORGANIZATION_NAME_NOISE: readonly NameNoise[] = [
  typos,
  changeCase,
  abbreviate,
  dropWord,
  (name) => reorder(name),
  (name) => removeDiacritics(name),
];

const COUNTRY_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  'United States': ['USA', 'United States of America', 'US'],
  'United Kingdom': ['UK', 'Great Britain', 'England'],
  'Korea, Republic of': ['South Korea', 'Korea'],
  'Russian Federation': ['Russia'],
  'Viet Nam': ['Vietnam'],
  'Iran, Islamic Republic of': ['Iran'],
  Turkiye: ['Turkey'],
  'Czech Republic': ['Czechia'],
  Netherlands: ['The Netherlands', 'Holland'],
};

function organizationQuery(entity: Entity, random: Random): MatchQuery | undefined {
  const name = entity.name;
  const hosts = [entity.homepageUri, ...(entity.allUris ?? [])].filter(
    (h): h is string => typeof h === 'string',
  );
  const country = entity.location?.country?.name;
  const region = entity.location?.region?.name;
  const location = (): string | undefined => {
    if (region && random.chance(0.3))
      return random.chance(0.5) || !country ? region : `${region}, ${country}`;
    if (!country) return region;
    const spellings = COUNTRY_SPELLINGS[country];
    return spellings && random.chance(0.3) ? random.pick(spellings) : country;
  };
  let queryName: string | undefined;
  if (name) {
    if (random.chance(0.05) && acronym(name).length >= 3 && country) {
      return {
        type: 'Organization',
        names: [acronym(name)],
        urls: [],
        emails: [],
        phones: [],
        location: country,
      };
    }
    queryName = name;
    const count = random.pick([0, 0, 1, 1, 1, 2, 2]);
    for (let i = 0; i < count; i++) queryName = random.pick(ORGANIZATION_NAME_NOISE)(queryName, random);
    if (queryName.trim() === '') queryName = name;
  }
  let url: string | undefined;
  if (hosts.length) {
    const host = normalizeDomain(random.chance(0.8) ? hosts[0] : random.pick(hosts))?.host;
    if (host) url = urlVariant(host, random);
  }
  const phone = phoneVariant(entity, random);
  const combos: (readonly ('name' | 'url' | 'loc' | 'phone')[])[] = [
    ['name'],
    ['name'],
    ['name', 'loc'],
    ['name', 'loc'],
    ['name', 'url'],
    ['url'],
    ['url', 'loc'],
    ['name', 'url', 'loc'],
    // Only entities with phones (the demo graph) can use these.
    ['name', 'phone'],
    ['phone', 'loc'],
  ];
  const usable = combos.filter(
    (c) =>
      (!c.includes('name') || queryName) &&
      (!c.includes('url') || url) &&
      (!c.includes('loc') || country || region) &&
      (!c.includes('phone') || phone),
  );
  if (usable.length === 0) return undefined;
  const combo = random.pick(usable);
  const loc = combo.includes('loc') ? location() : undefined;
  return {
    type: 'Organization',
    names: combo.includes('name') && queryName ? [queryName] : [],
    urls: combo.includes('url') && url ? [url] : [],
    emails: [],
    phones: combo.includes('phone') && phone ? [phone] : [],
    ...(loc ? { location: loc } : {}),
  };
}

const GIVEN_NAMES = [
  'John',
  'Mary',
  'James',
  'Anne',
  'Henry',
  'Alice',
  'Charles',
  'Ellen',
  'George',
  'Jane',
  'Edward',
  'Rose',
];

function maybeTypo(text: string, random: Random, p: number): string {
  return random.chance(p) ? typos(text, random) : text;
}

function personName(entity: Entity, random: Random): string | undefined {
  const first = entity.nameDetail?.firstName;
  const last = entity.nameDetail?.lastName;
  const full = entity.name;
  if (!full) return undefined;
  let parts: string[];
  const r = random.next();
  if (first && last) {
    if (r < 0.5) parts = [first, last];
    else if (r < 0.6) parts = full.split(/[\s,]+/).filter(Boolean);
    else if (r < 0.68) parts = [first];
    else if (r < 0.76) parts = [last];
    else if (r < 0.82) parts = [last, first];
    else if (r < 0.9) parts = [nickname(first, random) ?? first, last];
    // Another form of the given name that no table knows (a variant, a second name).
    else if (r < 0.95) parts = [random.pick(GIVEN_NAMES), last];
    // Shortened or extended: the given name, or an initial, with the other parts of the name.
    else parts = [random.chance(0.5) ? first[0] : first, ...full.split(/[\s,]+/).slice(1)];
  } else {
    parts = full.split(/\s+/);
  }
  let out = parts.map((p) => maybeTypo(p, random, 0.28)).join(' ');
  if (random.chance(0.5)) out = out.toLowerCase();
  return out.trim() || undefined;
}

function emailVariant(email: string, random: Random): string {
  if (!random.chance(0.5)) return email;
  let out = typo(email, random);
  if (random.chance(0.3)) out = typo(out, random);
  return out;
}

function personLocation(entity: Entity, random: Random): string | undefined {
  const location = entity.location;
  const city = location?.city?.name;
  const address = typeof location?.address === 'string' ? location.address : undefined;
  if (address) {
    const [street, locality] = address.split(/,\s*/);
    const state = location?.region?.name;
    const postcode = location?.postalCode;
    const forms = [
      city && state ? `${city} ${state}` : undefined,
      street && city ? `${street}, ${city}` : undefined,
      address,
      state && postcode ? `${state} ${postcode}` : undefined,
      locality && city ? `${street}, ${locality}` : undefined,
    ].filter((f): f is string => f !== undefined);
    if (forms.length === 0) return undefined;
    return maybeTypo(random.pick(forms), random, 0.35).toLowerCase();
  }
  if (!city) return undefined;
  const out = maybeTypo(city, random, 0.3);
  return random.chance(0.5) ? out.toLowerCase() : out;
}

/** A phone number as people type it: as stored, bare E.164, or national format. */
function phoneVariant(entity: Entity, random: Random): string | undefined {
  const phone = entity.phoneNumbers?.[0];
  if (!phone) return undefined;
  const digits = phone.digits ?? phone.string;
  const r = random.next();
  if (r < 0.4) return phone.string;
  if (r < 0.7) return digits;
  return parsePhoneNumberFromString(digits)?.formatNational() ?? phone.string;
}

/**
 * The employer a query names: the current one mostly, a past one sometimes (stale CRM rows),
 * someone else's now and then (a source error), with the noise organization names carry.
 */
function employerVariant(entity: Entity, random: Random, others: readonly Entity[]): string | undefined {
  const employments = entity.employments ?? [];
  const current = employments.find((e) => e.isCurrent === true && e.employer?.name);
  const past = employments.filter((e) => e.isCurrent !== true && e.employer?.name);
  // No random draw for entities without employers: their queries stay as they were.
  if (!current && past.length === 0) return undefined;
  let source = current ?? past[0];
  if (past.length > 0 && random.chance(0.15)) source = random.pick(past);
  if (random.chance(0.05)) {
    const other = random.pick(others).employments?.find((e) => e.employer?.name);
    if (other) source = other;
  }
  const name = source?.employer?.name;
  if (!name) return undefined;
  let out = name;
  const count = random.pick([0, 0, 1, 1, 2]);
  for (let i = 0; i < count; i++) out = random.pick(ORGANIZATION_NAME_NOISE)(out, random);
  return out.trim() || name;
}

function personQuery(entity: Entity, random: Random, others: readonly Entity[]): MatchQuery | undefined {
  const name = personName(entity, random);
  const emailRaw = entity.emailAddresses?.[0]?.contactString;
  const email = emailRaw ? emailVariant(emailRaw, random) : undefined;
  let location = personLocation(entity, random);
  // Now and then a field holds someone else's value (a real source error).
  if (location && random.chance(0.06)) location = personLocation(random.pick(others), random) ?? location;
  let titleRaw = entity.employments?.[0]?.title;
  if (titleRaw && random.chance(0.08)) titleRaw = random.pick(others).employments?.[0]?.title ?? titleRaw;
  const title = titleRaw ? maybeTypo(titleRaw, random, 0.1) : undefined;
  const employer = employerVariant(entity, random, others);
  const phone = phoneVariant(entity, random);
  const combos: (readonly ('name' | 'email' | 'loc' | 'title' | 'employer' | 'phone')[])[] = [
    ['name'],
    ['name'],
    ['name', 'email'],
    ['name', 'email'],
    ['name', 'loc'],
    ['name', 'loc'],
    ['email'],
    ['email', 'loc'],
    ['name', 'email', 'loc'],
    ['name', 'title'],
    ['name', 'title', 'loc'],
    // Only entities with employers or phones (the demo graph) can use these.
    ['name', 'employer'],
    ['name', 'employer'],
    ['name', 'employer', 'title'],
    ['name', 'employer', 'loc'],
    ['name', 'phone'],
    ['phone'],
  ];
  const usable = combos.filter(
    (c) =>
      (!c.includes('name') || name) &&
      (!c.includes('email') || email) &&
      (!c.includes('loc') || location) &&
      (!c.includes('title') || title) &&
      (!c.includes('employer') || employer) &&
      (!c.includes('phone') || phone),
  );
  if (usable.length === 0) return undefined;
  const combo = random.pick(usable);
  // A national-format number needs its country: phone queries carry the location too.
  const withLocation = combo.includes('loc') || combo.includes('phone');
  const place = withLocation ? (location ?? entity.location?.country?.name) : undefined;
  return {
    type: 'Person',
    names: combo.includes('name') && name ? [name] : [],
    urls: [],
    emails: combo.includes('email') && email ? [email] : [],
    phones: combo.includes('phone') && phone ? [phone] : [],
    ...(place ? { location: place } : {}),
    ...(combo.includes('title') && title ? { title } : {}),
    ...(combo.includes('employer') && employer ? { employer } : {}),
  };
}

/**
 * A noisy query describing `entity`, or `undefined` when the entity has too little to query by.
 * `others` (same type) supplies wrong values for the occasional source error.
 */
export function generateQuery(
  entity: Entity,
  random: Random,
  others: readonly Entity[],
): MatchQuery | undefined {
  return entity.type === 'Person' ? personQuery(entity, random, others) : organizationQuery(entity, random);
}
