/**
 * Organization names: abbreviations and their foreign-language equivalents mapped to one
 * canonical English word, legal suffixes and stopwords recognised, acronyms derived.
 */
import { sortedDistinct, textTokens } from './text.ts';

// Each canonical word with its abbreviations and common translations (after folding).
const CANONICAL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  university: [
    'univ',
    'uni',
    'universidad',
    'universidade',
    'universitat',
    'universite',
    'universita',
    'universiteit',
    'universitas',
    'uniwersytet',
    'universitet',
    'univerzitet',
    'univerzita',
    'universitatea',
    'universiti',
    'universitesi',
    'universitaet',
    'universiteti',
    'univerza',
    'egyetem',
    'yliopisto',
    'daigaku',
  ],
  institute: ['inst', 'institut', 'instituto', 'istituto', 'instytut', 'institutt', 'institutul'],
  college: ['coll', 'colg'],
  technology: ['tech', 'techn', 'technol'],
  international: ['intl', 'intnl', 'internacional', 'internationale', 'internazionale'],
  saint: ['st', 'ste'],
  mount: ['mt'],
  national: ['natl', 'nacional', 'nationale', 'nazionale', 'nasional', 'narodowy'],
  polytechnic: [
    'poly',
    'polytech',
    'politecnico',
    'polytechnique',
    'politechnika',
    'politeknik',
    'politecnica',
  ],
  academy: ['acad', 'academia', 'akademie', 'akademia', 'academie', 'accademia', 'akademi'],
  science: ['sci', 'sciences', 'scis'],
  engineering: ['eng', 'engg', 'engr'],
  medical: ['med'],
  community: ['comm', 'cmty'],
  management: ['mgmt', 'mgt'],
  school: ['sch', 'schl'],
  center: ['centre', 'ctr', 'centro', 'zentrum'],
  education: ['educ', 'edu'],
  foundation: ['fundacion', 'fundacao', 'fondation', 'fondazione', 'stiftung'],
  association: ['assn', 'assoc'],
  department: ['dept'],
  company: ['co', 'cos', 'companies'],
  brothers: ['bros'],
  manufacturing: ['mfg'],
  services: ['svcs', 'svc', 'service'],
  systems: ['sys', 'system'],
  group: ['grp'],
  and: ['und', 'et', 'y', 'e'],
};

const CANONICAL = new Map<string, string>();
for (const [canonical, variants] of Object.entries(CANONICAL_GROUPS)) {
  CANONICAL.set(canonical, canonical);
  for (const variant of variants) CANONICAL.set(variant, canonical);
}

/** Words that carry no identity in an organization name (after canonicalisation). */
const STOPWORDS: ReadonlySet<string> = new Set([
  'of',
  'the',
  'and',
  'de',
  'del',
  'della',
  'des',
  'di',
  'da',
  'do',
  'dos',
  'das',
  'du',
  'la',
  'le',
  'les',
  'el',
  'los',
  'las',
  'fur',
  'der',
  'die',
  'at',
  'in',
  'for',
  'a',
  'an',
  'van',
  'von',
  'zu',
  'im',
  'am',
  'en',
]);

/** Legal-form suffixes: dropped from the name key, they rarely tell two companies apart. */
const LEGAL_SUFFIXES: ReadonlySet<string> = new Set([
  'inc',
  'incorporated',
  'llc',
  'llp',
  'lp',
  'ltd',
  'limited',
  'corp',
  'corporation',
  'company',
  'plc',
  'gmbh',
  'ag',
  'kg',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'bv',
  'nv',
  'pty',
  'pte',
  'kk',
  'oy',
  'ab',
  'as',
  'asa',
  'aps',
  'sl',
  'sro',
  'zoo',
  'sp',
  'ltda',
  'cv',
  'bhd',
  'sdn',
  'pvt',
]);

/** True when `token` (canonical) is a stopword of organization names. */
export function isOrganizationStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** True when `token` (canonical) is a legal-form suffix such as `ltd` or `gmbh`. */
export function isLegalSuffix(token: string): boolean {
  return LEGAL_SUFFIXES.has(token);
}

/** The canonical form of one folded token (`univ` → `university`, `universidad` → `university`). */
export function canonicalOrganizationToken(token: string): string {
  return CANONICAL.get(token) ?? token;
}

/** A normalised organization name. */
export interface NormalizedOrganizationName {
  /** Canonical tokens in order, stopwords included, legal suffixes removed. */
  readonly tokens: readonly string[];
  /** Canonical tokens that identify: no stopwords, no legal suffixes. */
  readonly significant: readonly string[];
  /** Order-free key: the sorted distinct significant tokens joined by a space ('' when none). */
  readonly key: string;
  /** The folded tokens as written (`textTokens`), before canonical mapping: for acronyms. */
  readonly written: readonly string[];
}

/**
 * Normalises an organization name: folds case, accents and punctuation, maps abbreviations and
 * translations of generic words to one canonical word, drops legal suffixes (`Acme Corp.` and
 * `ACME Corporation` normalise alike) and builds an order-free key.
 */
export function normalizeOrganizationName(name: string): NormalizedOrganizationName {
  const written = textTokens(name);
  const tokens: string[] = [];
  const significant: string[] = [];
  for (let i = 0; i < written.length; i++) {
    const token = canonicalOrganizationToken(written[i]);
    // A legal suffix is dropped only when something else remains ("AG" alone is a name).
    if (i > 0 && LEGAL_SUFFIXES.has(token)) continue;
    tokens.push(token);
    if (!STOPWORDS.has(token)) significant.push(token);
  }
  return { tokens, significant, key: sortedDistinct(significant).join(' '), written };
}

/**
 * Acronyms an organization may be known by: initials of its significant words (3+ words), from
 * the written words and from their canonical forms ("Christian-Albrechts-Universität" → `cau`).
 * Empty for names of fewer than three significant words. Takes the name or, to save folding it
 * again, its `normalizeOrganizationName`.
 */
export function organizationAcronyms(name: string | NormalizedOrganizationName): string[] {
  const normalized = typeof name === 'string' ? normalizeOrganizationName(name) : name;
  const written = normalized.written.filter((token) => !STOPWORDS.has(canonicalOrganizationToken(token)));
  const out = new Set<string>();
  if (written.length >= 3) out.add(written.map((token) => token[0]).join(''));
  const canonical = normalized.significant;
  if (canonical.length >= 3) out.add(canonical.map((token) => token[0]).join(''));
  return [...out];
}

/** True when `text` looks like an acronym: one token of 2–8 letters, written in capitals or short. */
export function looksLikeAcronym(text: string): boolean {
  const trimmed = text.trim();
  if (!/^[\p{L}.&]{2,12}$/u.test(trimmed)) return false;
  const letters = trimmed.replace(/[.&]/g, '');
  return letters.length >= 2 && letters.length <= 8 && letters === letters.toUpperCase();
}
