/**
 * Facts shared by the `organization` and `person` extractors, shaped like the knowledge-graph
 * entity model (`kg/entity.ts`) so a later feature can ingest extracted objects into the graph.
 */
import type { ContactString, Location, PhoneNumber } from '../kg/index.ts';
import { type ContactFacts, kgHomepage, kgUri, normalizeEmail, socialNetworkOf } from './contact-facts.ts';
import { dereference, propertiesOf, type StructuredData, textValue, values } from './structured-data.ts';
import { countryOfHost, toPhoneNumber } from './value-normalizers.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country name from a name or an ISO 3166-1 alpha-2/alpha-3 code (`US` → `United States`). */
export function countryName(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  if (/^[A-Z]{2}$/i.test(value)) {
    try {
      return regionNames.of(value.toUpperCase()) ?? value;
    } catch {
      return value;
    }
  }
  return value;
}

/** A Location from a schema.org PostalAddress / Place (or a plain address string). */
export function toLocation(value: unknown, data: StructuredData): Location | undefined {
  const resolved = dereference(value, data);
  if (typeof resolved === 'string') {
    const address = resolved.replace(/\s+/g, ' ').trim();
    return address ? { address } : undefined;
  }
  const props = propertiesOf(resolved);
  if (!props) return undefined;
  // A Place carries its PostalAddress in `address` and coordinates in `geo`.
  const inner = props.address ? propertiesOf(dereference(props.address, data)) : undefined;
  const address = inner ?? props;
  const location: Location = {};
  const street = textValue(address.streetAddress);
  const city = textValue(address.addressLocality);
  const region = textValue(address.addressRegion);
  const postalCode = textValue(address.postalCode);
  const countryRaw = textValue(address.addressCountry);
  const country = countryName(countryRaw);
  const parts = [street, city, [region, postalCode].filter(Boolean).join(' '), country].filter(Boolean);
  const written = typeof props.address === 'string' ? props.address.trim() : undefined;
  if (written || parts.length > 0) location.address = written ?? parts.join(', ');
  if (street) location.street = street;
  if (city) location.city = { name: city };
  if (region) location.region = { name: region };
  if (postalCode) location.postalCode = postalCode;
  if (country) location.country = { name: country };
  const geo = propertiesOf(props.geo);
  const latitude = Number(textValue(geo?.latitude));
  const longitude = Number(textValue(geo?.longitude));
  if (geo && Number.isFinite(latitude) && Number.isFinite(longitude)) {
    location.latitude = latitude;
    location.longitude = longitude;
  }
  return Object.keys(location).length > 0 ? location : undefined;
}

/** Social profile fields in the knowledge graph's form (`linkedInUri: "linkedin.com/company/acme"`). */
export type SocialUris = Partial<Record<`${string}Uri`, string>>;

/** Collects links (`sameAs`, `url`, page links) into social URIs and `allUris`. */
export class UriCollector {
  readonly #social = new Map<string, string>();
  readonly #all = new Set<string>();

  /** Adds a URL; a social profile fills its network's field (first one wins). */
  add(url: string | undefined): void {
    if (!url) return;
    const network = socialNetworkOf(url);
    const uri = kgUri(url);
    if (!uri) return;
    if (network) {
      if (!this.#social.has(network)) this.#social.set(network, uri);
      this.#all.add(uri);
    } else {
      const homepage = kgHomepage(url);
      if (homepage) this.#all.add(homepage);
    }
  }

  /** Adds a homepage host (KG form). */
  addHomepage(homepage: string | undefined): void {
    if (homepage) this.#all.add(homepage);
  }

  socialUris(): SocialUris {
    const uris: SocialUris = {};
    for (const [network, uri] of this.#social) uris[`${network}Uri`] = uri;
    return uris;
  }

  allUris(): string[] {
    return [...this.#all];
  }
}

/** Phone numbers from structured `telephone` values, then the page's, deduplicated. */
export function mergePhones(
  structured: unknown[],
  page: readonly PhoneNumber[],
  pageUrl: string,
): PhoneNumber[] {
  let host: string | undefined;
  try {
    host = new URL(pageUrl).hostname;
  } catch {
    host = undefined;
  }
  const country = countryOfHost(host);
  const phones = new Map<string, PhoneNumber>();
  for (const raw of structured) {
    const text = textValue(raw);
    const phone = text ? toPhoneNumber(text, country) : undefined;
    if (phone) phones.set(phone.digits ?? phone.string, phone);
  }
  for (const phone of page)
    if (!phones.has(phone.digits ?? phone.string)) phones.set(phone.digits ?? phone.string, phone);
  return [...phones.values()];
}

/** E-mail addresses from structured `email` values, then the page's, deduplicated. */
export function mergeEmails(structured: unknown[], page: readonly ContactString[]): ContactString[] {
  const emails = new Set<string>();
  for (const raw of structured) {
    const text = textValue(raw);
    const email = text ? normalizeEmail(text) : undefined;
    if (email) emails.add(email);
  }
  for (const email of page) emails.add(email.contactString);
  return [...emails].map((contactString) => ({ contactString }));
}

/** Locations from structured address values, then the page's `<address>` blocks (deduplicated). */
export function mergeLocations(structured: unknown[], facts: ContactFacts, data: StructuredData): Location[] {
  const locations: Location[] = [];
  const seen = new Set<string>();
  const add = (location: Location | undefined): void => {
    if (!location) return;
    const key = (location.address ?? JSON.stringify(location)).toLowerCase().replace(/[^a-z0-9]/g, '');
    if (seen.has(key)) return;
    seen.add(key);
    locations.push(location);
  };
  for (const value of structured) add(toLocation(value, data));
  if (locations.length === 0) for (const address of facts.addresses) add(address);
  return locations;
}

/** Values of `keys` on `props` and on every `contactPoint`, flattened. */
export function contactValues(props: Readonly<Record<string, unknown>>, key: string): unknown[] {
  const found = [...values(props[key])];
  for (const point of values(props.contactPoint)) {
    const pointProps = propertiesOf(point);
    if (pointProps) found.push(...values(pointProps[key]));
  }
  return found;
}

/** An image URL list in the reference shape, the first one primary. */
export function imageList(urls: (string | undefined)[]): { url: string; primary?: boolean }[] {
  const unique = [...new Set(urls.filter((u): u is string => Boolean(u)))];
  return unique.map((url, index) => (index === 0 ? { url, primary: true } : { url }));
}

/**
 * Where on the page each stated contact was found, in the order of the fields' lists:
 * `structured-data` (JSON-LD, microdata), `page-content` (the page's own text and links) or
 * `site-wide` (the site's header, navigation or footer: no evidence of who the entity is).
 */
export interface ContactProvenance {
  phoneNumbers?: ContactSource[];
  emailAddresses?: ContactSource[];
}

export type ContactSource = 'structured-data' | 'page-content' | 'site-wide';

/** The provenance of `phones` and `emails` as merged from structured data, the page and its chrome. */
export function contactProvenance(
  phones: readonly PhoneNumber[],
  emails: readonly ContactString[],
  facts: ContactFacts,
  structured: { readonly phones: readonly PhoneNumber[]; readonly emails: readonly ContactString[] },
): ContactProvenance | undefined {
  const phoneKeys = (list: readonly PhoneNumber[]) => new Set(list.map((p) => p.digits ?? p.string));
  const emailKeys = (list: readonly ContactString[]) => new Set(list.map((e) => e.contactString));
  const phoneSources = [phoneKeys(structured.phones), phoneKeys(facts.phoneNumbers)];
  const emailSources = [emailKeys(structured.emails), emailKeys(facts.emailAddresses)];
  const source = (key: string, [data, page]: Set<string>[]): ContactSource =>
    data.has(key) ? 'structured-data' : page.has(key) ? 'page-content' : 'site-wide';
  const provenance: ContactProvenance = {};
  if (phones.length > 0)
    provenance.phoneNumbers = phones.map((p) => source(p.digits ?? p.string, phoneSources));
  if (emails.length > 0) provenance.emailAddresses = emails.map((e) => source(e.contactString, emailSources));
  return Object.keys(provenance).length > 0 ? provenance : undefined;
}
