/**
 * Organization names: abbreviations and their foreign-language equivalents mapped to one
 * canonical English word, legal forms recognised however they are written (`L.L.C.`,
 * `Kabushiki Kaisha`, `GmbH & Co. KG`; data/legal-forms.tsv) and kept apart from the name,
 * stopwords recognised, acronyms derived.
 */
import { listField, readDataFile } from './data.ts';
import { alpha3Country, isPlaceName } from './place.ts';
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
  technology: ['tech', 'techn', 'technol', 'technologies'],
  // The short forms are the canonical words where names mostly use them ("Acme Labs", "Acme
  // Pharma"), so that profiles stored with them keep their words.
  labs: ['lab', 'laboratory', 'laboratories', 'labo', 'laboratorio', 'laboratoire', 'laboratorium'],
  pharma: ['pharmaceutical', 'pharmaceuticals', 'pharmaceutique', 'pharmazeutische'],
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

// ---------------------------------------------------------------------------------------------
// Legal forms (data/legal-forms.tsv, data/legal-forms-leading.txt)
// ---------------------------------------------------------------------------------------------

interface LegalForms {
  /** Written form (folded words, space-joined) → canonical form. */
  readonly byPhrase: ReadonlyMap<string, string>;
  /** Most words in a written form. */
  readonly longest: number;
  /** Forms written before the name. */
  readonly leading: ReadonlySet<string>;
}

function loadLegalForms(): LegalForms {
  const byPhrase = new Map<string, string>();
  let longest = 1;
  for (const [canonical, written] of readDataFile('legal-forms.tsv')) {
    for (const phrase of [canonical, ...listField(written)]) {
      if (!byPhrase.has(phrase)) byPhrase.set(phrase, canonical);
      longest = Math.max(longest, phrase.split(' ').length);
    }
  }
  const leading = new Set(readDataFile('legal-forms-leading.txt').map(([form]) => form));
  return { byPhrase, longest, leading };
}

const LEGAL = loadLegalForms();

/**
 * Single words that are legal forms wherever they stand after the first word ("Acme Ltd
 * Holdings"), as names were normalised before the table existed: dropped from the key.
 */
const LEGAL_WORDS: ReadonlySet<string> = new Set([
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
  'co',
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

/**
 * Dotted initials written as one word: `L.L.C.` → `LLC`, `G.m.b.H.` → `GmbH`, `S. A.` → `SA`,
 * `S.à r.l.` → `Sà rl`. Two or more single letters each followed by a dot (the last one's dot
 * optional); `A. Smith` and `Co. KG` are left alone.
 */
const DOTTED_INITIALS = /(?<![\p{L}\p{N}.])(?:\p{L}\.\s?)+\p{L}(?![\p{L}\p{N}])\.?/gu;

function joinDottedInitials(name: string): string {
  return name.includes('.') ? name.replace(DOTTED_INITIALS, (m) => m.replace(/[.\s]/g, '')) : name;
}

/** The legal form that the written words `words[from, to)` spell, if any. */
function legalPhrase(words: readonly string[], from: number, to: number): string | undefined {
  return LEGAL.byPhrase.get(words.slice(from, to).join(' '));
}

/**
 * Where the name proper ends: trailing legal forms ("Acme Pty Ltd", "Acme GmbH & Co. KG",
 * "Acme Kabushiki Kaisha") are cut, longest written form first, as long as a word remains.
 * Their canonical forms go to `forms`.
 */
function nameEnd(words: readonly string[], forms: string[]): number {
  let end = words.length;
  while (end > 1) {
    let cut = 0;
    for (let n = Math.min(LEGAL.longest, end - 1); n >= 1 && cut === 0; n--) {
      const form = legalPhrase(words, end - n, end);
      if (form) {
        forms.push(form);
        cut = n;
      }
    }
    // "& Co." between two forms: a connective belongs to the legal part.
    if (cut === 0 && end > 2 && (words[end - 1] === 'and' || words[end - 1] === 'und') && forms.length)
      cut = 1;
    if (cut === 0) break;
    end -= cut;
  }
  return end;
}

/** Words that say what kind of organization, not which (data/generic-organization-words.txt). */
const GENERIC_WORDS: ReadonlySet<string> = new Set(
  readDataFile('generic-organization-words.txt').map(([word]) => word),
);

/**
 * True when `token` (canonical) is a generic organisational word (`group`, `holdings`,
 * `international`, `gruppe`): it names a kind of organization, not one.
 */
export function isGenericOrganizationWord(token: string): boolean {
  return GENERIC_WORDS.has(token);
}

/** True when `token` (canonical) is a stopword of organization names. */
export function isOrganizationStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** True when `token` (a folded word) is a legal form such as `ltd` or `gmbh`. */
export function isLegalSuffix(token: string): boolean {
  return LEGAL_WORDS.has(token) || LEGAL.byPhrase.has(token);
}

/** The canonical form of one folded token (`univ` → `university`, `universidad` → `university`). */
export function canonicalOrganizationToken(token: string): string {
  return CANONICAL.get(token) ?? token;
}

/** Abbreviation → the word it stands for (data/organization-abbreviations.tsv), read at first use. */
let abbreviations: ReadonlyMap<string, string> | undefined;

/**
 * The word an abbreviated word of an organization name stands for ("mtrs" → `motors`, "hldgs" →
 * `holdings`; data/organization-abbreviations.tsv), canonical; undefined for any other word, and
 * for abbreviations this file already maps to a canonical word (`mfg`, `svcs`). Stored names are
 * never rewritten with it: the query analysis reads a query's abbreviation so when the graph's
 * names lack it (match/query-analysis.ts).
 */
export function abbreviatedOrganizationWord(token: string): string | undefined {
  if (!abbreviations) {
    const map = new Map<string, string>();
    for (const [word, forms] of readDataFile('organization-abbreviations.tsv'))
      for (const form of listField(forms))
        if (!CANONICAL.has(form)) map.set(form, canonicalOrganizationToken(word));
    abbreviations = map;
  }
  return abbreviations.get(token);
}

/** A normalised organization name. */
export interface NormalizedOrganizationName {
  /** Canonical tokens in order, stopwords included, legal suffixes removed. */
  readonly tokens: readonly string[];
  /** Canonical tokens that identify: no stopwords, no legal suffixes. */
  readonly significant: readonly string[];
  /** Order-free key: the sorted distinct significant tokens joined by a space ('' when none). */
  readonly key: string;
  /** The folded tokens as written (`textTokens`, dotted initials joined), before canonical mapping. */
  readonly written: readonly string[];
  /** Canonical legal forms the name carries (`llc`, `gmbh`, `pty ltd`), in the order found. */
  readonly legalForms: readonly string[];
}

/**
 * Normalises an organization name: folds case, accents and punctuation, joins dotted initials
 * (`L.L.C.` → `llc`), maps abbreviations and translations of generic words to one canonical
 * word, sets legal forms apart (`Acme Corp.`, `ACME Corporation` and `Acme Inc.` normalise
 * alike; the forms go to `legalForms`) and builds an order-free key.
 */
export function normalizeOrganizationName(name: string): NormalizedOrganizationName {
  const written = textTokens(joinDottedInitials(name));
  const legalForms: string[] = [];
  // A form before the name ("OOO Gazprom"), when a name follows.
  const start = written.length > 1 && LEGAL.leading.has(written[0]) ? 1 : 0;
  if (start) legalForms.push(LEGAL.byPhrase.get(written[0]) ?? written[0]);
  const end = start + nameEnd(written.slice(start), legalForms);
  const tokens: string[] = [];
  const significant: string[] = [];
  for (let i = start; i < end; i++) {
    const token = canonicalOrganizationToken(written[i]);
    // A legal word inside the name is dropped too, only when something else remains ("AG"
    // alone is a name).
    if (i > start && (LEGAL_WORDS.has(written[i]) || LEGAL_WORDS.has(token))) {
      legalForms.push(LEGAL.byPhrase.get(written[i]) ?? written[i]);
      continue;
    }
    tokens.push(token);
    if (!STOPWORDS.has(token)) significant.push(token);
  }
  return { tokens, significant, key: sortedDistinct(significant).join(' '), written, legalForms };
}

/** An organization name with a place written after it: the name before it, and the place. */
export interface NameWithPlace {
  readonly name: string;
  readonly place: string;
  /** The place was set apart (parentheses, a comma, a dash), not only written after the name. */
  readonly setApart: boolean;
}

/**
 * The place written after an organization's name, as a CRM's or spreadsheet's name column has
 * it: "Acme Robotics Berlin", "Acme Robotics GmbH (Germany)", "Acme Ltd, UK", "Acme SA FR".
 * The words after the name must be, as a whole, a city's or a country's name (`isPlaceName`),
 * or any place the tables know when set apart by parentheses, a comma or a dash, or a country's
 * ISO alpha-3 code in capitals after a comma or in parentheses ("Acme GmbH, DEU", "Acme (FRA)";
 * never bare, "ACME IND" ends with a word, nor after a dash, "Acme - FIN"); a legal form
 * is never read as a place ("AG", "SL", "SA" are also country codes), and what remains must
 * still be a name that does not end in a stopword ("Bank of America" keeps its country).
 * `undefined` when no place ends the name.
 */
export function splitTrailingPlace(name: string): NameWithPlace | undefined {
  const text = name.trim();
  const apart =
    /^(.*?\S)\s*(?:\(([^()]+)\)|\[([^[\]]+)\]|,\s*([^,]+)|\s[-\u2013\u2014]\s*([^-\u2013\u2014]+))$/u.exec(
      text,
    );
  if (apart) {
    const place = (apart[2] ?? apart[3] ?? apart[4] ?? apart[5] ?? '').trim();
    const enclosed = apart[2] !== undefined || apart[3] !== undefined;
    const placed = enclosed
      ? isPlacePath(place)
      : isPlaceName(place, true) || (apart[4] !== undefined && alpha3Country(place) !== undefined);
    if (placed && keepsAName(apart[1], place)) return { name: apart[1], place, setApart: true };
  }
  // Parentheses or brackets that are not a place: their last word is not one either.
  if (/[)\]]$/u.test(text)) return undefined;
  const words = text.split(/\s+/);
  // The longest run of trailing words first ("New York", "United Kingdom").
  for (let n = Math.min(3, words.length - 1); n >= 1; n--) {
    const place = words.slice(-n).join(' ');
    const rest = words.slice(0, -n).join(' ');
    if (isPlaceName(place) && keepsAName(rest, place)) return { name: rest, place, setApart: false };
  }
  return undefined;
}

/** Most places in one pair of parentheses ("City, Region, Country"). */
const PLACE_PATH_MAX = 3;

/**
 * Whether `text` (in parentheses after a name) is a place, or places each within the next,
 * written with commas: "Bengaluru, India", "Austin, Texas, United States", "Sydney, AUS"
 * (`isPlaceName` at any level, or an alpha-3 code in capitals, each).
 */
function isPlacePath(text: string): boolean {
  const parts = text.split(',');
  return (
    parts.length <= PLACE_PATH_MAX &&
    parts.every((part) => isPlaceName(part, true) || alpha3Country(part) !== undefined)
  );
}

/** An organization name written with another name of it: the name, and the other. */
export interface NameWithOtherName {
  readonly name: string;
  readonly other: string;
}

function markerPattern(markers: readonly string[]): string {
  // Longest first ("formerly known as" before "formerly"); spaces stand for `/`, `.` or space.
  return [...markers]
    .sort((a, b) => b.length - a.length)
    .map((m) => m.split(' ').join('[\\s./]*'))
    .join('|');
}

let otherNamePatterns: { apart: RegExp; anywhere: RegExp } | undefined;
function otherNameReaders(): { apart: RegExp; anywhere: RegExp } {
  if (!otherNamePatterns) {
    const records = readDataFile('other-name-markers.tsv');
    const of = (where: string) => records.filter(([w]) => w === where).flatMap(([, m]) => listField(m));
    const anywhere = markerPattern(of('anywhere'));
    const apart = markerPattern([...of('apart'), ...of('anywhere')]);
    otherNamePatterns = {
      apart: new RegExp(
        `^(.*?\\S)\\s*[([]\\s*(?:${apart})\\.?(?:\\s*:)?[\\s-]+([^()[\\]]+?)\\s*[)\\]]$`,
        'iu',
      ),
      anywhere: new RegExp(`^(.*?\\S)\\s*(?:,|\\s)\\s*(?:${anywhere})\\.?(?:\\s*:)?\\s+(\\S.*)$`, 'iu'),
    };
  }
  return otherNamePatterns;
}

/**
 * Another name written after an organization's name, introduced by a word that says so
 * (`data/other-name-markers.tsv`): "Acme Robotics Ltd (formerly Acme Motion)", "Acme Holdings
 * LLC dba Acme Robotics", "Acme GmbH (vormals Muster AG)". `undefined` when there is none.
 */
export function splitOtherName(name: string): NameWithOtherName | undefined {
  const text = name.trim();
  const { apart, anywhere } = otherNameReaders();
  const found = (/[([]/.test(text) ? apart.exec(text) : null) ?? anywhere.exec(text);
  if (!found) return undefined;
  const other = found[2].trim();
  return other === '' ? undefined : { name: found[1].replace(/[\s,;:-]+$/u, ''), other };
}

/**
 * Institutions whose names, followed by a place, name a campus or branch there ("Univ. of
 * Moncton, Edmundston", "COMSATS Institute of Information Technology, Lahore"): another
 * organization than the one of the name alone, so the place stays a word of the name.
 */
const CAMPUS_WORDS: ReadonlySet<string> = new Set([
  'university',
  'college',
  'institute',
  'school',
  'academy',
  'polytechnic',
  'hospital',
  'campus',
  'faculty',
  'seminary',
  'conservatory',
]);

/**
 * True when `token` (canonical) says the name is an institution's (`university`, `college`,
 * `institute`…): there a generic organisational word distinguishes ("Florida International
 * University" is not the University of Florida), it does not merely designate.
 */
export function isInstitutionWord(token: string): boolean {
  return INSTITUTION_WORDS.has(token);
}

/** Words of institutions' names: `CAMPUS_WORDS`, their plurals and other languages' (folded). */
const INSTITUTION_WORDS: ReadonlySet<string> = new Set([
  ...CAMPUS_WORDS,
  'universities',
  'colleges',
  'institutes',
  'institution',
  'institutions',
  'schools',
  'academies',
  'universitas',
  'universidad',
  'universidade',
  'universita',
  'universitat',
  'universite',
  'universiteit',
  'uniwersytet',
  'hochschule',
  'fachhochschule',
  'fh',
  'ecole',
  'escuela',
  'escola',
  'instituto',
  'institut',
  'istituto',
  'colegio',
  'akademie',
  'academia',
  'politecnico',
  'polytechnique',
]);

/**
 * Whether `rest` is still a name once `place` is taken off it (not an institution's, see
 * `CAMPUS_WORDS`), and `place` is no legal form (but see `codeNotLegalForm`).
 */
function keepsAName(rest: string, place: string): boolean {
  const placeWords = textTokens(joinDottedInitials(place));
  const legal = placeWords.some((word) => isLegalSuffix(word) || LEGAL.leading.has(word));
  if (legal && !codeNotLegalForm(rest, place)) return false;
  const written = textTokens(rest);
  const last = written[written.length - 1];
  if (last === undefined || STOPWORDS.has(canonicalOrganizationToken(last))) return false;
  const significant = normalizeOrganizationName(rest).significant;
  return significant.length > 0 && !significant.some((word) => CAMPUS_WORDS.has(word));
}

/**
 * Whether the place's words that spell a legal form are alpha-3 codes in capitals that are
 * countries here ("GBR": also "GbR", a German partnership): after a city ("[London, GBR]") or
 * after a name that has its legal form already ("Acme Ltd, GBR", "Acme Ltd (GBR)").
 */
function codeNotLegalForm(rest: string, place: string): boolean {
  const parts = place.split(',').map((part) => part.trim());
  const legal = parts.filter((part) =>
    textTokens(joinDottedInitials(part)).some((word) => isLegalSuffix(word) || LEGAL.leading.has(word)),
  );
  if (!legal.every((part) => alpha3Country(part) !== undefined)) return false;
  return parts.length > 1 || normalizeOrganizationName(rest).legalForms.length > 0;
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
