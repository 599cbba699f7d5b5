/** A query normalised once, in every form the retrieval and the features compare. */
import type { EntityType, NormalizedEmail, ParsedLocation } from '../kg/index.ts';
import {
  canonicalGivenName,
  looksLikeAcronym,
  normalizeEmail,
  normalizeOrganizationName,
  normalizePersonName,
  normalizePhone,
  parseLocation,
  textTokens,
} from '../kg/index.ts';
import { hostLookupKeys, personNameTokens } from './profile.ts';

/** A query as the matcher sees it: already validated; arrays may be empty, never undefined. */
export interface MatchQuery {
  readonly type: EntityType;
  readonly names: readonly string[];
  readonly urls: readonly string[];
  readonly emails: readonly string[];
  readonly phones: readonly string[];
  readonly location?: string;
  readonly employer?: string;
  readonly title?: string;
  readonly school?: string;
  readonly description?: string;
  readonly ip?: string;
}

/** One query name in comparable forms. */
export interface QueryName {
  /** Organization: canonical tokens without stopwords; Person: folded tokens without titles. */
  readonly tokens: readonly string[];
  /** Order-free key, as the `n:` retrieval key spells it. */
  readonly key: string;
  /** Person only: given name and surname as read. */
  readonly first?: string;
  readonly last?: string;
  /** Lowercase letters when the name is written like an acronym ("CDU", "M.I.T."). */
  readonly acronym?: string;
}

export interface QueryUrl {
  /** The host and its parents down to the registrable domain. */
  readonly hosts: readonly string[];
  readonly domain: string;
}

/** The analysed query. */
export interface AnalyzedQuery {
  readonly type: EntityType;
  readonly names: readonly QueryName[];
  readonly urls: readonly QueryUrl[];
  readonly emails: readonly NormalizedEmail[];
  readonly phones: readonly string[];
  readonly location?: ParsedLocation;
  readonly titleTokens: readonly string[];
  readonly employerTokens: readonly string[];
  readonly schoolTokens: readonly string[];
  readonly ip?: string;
  /**
   * Person queries with an `ip`: ids of the organizations whose ranges contain it (resolved by
   * the matcher before retrieval; their current employees are candidates).
   */
  readonly ipOrganizations?: readonly string[];
}

function organizationName(name: string): QueryName | undefined {
  const normalized = normalizeOrganizationName(name);
  if (normalized.tokens.length === 0) return undefined;
  const compact = name.replace(/[.\s]/g, '');
  const acronym =
    looksLikeAcronym(name) || (normalized.tokens.length === 1 && compact.length <= 6)
      ? textTokens(compact).join('')
      : undefined;
  return {
    tokens: normalized.significant.length ? normalized.significant : normalized.tokens,
    key: normalized.key,
    ...(acronym ? { acronym } : {}),
  };
}

function personName(name: string): QueryName | undefined {
  const tokens = personNameTokens(name);
  if (tokens.length === 0) return undefined;
  const split = normalizePersonName(name);
  return {
    tokens,
    key: [...new Set(tokens.map(canonicalGivenName))].sort().join(' '),
    ...(split.first ? { first: split.first } : {}),
    ...(split.last ? { last: split.last } : {}),
  };
}

function present(value: string | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Normalises every field of `query` once. Unparsable values are dropped (they give no evidence). */
export function analyzeQuery(query: MatchQuery): AnalyzedQuery {
  const isPerson = query.type === 'Person';
  const names = query.names
    .map((name) => (isPerson ? personName(name) : organizationName(name)))
    .filter((name): name is QueryName => name !== undefined);
  const urls: QueryUrl[] = [];
  for (const url of query.urls) {
    const { hosts, domain } = hostLookupKeys(url);
    if (domain) urls.push({ hosts, domain });
  }
  const emails = query.emails
    .map(normalizeEmail)
    .filter((email): email is NormalizedEmail => email !== undefined);
  const location = present(query.location) ? parseLocation(query.location) : undefined;
  const phones = query.phones
    .map((phone) => normalizePhone(phone, location?.country))
    .filter((phone): phone is string => phone !== undefined);
  return {
    type: query.type,
    names,
    urls,
    emails,
    phones,
    ...(location && (location.tokens.length || location.country) ? { location } : {}),
    titleTokens: present(query.title) ? textTokens(query.title) : [],
    employerTokens: present(query.employer) ? normalizeOrganizationName(query.employer).significant : [],
    schoolTokens: present(query.school) ? normalizeOrganizationName(query.school).significant : [],
    ...(present(query.ip) ? { ip: query.ip.trim() } : {}),
  };
}
