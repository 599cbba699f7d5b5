/**
 * Training queries generated from graph entities with seeded noise of the kinds real queries
 * carry (see noise.ts). Which fields a query has varies as in real traffic: name only, url only,
 * name + location, e-mail only, name + title, …
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Entity } from '../../kg/index.ts';
import { normalizeDomain, normalizePersonName } from '../../kg/index.ts';
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
import type { Random } from '../../random.ts';

type NameNoise = (name: string, random: Random) => string;

/** Legal forms as people write them: dotted, spelled out, in capitals, or another one. */
const LEGAL_FORMS: Readonly<Record<string, readonly string[]>> = {
  Inc: ['Inc.', 'Incorporated', 'INC', 'Corp.'],
  LLC: ['L.L.C.', 'Limited Liability Company', 'LLC.', 'Inc.'],
  Corp: ['Corp.', 'Corporation', 'Inc'],
  Ltd: ['Ltd.', 'Limited', 'LTD'],
  PLC: ['P.L.C.', 'plc', 'Public Limited Company', 'Ltd'],
  GmbH: ['G.m.b.H.', 'GMBH', 'Gesellschaft mit beschränkter Haftung', 'AG'],
  AG: ['A.G.', 'Aktiengesellschaft', 'GmbH'],
  SA: ['S.A.', 'S. A.', 'Société Anonyme', 'Sociedad Anónima', 'SAS'],
  SAS: ['S.A.S.', 'SA'],
  SL: ['S.L.', 'Sociedad Limitada', 'SA'],
  BV: ['B.V.', 'B. V.', 'NV'],
  NV: ['N.V.', 'BV'],
  Ltda: ['Ltda.', 'Limitada', 'LTDA'],
  KK: ['K.K.', 'Kabushiki Kaisha', 'Co., Ltd.'],
  'Pvt Ltd': ['Pvt. Ltd.', 'Private Limited', 'Ltd'],
  'Pty Ltd': ['Pty. Ltd.', 'Proprietary Limited', 'Pty Limited', 'Ltd'],
  Company: ['Co.', 'Co'],
  Limited: ['Ltd', 'Ltd.'],
};
const LEGAL_SUFFIX = new RegExp(
  `\\s(${Object.keys(LEGAL_FORMS)
    .sort((a, b) => b.length - a.length)
    .join('|')})$`,
);

/** The legal form written another way, another form, or left out. */
function legalVariant(name: string, random: Random): string {
  const match = LEGAL_SUFFIX.exec(name);
  if (!match) return name;
  const stem = name.slice(0, match.index);
  return random.chance(0.25) ? stem : `${stem} ${random.pick(LEGAL_FORMS[match[1]])}`;
}

/** Only the name's own, distinctive word (or words): "Lebomivo" for "Lebomivo Robotics LLC". */
function partialName(name: string, random: Random): string {
  const words = name.replace(LEGAL_SUFFIX, '').split(' ');
  if (words.length < 2) return name;
  return random.chance(0.7) ? words[0] : words.slice(0, -1).join(' ');
}

const ORGANIZATION_NAME_NOISE: readonly NameNoise[] = [
  typos,
  changeCase,
  abbreviate,
  dropWord,
  (name) => reorder(name),
  (name) => removeDiacritics(name),
  legalVariant,
  legalVariant,
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

const ANY_COUNTRIES = [
  'Germany',
  'France',
  'United States',
  'Japan',
  'Brazil',
  'India',
  'Canada',
  'Spain',
  'Italy',
];

/** An IPv4 or IPv6 address inside a CIDR range of the demo's shapes (`/24`, `/56`). */
function addressIn(range: string, random: Random): string | undefined {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.0\/24$/.exec(range);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.${1 + random.int(254)}`;
  const v6 = /^([0-9a-f:]+)::\/56$/.exec(range);
  if (v6) return `${v6[1]}::${(1 + random.int(0xfffe)).toString(16)}`;
  return undefined;
}

/** Where a query says an organization is: its country, region or city, now and then elsewhere. */
function organizationLocation(entity: Entity, random: Random): string | undefined {
  const country = entity.location?.country?.name;
  const region = entity.location?.region?.name;
  const city = entity.location?.city?.name;
  const otherCountries = (entity.locations ?? [])
    .map((l) => l.country?.name)
    .filter((c) => c && c !== country);
  // A country it is not in: an office elsewhere, a stale row, a source error.
  if (random.chance(0.04)) return random.pick(ANY_COUNTRIES);
  if (otherCountries.length && random.chance(0.2)) return otherCountries[0];
  if (city && random.chance(0.2)) return random.chance(0.5) || !country ? city : `${city}, ${country}`;
  if (region && random.chance(0.3)) return random.chance(0.5) || !country ? region : `${region}, ${country}`;
  if (!country) return region;
  const spellings = COUNTRY_SPELLINGS[country];
  return spellings && random.chance(0.3) ? random.pick(spellings) : country;
}

function organizationQuery(
  entity: Entity,
  random: Random,
  others: readonly Entity[],
): MatchQuery | undefined {
  const name = entity.name;
  const hosts = [entity.homepageUri, ...(entity.allUris ?? [])].filter(
    (h): h is string => typeof h === 'string',
  );
  const country = entity.location?.country?.name;
  const region = entity.location?.region?.name;
  const location = () => organizationLocation(entity, random);
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
    if (random.chance(0.06)) queryName = partialName(queryName, random);
    if (queryName.trim() === '') queryName = name;
  }
  const ip = entity.ipRanges?.length ? addressIn(random.pick(entity.ipRanges), random) : undefined;
  let url: string | undefined;
  if (hosts.length) {
    const host = normalizeDomain(random.chance(0.8) ? hosts[0] : random.pick(hosts))?.host;
    if (host) url = urlVariant(host, random);
  }
  const phone = phoneVariant(entity, random);
  const combos: (readonly ('name' | 'url' | 'loc' | 'phone' | 'ip')[])[] = [
    ['name'],
    ['name'],
    ['name', 'loc'],
    ['name', 'loc'],
    ['name', 'url'],
    ['url'],
    ['url', 'loc'],
    ['name', 'url', 'loc'],
    // Only entities with phones or IP ranges (the demo graph) can use these.
    ['name', 'phone'],
    ['phone', 'loc'],
    ['phone'],
    ['ip'],
    ['name', 'ip'],
  ];
  const usable = combos.filter(
    (c) =>
      (!c.includes('name') || queryName) &&
      (!c.includes('url') || url) &&
      (!c.includes('loc') || country || region) &&
      (!c.includes('phone') || phone) &&
      (!c.includes('ip') || ip),
  );
  if (usable.length === 0) return undefined;
  const combo = random.pick(usable);
  const loc = combo.includes('loc') ? location() : undefined;
  // Without a location a number needs its country code: written with +, or without it.
  let phoneText = phone;
  if (combo.includes('phone') && !loc) {
    const e164 = digitsOf(entity);
    phoneText = e164 && random.chance(0.4) ? e164.replace(/^\+/, '') : e164;
  }
  // Another name beside the organization's own url: a brand, an old name, a source error.
  if (combo.includes('name') && combo.includes('url') && random.chance(0.06)) {
    const other = random.pick(others).name;
    if (other) queryName = other;
  }
  return {
    type: 'Organization',
    names: combo.includes('name') && queryName ? [queryName] : [],
    urls: combo.includes('url') && url ? [url] : [],
    emails: [],
    phones: combo.includes('phone') && phoneText ? [phoneText] : [],
    ...(loc ? { location: loc } : {}),
    ...(combo.includes('ip') && ip ? { ip } : {}),
  };
}

/** The entity's first phone number in E.164. */
function digitsOf(entity: Entity): string | undefined {
  const phone = entity.phoneNumbers?.[0];
  return phone?.digits ?? phone?.string;
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

const TITLES = ['Dr.', 'Dr', 'Prof.', 'Mr.', 'Mrs.', 'Ms', 'Mr', 'Prof. Dr.'];
const SUFFIXES = [' Jr.', ' Jr', ' III', ', PhD', ' PhD', ', MBA', ' Sr.'];

const TITLE_OF_NOBILITY =
  /^(?:(\d+(?:st|nd|rd|th))\s+)?(baroness|baronet|baron|countess|count|duchess|duke|earl|lady|lord|marchioness|marquess|marquis|viscountess|viscount)\s+(?:of\s+)?(.+)$/i;

/**
 * How people write a titled person ("William Cavendish, 3rd Earl of Devonshire"): by the title
 * alone ("Earl of Devonshire", "Lord Devonshire"), with the given name ("William, Earl of
 * Devonshire", "William 3rd Earl Devonshire"), or the name with the title shortened. Undefined
 * when the name carries no title of nobility after a comma.
 */
function titledName(full: string, random: Random): string | undefined {
  const comma = full.indexOf(',');
  if (comma < 0) return undefined;
  const title = TITLE_OF_NOBILITY.exec(full.slice(comma + 1).trim());
  if (!title) return undefined;
  const [, ordinal, rank, place] = title;
  const given = normalizePersonName(full).first;
  const name = full.slice(0, comma);
  const forms = [
    `${rank} of ${place}`,
    `Lord ${place}`,
    `${ordinal ?? ''} ${rank} of ${place}`,
    `${name}, ${rank} ${place}`,
    `${name}, ${ordinal ?? ''} ${place}`,
  ];
  if (given) forms.push(`${given} ${rank} of ${place}`, `${given}, ${rank} of ${place}`, `${given} ${place}`);
  if (given && ordinal) forms.push(`${given} ${ordinal} ${rank} ${place}`);
  return random.pick(forms).replace(/\s+/g, ' ').trim();
}

function personName(entity: Entity, random: Random): string | undefined {
  const first = entity.nameDetail?.firstName;
  const last = entity.nameDetail?.lastName;
  const middles = entity.nameDetail?.middleName ?? [];
  const full = entity.name;
  if (!full) return undefined;
  const titled = random.chance(0.3) ? titledName(full, random) : undefined;
  if (titled) return maybeTypo(random.chance(0.4) ? titled.toLowerCase() : titled, random, 0.15);
  let parts: string[];
  const r = random.next();
  if (first && last && middles.length && random.chance(0.3)) {
    // Middle names written as initials, or all of them.
    parts = random.chance(0.6) ? [first, ...middles.map((m) => `${m[0]}.`), last] : [first, ...middles, last];
  } else if (first && last) {
    if (r < 0.45) parts = [first, last];
    else if (r < 0.55) parts = full.split(/[\s,]+/).filter(Boolean);
    else if (r < 0.62) parts = [first];
    else if (r < 0.69) parts = [last];
    else if (r < 0.75) parts = [last, first];
    else if (r < 0.82) parts = [nickname(first, random) ?? first, last];
    // Another form of the given name that no table knows (a variant, a second name).
    else if (r < 0.86) parts = [random.pick(GIVEN_NAMES), last];
    // Middle names written as initials, or all of them.
    else if (r < 0.91 && middles.length) parts = [first, ...middles.map((m) => `${m[0]}.`), last];
    else if (r < 0.93 && middles.length) parts = [first, ...middles, last];
    // Shortened or extended: the given name, or an initial, with the other parts of the name.
    else parts = [random.chance(0.5) ? first[0] : first, ...full.split(/[\s,]+/).slice(1)];
  } else {
    parts = full.split(/\s+/);
  }
  let out = parts.map((p) => maybeTypo(p, random, 0.25)).join(' ');
  // How people write the name around it: a title, a suffix, surname first, case, no accents.
  if (first && last && parts.length >= 2 && parts[0] !== last) {
    const form = random.next();
    const given = parts.slice(0, -1).join(' ');
    const surname = parts[parts.length - 1];
    if (form < 0.04) out = `${surname.toUpperCase()}, ${given}`;
    else if (form < 0.08) out = `${surname}, ${given}`;
    else if (form < 0.1) out = `${surname.toUpperCase()} ${given}`;
    else if (form < 0.14) out = `${random.pick(TITLES)} ${out}`;
    else if (form < 0.17) out = `${out}${random.pick(SUFFIXES)}`;
  }
  if (random.chance(0.05)) out = removeDiacritics(out);
  if (random.chance(0.4)) out = out.toLowerCase();
  else if (random.chance(0.05)) out = out.toUpperCase();
  return out.trim() || undefined;
}

const FREE_MAIL = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'gmx.de',
  'web.de',
  'aol.com',
];
const ROLES = ['info', 'contact', 'sales', 'hello', 'office', 'support', 'team', 'admin'];

function slug(text: string): string {
  return removeDiacritics(text)
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/**
 * An address the query may give that the graph does not hold: a personal free-mail one made
 * of the name, a role mailbox or another form of the name at the employer's domain.
 */
function otherAddress(entity: Entity, random: Random): string | undefined {
  const first = slug(entity.nameDetail?.firstName ?? '');
  const last = slug(entity.nameDetail?.lastName ?? '');
  const known = entity.emailAddresses?.[0]?.contactString;
  const domain = known?.slice(known.lastIndexOf('@') + 1);
  if (!first || !last) return undefined;
  const r = random.next();
  if (r < 0.55) {
    const local = random.pick([
      `${first}.${last}`,
      `${first[0]}${last}`,
      `${first}${last}${10 + random.int(90)}`,
      `${last}.${first}`,
      `${first}_${last}`,
      `${first}${random.int(1000)}`,
    ]);
    return `${local}@${random.pick(FREE_MAIL)}`;
  }
  if (!domain) return undefined;
  if (r < 0.75) return `${random.pick(ROLES)}@${domain}`;
  if (r < 0.9)
    return `${random.pick([`${first[0]}${last}`, `${first[0]}.${last}`, `${first}`, `${last}`])}@${domain}`;
  // A sub-address of the known one.
  const at = known!.lastIndexOf('@');
  return `${known!.slice(0, at)}+${random.pick(['crm', 'news', 'x'])}${known!.slice(at)}`;
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
  // A place that contains the city: its region or country (when the graph states them).
  const region = location?.region?.name;
  const country = location?.country?.name;
  const r = random.next();
  if (region && r < 0.2) return region;
  if (country && r < 0.4)
    return random.chance(0.7) ? country : random.pick(COUNTRY_SPELLINGS[country] ?? [country]);
  if (country && r < 0.45) return `${city}, ${country}`;
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
  let email = emailRaw ? emailVariant(emailRaw, random) : undefined;
  if (random.chance(0.2)) email = otherAddress(entity, random) ?? email;
  let location = personLocation(entity, random);
  // Now and then a field holds someone else's value (a real source error).
  if (location && random.chance(0.06)) location = personLocation(random.pick(others), random) ?? location;
  let titleRaw = entity.employments?.[0]?.title;
  if (titleRaw && random.chance(0.08)) titleRaw = random.pick(others).employments?.[0]?.title ?? titleRaw;
  const title = titleRaw ? maybeTypo(titleRaw, random, 0.1) : undefined;
  const employer = employerVariant(entity, random, others);
  const phone = phoneVariant(entity, random);
  let school = entity.educations?.[0]?.institution?.name;
  if (school && random.chance(0.08))
    school = random.pick(others).educations?.[0]?.institution?.name ?? school;
  const ip = ipOf(entity, random);
  const combos: (readonly ('name' | 'email' | 'loc' | 'title' | 'employer' | 'phone' | 'school' | 'ip')[])[] =
    [
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
      // Only entities with employers, schools, phones or IP ranges (the demo graph) can use these.
      ['name', 'employer'],
      ['name', 'employer'],
      ['name', 'employer', 'title'],
      ['name', 'employer', 'loc'],
      ['name', 'school'],
      ['name', 'phone'],
      ['phone'],
      ['name', 'ip'],
    ];
  const usable = combos.filter(
    (c) =>
      (!c.includes('name') || name) &&
      (!c.includes('email') || email) &&
      (!c.includes('loc') || location) &&
      (!c.includes('title') || title) &&
      (!c.includes('employer') || employer) &&
      (!c.includes('phone') || phone) &&
      (!c.includes('school') || school) &&
      (!c.includes('ip') || ip),
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
    ...(combo.includes('school') && school ? { school } : {}),
    ...(combo.includes('ip') && ip ? { ip } : {}),
  };
}

/**
 * An address in the range of the person's current employer. The demo graph's ranges follow
 * from the employer's index (its id does not say it), so the generator reads them from the
 * employer's entity, which `others` may not hold: an address is made only when a range is known.
 */
function ipOf(entity: Entity, random: Random): string | undefined {
  const employer = entity.employments?.find((e) => e.isCurrent)?.employer;
  const ranges =
    (employer as { ipRanges?: string[] } | undefined)?.ipRanges ?? employerRanges.get(employer?.id ?? '');
  return ranges?.length ? addressIn(random.pick(ranges), random) : undefined;
}

/** IP ranges of the organizations generated so far, by id (set by `rememberRanges`). */
const employerRanges = new Map<string, readonly string[]>();

/** Lets person queries use their employer's IP ranges: call with the graph's organizations. */
export function rememberRanges(organizations: Iterable<Entity>): void {
  for (const o of organizations) if (o.ipRanges?.length) employerRanges.set(o.id, o.ipRanges);
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
  return entity.type === 'Person'
    ? personQuery(entity, random, others)
    : organizationQuery(entity, random, others);
}
