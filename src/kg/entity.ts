/**
 * Knowledge-graph entity model, shaped like the reference ontology (docs/api.md#enhance-response,
 * ../shared/bench/README.md). Absent facts are omitted, never null or empty. Entities may carry
 * further fields from their sources; they are kept and returned as given.
 */

export type EntityType = 'Organization' | 'Person';

export const ENTITY_TYPES: readonly EntityType[] = Object.freeze(['Organization', 'Person']);

/** A reference to another entity (a place, an employer, a school), resolvable by `id` or `name`. */
export interface LinkedEntity {
  name?: string;
  id?: string;
  type?: string;
  [extra: string]: unknown;
}

export interface Location {
  address?: string;
  street?: string;
  city?: LinkedEntity;
  region?: LinkedEntity;
  subregion?: LinkedEntity;
  country?: LinkedEntity;
  postalCode?: string;
  latitude?: number;
  longitude?: number;
  isCurrent?: boolean;
  [extra: string]: unknown;
}

/** A date as the reference ontology writes it: `str` is `d` + ISO date, `precision` 1=year 2=month 3=day. */
export interface DateFact {
  str: string;
  precision?: number;
  timestamp?: number;
}

export interface PhoneNumber {
  /** As written by the source. */
  string: string;
  /** E.164 form when it could be parsed. */
  digits?: string;
  type?: string;
}

export interface ContactString {
  contactString: string;
  type?: string;
}

export interface Employment {
  employer?: LinkedEntity;
  title?: string;
  isCurrent?: boolean;
  from?: DateFact;
  to?: DateFact;
  [extra: string]: unknown;
}

export interface Education {
  institution?: LinkedEntity;
  degree?: { name?: string; [extra: string]: unknown };
  major?: { name?: string; [extra: string]: unknown };
  from?: DateFact;
  to?: DateFact;
  [extra: string]: unknown;
}

export interface Image {
  url: string;
  width?: number;
  height?: number;
  naturalWidth?: number;
  naturalHeight?: number;
  isCached?: boolean;
  primary?: boolean;
}

export interface NameDetail {
  firstName?: string;
  middleName?: string[];
  lastName?: string;
  prefix?: string;
  suffix?: string;
}

/** A value that lost when sources disagreed (docs/api.md#non-canonical-facts). */
export interface NonCanonicalFact {
  field: string;
  value: unknown;
  origins: string[];
}

export interface Entity {
  id: string;
  type: EntityType;
  name?: string;
  allNames?: string[];
  description?: string;
  homepageUri?: string;
  allUris?: string[];
  origins?: string[];
  location?: Location;
  locations?: Location[];
  phoneNumbers?: PhoneNumber[];
  emailAddresses?: ContactString[];
  nbEmployees?: number;
  industries?: string[];
  foundingDate?: DateFact;
  /** When an Organization ceased to exist (Wikidata P576). */
  dissolutionDate?: DateFact;
  birthDate?: DateFact;
  deathDate?: DateFact;
  gender?: { normalizedValue?: string };
  employments?: Employment[];
  educations?: Education[];
  nameDetail?: NameDetail;
  images?: Image[];
  importance?: number;
  /** CIDR ranges (IPv4 and IPv6) owned by an Organization (ours, docs/api.md#ip). */
  ipRanges?: string[];
  nonCanonicalFacts?: NonCanonicalFact[];
  [extra: string]: unknown;
}

export function isEntityType(value: unknown): value is EntityType {
  return value === 'Organization' || value === 'Person';
}

/**
 * Top-level fields whose value is a list of facts: several sources' lists are united, each
 * element remembering the sources that state it. Every other field (known or not) holds one
 * value per entity; when sources disagree, one wins and the others become non-canonical facts.
 */
export const LIST_FIELDS: ReadonlySet<string> = new Set([
  'allNames',
  'allUris',
  'origins',
  'locations',
  'phoneNumbers',
  'emailAddresses',
  'industries',
  'employments',
  'educations',
  'images',
  'ipRanges',
]);

/**
 * Fields that are derived, not stated as facts: `nonCanonicalFacts` (the ledger computes it; a
 * source may only add its own lower-ranked values to it, see `fact-ledger.ts`).
 */
export const DERIVED_FIELDS: ReadonlySet<string> = new Set(['nonCanonicalFacts']);
