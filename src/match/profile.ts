/**
 * What the store keeps for each entity so the matcher can find it (retrieval keys) and score
 * it (a compact match profile). Computed once per entity at import: keep it cheap.
 */
import type { Entity, LinkedEntity, Location, NormalizedEmail, NormalizedPersonName } from '../kg/index.ts';
import {
  canonicalGivenName,
  cityName,
  countryCode,
  entityPlaces,
  foldText,
  hostAncestors,
  normalizeDomain,
  normalizeEmail,
  normalizeOrganizationName,
  isPersonNameNoise,
  isSurnameConjunction,
  normalizePersonName,
  normalizePhone,
  sharedHostProfile,
  organizationAcronyms,
  regionName,
  sortedDistinct,
  textTokens,
} from '../kg/index.ts';
import { ipKeysForRange } from './ip.ts';

/**
 * Key prefixes, one per kind of evidence. Name keys carry the entity type (`ot:` organization
 * name tokens, `pt:` person name tokens): they form the per-type term vocabularies.
 */
export const KEY = Object.freeze({
  orgToken: 'ot:',
  personToken: 'pt:',
  orgName: 'on:',
  personName: 'pn:',
  acronym: 'oa:',
  personPlace: 'pl:',
  personEmployer: 'pw:',
  /**
   * A person's past employer (its id, as `pw:` spells a current one): a query naming the
   * employer finds who worked there before too (`employment.isCurrent === false`).
   */
  personPastEmployer: 'pe:',
  /**
   * A school a person studied at, by its organization-name key (`normalizeOrganizationName`'s
   * `key`; most schools in a graph are names without an entity id): a query's `school`.
   */
  personSchool: 'ps:',
  /**
   * A person's whole-name key together with one of their places (`np:<name key>|c:<city>`,
   * `|r:<region>`, `|k:<country>`): among a common name's hundreds of namesakes, those in the
   * query's place (see `personNamePlaceKey`).
   */
  personNamePlace: 'np:',
  emailToken: 'et:',
  host: 'h:',
  /** A profile on a shared host (`linkedin.com/company/acme`): the whole path identifies. */
  profileUri: 'u:',
  domain: 'd:',
  email: 'e:',
  emailLocal: 'l:',
  emailDomain: 'm:',
  phone: 'p:',
  ip: 'i:',
});

/** Match profile of an Organization (short field names: profiles are stored per entity). */
export interface OrganizationProfile {
  readonly k: 'O';
  /** Each name's canonical tokens (stopwords included, legal suffixes dropped), space-joined. */
  readonly n: string[];
  /** Acronyms of the names. */
  readonly a?: string[];
  /** Canonical legal forms of the names (`llc`, `gmbh`). */
  readonly lf?: string[];
  /** Hosts (no `www.`). */
  readonly h?: string[];
  /** Registrable domains. */
  readonly d?: string[];
  /** Its profiles on shared hosts (`linkedin.com/company/acme`; `sharedHostProfile`). */
  readonly u?: string[];
  /** Country: ISO code, or the folded name when unrecognised. */
  readonly c?: string;
  /** Countries of its other locations (ISO codes). */
  readonly oc?: string[];
  /** Region full names (folded canonical, see `regionName`). */
  readonly r?: string[];
  /** City names (folded token strings). */
  readonly ci?: string[];
  readonly p?: string[];
  readonly e?: string[];
  readonly ip?: string[];
}

/** Match profile of a Person. */
export interface PersonProfile {
  readonly k: 'P';
  /** Each name's folded tokens (titles and particles removed), space-joined. */
  readonly n: string[];
  /** Given name and surname (folded), from `nameDetail` or the name. */
  readonly f?: string;
  readonly l?: string;
  readonly e?: string[];
  readonly c?: string;
  readonly r?: string[];
  readonly ci?: string[];
  /** Address and postcode tokens (folded). */
  readonly ad?: string[];
  /**
   * Titles / occupations (folded token strings): `t` those of current employments, `tp` past
   * ones. A profile stored before `tp` existed has every title in `t`.
   */
  readonly t?: string[];
  readonly tp?: string[];
  /** Employer names (canonical organization tokens, space-joined) and ids. */
  readonly w?: string[];
  readonly wi?: string[];
  /** Schools (canonical organization tokens). */
  readonly s?: string[];
  readonly b?: number;
  readonly p?: string[];
}

export type MatchProfile = OrganizationProfile | PersonProfile;

/** `T` with its fields assignable: a profile is built field by field, then only read. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** What the store keeps for an entity so the matcher can find and score it. */
export interface EntityIndex {
  readonly profile: MatchProfile;
  readonly keys: string[];
}

function strings(values: readonly (string | undefined)[]): string[] {
  return values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

function namesOf(entity: Entity): string[] {
  return [...new Set(strings([entity.name, ...(Array.isArray(entity.allNames) ? entity.allNames : [])]))];
}

function locationsOf(entity: Entity): Location[] {
  const out: Location[] = [];
  if (entity.location && typeof entity.location === 'object') out.push(entity.location);
  if (Array.isArray(entity.locations))
    for (const l of entity.locations) if (l && typeof l === 'object') out.push(l);
  // A place another source states (it lost to the canonical one) is still where the entity
  // may be: a query giving it is no conflict.
  if (Array.isArray(entity.nonCanonicalFacts)) {
    for (const fact of entity.nonCanonicalFacts) {
      if (fact?.field === 'location' && fact.value && typeof fact.value === 'object')
        out.push(fact.value as Location);
    }
  }
  return out;
}

function linkedName(linked: LinkedEntity | undefined): string | undefined {
  return typeof linked?.name === 'string' ? linked.name : undefined;
}

interface PlaceFacts {
  country?: string;
  /** Countries of the other locations. */
  others: string[];
  regions: string[];
  cities: string[];
  address: string[];
}

function placeFacts(entity: Entity): PlaceFacts {
  const facts: PlaceFacts = { others: [], regions: [], cities: [], address: [] };
  for (const location of locationsOf(entity)) {
    const named = linkedName(location.country);
    const country = named ? (countryCode(named) ?? textTokens(named).join(' ')) : undefined;
    if (country && !facts.country) facts.country = country;
    else if (country && country !== facts.country && !facts.others.includes(country))
      facts.others.push(country);
    const region = linkedName(location.region);
    if (region) {
      const name = regionName(region, country ?? facts.country);
      if (!facts.regions.includes(name)) facts.regions.push(name);
    }
    const city = linkedName(location.city);
    if (city && !facts.cities.includes(cityName(city))) facts.cities.push(cityName(city));
    const address = typeof location.address === 'string' ? location.address : location.street;
    if (typeof address === 'string') facts.address.push(...textTokens(address));
    if (typeof location.postalCode === 'string') facts.address.push(...textTokens(location.postalCode));
  }
  facts.address = [...new Set(facts.address)];
  return facts;
}

/** Social-profile fields (`linkedInUri`, `twitterUri`…), as the extractors and importers name them. */
const PROFILE_URI_FIELD = /^[a-z][A-Za-z]*Uri$/;

/**
 * An entity's own hosts and domains, and apart, its profiles on shared hosts: a LinkedIn page
 * among its URIs must not make it an owner of linkedin.com (a url= query for another company's
 * page would find every entity with one).
 */
function webFacts(entity: Entity): { hosts: string[]; domains: string[]; profiles: string[] } {
  const hosts = new Set<string>();
  const domains = new Set<string>();
  const profiles = new Set<string>();
  const social = Object.keys(entity).filter((k) => k !== 'homepageUri' && PROFILE_URI_FIELD.test(k));
  const uris = strings([
    entity.homepageUri,
    ...(Array.isArray(entity.allUris) ? entity.allUris : []),
    ...social.map((k) => (typeof entity[k] === 'string' ? (entity[k] as string) : undefined)),
  ]);
  for (const uri of uris) {
    const profile = sharedHostProfile(uri);
    if (profile) {
      profiles.add(profile);
      continue;
    }
    const domain = normalizeDomain(uri);
    if (!domain) continue;
    hosts.add(domain.host);
    domains.add(domain.registrable);
  }
  return { hosts: [...hosts], domains: [...domains], profiles: [...profiles] };
}

function contactFacts(
  entity: Entity,
  regionHint: string | undefined,
): { emails: NormalizedEmail[]; phones: string[] } {
  // Each address normalised once: its parts also give the e-mail keys (`addEmailKeys`).
  const emails = new Map<string, NormalizedEmail>();
  for (const email of Array.isArray(entity.emailAddresses) ? entity.emailAddresses : []) {
    const normalized =
      typeof email?.contactString === 'string' ? normalizeEmail(email.contactString) : undefined;
    // A repeated address keeps its first place (its parts are the same).
    if (normalized) emails.set(normalized.address, normalized);
  }
  const phones = new Set<string>();
  for (const phone of Array.isArray(entity.phoneNumbers) ? entity.phoneNumbers : []) {
    const raw = typeof phone?.digits === 'string' ? phone.digits : phone?.string;
    const normalized = typeof raw === 'string' ? normalizePhone(raw, regionHint) : undefined;
    if (normalized) phones.add(normalized);
  }
  return { emails: [...emails.values()], phones: [...phones] };
}

// Words of addresses that are in almost every address: no retrieval value.
const PLACE_NOISE: ReadonlySet<string> = new Set([
  'street',
  'st',
  'road',
  'rd',
  'avenue',
  'ave',
  'place',
  'pl',
  'crescent',
  'cres',
  'drive',
  'dr',
  'court',
  'ct',
  'lane',
  'close',
  'way',
  'circuit',
  'parade',
  'terrace',
  'the',
  'of',
  'and',
  'north',
  'south',
  'east',
  'west',
  'upon',
  'on',
  'city',
]);

/** Place tokens a person is found by: city and address words and postcodes, not street numbers. */
export function placeTokens(tokens: readonly string[]): string[] {
  return tokens.filter(isPlaceToken);
}

function isPlaceToken(token: string): boolean {
  return !PLACE_NOISE.has(token) && isPlaceWord(token);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A postcode (4–6 digits), or a word of 3+ characters that does not start with a digit. */
function isPlaceWord(token: string): boolean {
  if (!isDigit(token.charCodeAt(0))) return token.length >= 3;
  if (token.length < 4 || token.length > 6) return false;
  for (let i = 1; i < token.length; i++) if (!isDigit(token.charCodeAt(i))) return false;
  return true;
}

/** Top-level labels of e-mail domains: in every address, no retrieval value. */
export const EMAIL_NOISE: ReadonlySet<string> = new Set([
  'com',
  'org',
  'net',
  'biz',
  'info',
  'edu',
  'gov',
  'co',
  'uk',
  'mail',
  'email',
  'www',
]);

/**
 * Word-like runs of an e-mail address (local part and domain labels left of the public suffix),
 * for typo-tolerant lookup: runs of a–z of 3+ letters that are not noise, each once, in order.
 * The public suffix (`com`, `co.uk`, `example`: what `registrable` adds to its first label) is
 * shared by every address under it, so it never tells one entity from another. One scan (the
 * import runs this for every address).
 */
export function emailTokens(email: Pick<NormalizedEmail, 'address' | 'registrable'>): string[] {
  const { address, registrable } = email;
  const tokens = new Set<string>();
  // The suffix with its dot, when the address ends with it (a registrable domain of one label,
  // or one the normaliser could not tell, has none).
  const dot = registrable.indexOf('.');
  const suffixLength = dot < 0 ? 0 : registrable.length - dot;
  const end =
    suffixLength > 0 && address.endsWith(registrable.slice(dot))
      ? address.length - suffixLength
      : address.length;
  let start = -1;
  for (let i = 0; i <= end; i++) {
    const c = i < end ? address.charCodeAt(i) : 0;
    if (c >= 97 && c <= 122) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= 3) {
      const token = address.slice(start, i);
      if (!EMAIL_NOISE.has(token)) tokens.add(token);
    }
    start = -1;
  }
  return [...tokens];
}

function addEmailKeys(keys: Set<string>, emails: readonly NormalizedEmail[], withLocal: boolean): void {
  for (const email of emails) {
    keys.add(KEY.email + email.address);
    if (withLocal && email.local.length >= 3) keys.add(KEY.emailLocal + email.local);
    if (withLocal) for (const token of emailTokens(email)) keys.add(KEY.emailToken + token);
    if (!email.freeMail) keys.add(KEY.emailDomain + email.registrable);
  }
}

function indexOrganization(entity: Entity): EntityIndex {
  const keys = new Set<string>();
  const names: string[] = [];
  const acronyms = new Set<string>();
  const legalForms = new Set<string>();
  for (const name of namesOf(entity)) {
    const normalized = normalizeOrganizationName(name);
    if (normalized.tokens.length === 0) continue;
    names.push(normalized.tokens.join(' '));
    for (const form of normalized.legalForms) legalForms.add(form);
    for (const token of normalized.significant) keys.add(KEY.orgToken + token);
    if (normalized.key) keys.add(KEY.orgName + normalized.key);
    for (const acronym of organizationAcronyms(normalized)) acronyms.add(acronym);
  }
  for (const acronym of acronyms) keys.add(KEY.acronym + acronym);
  const web = webFacts(entity);
  for (const host of web.hosts) keys.add(KEY.host + host);
  for (const domain of web.domains) keys.add(KEY.domain + domain);
  for (const profile of web.profiles) keys.add(KEY.profileUri + profile);
  const place = placeFacts(entity);
  const contact = contactFacts(entity, place.country);
  addEmailKeys(keys, contact.emails, false);
  for (const phone of contact.phones) keys.add(KEY.phone + phone);
  const ranges = strings(Array.isArray(entity.ipRanges) ? entity.ipRanges : []);
  for (const range of ranges) for (const key of ipKeysForRange(range)) keys.add(KEY.ip + key);
  // Fields set one by one, in this order (the stored JSON's), only when present: cheaper than
  // spreading conditional object literals, and the import runs this for every entity.
  const profile: Writable<OrganizationProfile> = { k: 'O', n: names };
  if (acronyms.size) profile.a = [...acronyms];
  if (legalForms.size) profile.lf = [...legalForms];
  if (web.hosts.length) {
    profile.h = web.hosts;
    profile.d = web.domains;
  }
  if (web.profiles.length) profile.u = web.profiles;
  if (place.country) profile.c = place.country;
  if (place.others.length) profile.oc = place.others;
  if (place.regions.length) profile.r = place.regions;
  if (place.cities.length) profile.ci = place.cities;
  if (contact.phones.length) profile.p = contact.phones;
  if (contact.emails.length) profile.e = contact.emails.map((email) => email.address);
  if (ranges.length) profile.ip = ranges;
  return { profile, keys: [...keys] };
}

/**
 * Folded person-name tokens, given name first, without titles, particles and suffixes
 * (`normalizePersonName`: "SANTOS, Tom H." → `tom h santos`).
 */
export function personNameTokens(name: string): string[] {
  return [...normalizePersonName(name).tokens];
}

function birthYear(entity: Entity): number | undefined {
  const match =
    typeof entity.birthDate?.str === 'string' ? /^d?(-?\d{1,4})/.exec(entity.birthDate.str) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * The names a person is known by, as folded tokens: each name, and for a titled one ("William
 * Cavendish, 3rd Earl of Devonshire") the title's place with and without the given name
 * (`william devonshire`, `devonshire`), as "William, Earl of Devonshire" and "the Earl of
 * Devonshire" call him. Several holders of one title are namesakes, and split the score.
 */
function personNameForms(entity: Entity): string[][] {
  const forms = new Map<string, string[]>();
  for (const name of namesOf(entity)) {
    const normalized = normalizePersonName(name);
    if (normalized.tokens.length === 0) continue;
    forms.set(normalized.tokens.join(' '), [...normalized.tokens]);
    if (normalized.first !== undefined && normalized.titlePlace) {
      const titled = [normalized.first, ...normalized.titlePlace];
      forms.set(titled.join(' '), titled);
      forms.set(normalized.titlePlace.join(' '), [...normalized.titlePlace]);
    }
  }
  return [...forms.values()];
}

/**
 * A part of `nameDetail` (folded), unless it is a title or rank ("Sir", "Baronet") or the place
 * of a title that is not also a word of the name ("Devonshire" of "William Cavendish, 3rd Earl
 * of Devonshire"): sources that split a name at its first and last word write those, and the
 * part read from the name (`parsed`) is then meant. Any other part is kept, even one the name
 * spells otherwise (a name stored with a typo beside a correct `nameDetail`).
 */
function namePart(value: unknown, name: NormalizedPersonName, parsed?: string): string | undefined {
  if (typeof value !== 'string') return parsed;
  const words = textTokens(value);
  const ofTitle = (w: string) => name.titlePlace?.includes(w) === true && !name.tokens.includes(w);
  if (words.some((w) => isPersonNameNoise(w) || ofTitle(w))) return parsed;
  return foldText(value).trim();
}

/**
 * The words of a person's surname (`PersonProfile.l`, folded) when it has two or more: "rossi
 * santos", "rossi-santos", "rossi y santos" (a Spanish or Portuguese double surname, a married
 * name added); undefined for one word (most), or when a part has one letter ("O'Brien"). People
 * named so often write one of the two: the matcher reads the name also without the second
 * (features.ts), and the index keeps that name's key too (`withoutSecondSurname`).
 */
export function surnameWords(l: string | undefined): readonly string[] | undefined {
  if (l === undefined || /^[a-z]+$/.test(l)) return undefined;
  const words = textTokens(l).filter((w) => !isPersonNameNoise(w));
  return words.length >= 2 && words.every((w) => w.length >= 2 || isSurnameConjunction(w))
    ? words
    : undefined;
}

/**
 * Where name `tokens` end in the two surnames `surnames` (`surnameWords`): the position of the
 * second, the one a person named by the first leaves out ("Ada Amir Rossi" of Ada Amir Rossi
 * Santos; a conjunction before it, "Rossi y Santos", goes with it); -1 when they do not.
 */
export function secondSurnameAt(tokens: readonly string[], surnames: readonly string[]): number {
  const n = tokens.length;
  const m = surnames.length;
  if (n < 3 || m < 2 || tokens[n - 1] !== surnames[m - 1]) return -1;
  const before = isSurnameConjunction(tokens[n - 2]) && n >= 4 && m >= 3 ? n - 3 : n - 2;
  return tokens[before] === surnames[m - 1 - (n - 1 - before)] ? before + 1 : -1;
}

/**
 * The retrieval key of a person's whole-name key (as `pn:` spells it, without the prefix) with
 * a place: `level` `c` a city (`cityName`), `r` a region (`regionName`), `k` a country.
 */
export function personNamePlaceKey(nameKey: string, level: 'c' | 'r' | 'k', place: string): string {
  return `${KEY.personNamePlace}${nameKey}|${level}:${place}`;
}

/**
 * A person's whole-name key (`pn:` without its prefix) from formal name tokens: distinct, sorted.
 * Import and a query's name-and-place lookups (retrieval.ts) spell it through this one function.
 */
export function personNameKey(formal: readonly string[]): string {
  return sortedDistinct(formal).join(' ');
}

/**
 * A person's titles (current and past apart), employer names and ids, from the employments;
 * adds the employer keys (`pw:` current, `pe:` past) to `keys`.
 */
function employmentFacts(entity: Entity, keys: Set<string>) {
  const titles: string[] = [];
  const pastTitles: string[] = [];
  const employers: string[] = [];
  const employerIds: string[] = [];
  for (const employment of Array.isArray(entity.employments) ? entity.employments : []) {
    if (typeof employment?.title === 'string')
      (employment.isCurrent === false ? pastTitles : titles).push(textTokens(employment.title).join(' '));
    const employer = linkedName(employment?.employer);
    if (employer) employers.push(normalizeOrganizationName(employer).tokens.join(' '));
    if (typeof employment?.employer?.id === 'string') {
      employerIds.push(employment.employer.id);
      // `pw:` current employers only: an IP address tells where someone works now. A past one
      // is still evidence for a query naming it as the employer (`pe:`).
      if (employment.isCurrent !== false) keys.add(KEY.personEmployer + employment.employer.id);
      else keys.add(KEY.personPastEmployer + employment.employer.id);
    }
  }
  return { titles, pastTitles, employers, employerIds };
}

function indexPerson(entity: Entity): EntityIndex {
  const keys = new Set<string>();
  const names: string[] = [];
  const nameKeys: string[] = [];
  const primary = normalizePersonName(entity.name ?? namesOf(entity)[0] ?? '');
  const detail = entity.nameDetail;
  const first = namePart(detail?.firstName, primary, primary.first);
  const last = namePart(detail?.lastName, primary, primary.last);
  const surnames = surnameWords(last);
  for (const tokens of personNameForms(entity)) {
    names.push(tokens.join(' '));
    const formal: string[] = [];
    for (const token of tokens) {
      const canonical = canonicalGivenName(token);
      keys.add(KEY.personToken + token);
      keys.add(KEY.personToken + canonical);
      formal.push(canonical);
    }
    addNameKeys(formal, keys, nameKeys);
    // Without a second surname too ("Ada Rossi" of Ada Rossi Santos), as the matcher reads it.
    const second = surnames ? secondSurnameAt(tokens, surnames) : -1;
    if (second > 0) addNameKeys(formal.slice(0, second), keys, nameKeys);
  }
  const place = placeFacts(entity);
  const contact = contactFacts(entity, place.country);
  addEmailKeys(keys, contact.emails, true);
  for (const phone of contact.phones) keys.add(KEY.phone + phone);
  const { titles, pastTitles, employers, employerIds } = employmentFacts(entity, keys);
  const schools: string[] = [];
  for (const education of Array.isArray(entity.educations) ? entity.educations : []) {
    const school = linkedName(education?.institution);
    if (!school) continue;
    const normalized = normalizeOrganizationName(school);
    schools.push(normalized.tokens.join(' '));
    if (normalized.key) keys.add(KEY.personSchool + normalized.key);
  }
  // The words of every city, then the address words (as `placeTokens` would keep them).
  for (const city of place.cities) {
    for (const token of city.split(' ')) if (isPlaceToken(token)) keys.add(KEY.personPlace + token);
  }
  for (const token of place.address) if (isPlaceToken(token)) keys.add(KEY.personPlace + token);
  // Each whole name with each place at each level: a query of a common name and a place finds
  // the namesakes there among hundreds elsewhere.
  // Cities also by the hierarchy's name ("Genève" is Geneva, as a query's reading names it), and
  // the divisions and countries they imply.
  const countries = place.country ? [place.country, ...place.others] : place.others;
  const known = entityPlaces(countries, place.regions, place.cities);
  const cities = new Set(place.cities);
  for (const city of known.knownCities) cities.add(city.slice(city.indexOf(':') + 1));
  const regions = new Set(place.regions);
  for (const region of known.regions) regions.add(region.slice(region.indexOf(':') + 1));
  for (const nameKey of new Set(nameKeys)) {
    for (const city of cities) keys.add(personNamePlaceKey(nameKey, 'c', city));
    for (const region of regions) keys.add(personNamePlaceKey(nameKey, 'r', region));
    for (const country of new Set([...countries, ...known.countries]))
      keys.add(personNamePlaceKey(nameKey, 'k', country));
  }
  const year = birthYear(entity);
  const profile: Writable<PersonProfile> = { k: 'P', n: names };
  if (first) profile.f = first;
  if (last) profile.l = last;
  if (contact.emails.length) profile.e = contact.emails.map((email) => email.address);
  if (place.country) profile.c = place.country;
  if (place.regions.length) profile.r = place.regions;
  if (place.cities.length) profile.ci = place.cities;
  if (place.address.length) profile.ad = place.address;
  if (titles.length) profile.t = titles;
  if (pastTitles.length) profile.tp = pastTitles;
  if (employers.length) profile.w = employers;
  if (employerIds.length) profile.wi = employerIds;
  if (schools.length) profile.s = schools;
  if (year !== undefined) profile.b = year;
  if (contact.phones.length) profile.p = contact.phones;
  return { profile, keys: [...keys] };
}

/**
 * The whole-name key of formal name tokens `formal` into `keys` (`pn:`) and `nameKeys` (with the
 * places, `np:`), and for three words or more also the given name and surname alone, as a query
 * leaving the middle names out has it (`np:` only).
 */
function addNameKeys(formal: readonly string[], keys: Set<string>, nameKeys: string[]): void {
  const nameKey = personNameKey(formal);
  keys.add(KEY.personName + nameKey);
  nameKeys.push(nameKey);
  if (formal.length > 2) nameKeys.push(personNameKey([formal[0], formal[formal.length - 1]]));
}

/** Computes the retrieval keys and the match profile of an entity (called at import). */
export function indexEntity(entity: Entity): EntityIndex {
  return entity.type === 'Person' ? indexPerson(entity) : indexOrganization(entity);
}

/**
 * Host keys a query URL is looked up by: the host and its parents down to the registrable
 * domain; or, for a profile on a shared host, that profile alone (`profile`, no hosts).
 */
export function hostLookupKeys(url: string): { hosts: string[]; domain?: string; profile?: string } {
  const profile = sharedHostProfile(url);
  if (profile) return { hosts: [], profile };
  const domain = normalizeDomain(url);
  if (!domain) return { hosts: [] };
  return { hosts: hostAncestors(domain), domain: domain.registrable };
}
