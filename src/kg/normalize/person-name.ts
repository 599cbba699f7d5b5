/**
 * Person names: folded tokens without titles, particles and suffixes (`data/person-name-parts.tsv`),
 * nicknames mapped to the formal given name (`data/given-names.tsv`), and a split into given
 * name, middle names (or initials) and surname that reads "Surname, Given", "SURNAME Given"
 * and "Given M. Surname".
 */
import { listField, readDataFile } from './data.ts';
import { foldText, textTokens } from './text.ts';

interface GivenNames {
  /** A form's first formal name: the one it is read and indexed as. */
  readonly canonical: ReadonlyMap<string, string>;
  /** Every formal name a form is listed under ("fred": frederick and alfred). */
  readonly readings: ReadonlyMap<string, ReadonlySet<string>>;
}

function loadGivenNames(): GivenNames {
  // Maps, not objects: a token such as "constructor" must not reach Object.prototype.
  const canonical = new Map<string, string>();
  const readings = new Map<string, Set<string>>();
  for (const [formal, forms] of readDataFile('given-names.tsv')) {
    for (const form of listField(forms)) {
      if (!canonical.has(form)) canonical.set(form, formal);
      const formals = readings.get(form) ?? new Set<string>();
      formals.add(formal);
      readings.set(form, formals);
    }
  }
  return { canonical, readings };
}

const GIVEN_NAMES = loadGivenNames();

interface NameParts {
  /** Dropped wherever they stand: titles, ranks, titles of nobility, particles. */
  readonly anywhere: ReadonlySet<string>;
  /** Titles of nobility (`baron`, `earl`): the words after one name the title, not the person. */
  readonly nobility: ReadonlySet<string>;
  /** Dropped at the end of a name with at least two other words ("John Smith Jr"). */
  readonly suffixes: ReadonlySet<string>;
  /** Dropped only after a comma: they are surnames too ("Jack Ma", "Smith, John, MD"). */
  readonly afterComma: ReadonlySet<string>;
  /** Written between two surnames ("Ortega y Gasset"); never dropped (`isSurnameConjunction`). */
  readonly conjunctions: ReadonlySet<string>;
}

function loadNameParts(): NameParts {
  const anywhere = new Set<string>();
  const nobility = new Set<string>();
  const suffixes = new Set<string>();
  const afterComma = new Set<string>();
  const conjunctions = new Set<string>();
  for (const [kind, words] of readDataFile('person-name-parts.tsv')) {
    const into =
      kind === 'suffix'
        ? suffixes
        : kind === 'suffix-after-comma'
          ? afterComma
          : kind === 'conjunction'
            ? conjunctions
            : anywhere;
    for (const word of listField(words)) {
      into.add(word);
      if (kind === 'nobility') nobility.add(word);
    }
  }
  return { anywhere, nobility, suffixes, afterComma, conjunctions };
}

const PARTS = loadNameParts();

const ORDINAL = /^\d+(st|nd|rd|th)?$/;

/** Whether folded `token` is written between two surnames ("y" of "Ortega y Gasset"). */
export function isSurnameConjunction(token: string): boolean {
  return PARTS.conjunctions.has(token);
}

/** The formal given name for a nickname or abbreviation (`bill` → `william`), else the token. */
export function canonicalGivenName(token: string): string {
  return GIVEN_NAMES.canonical.get(token) ?? token;
}

/**
 * Whether `form` is a nickname or other form of the formal given name `formal`, under any of
 * the formal names it is listed under ("fred" of alfred, though it is read as frederick).
 */
export function isGivenNameForm(form: string, formal: string): boolean {
  return GIVEN_NAMES.readings.get(form)?.has(formal) ?? false;
}

/**
 * Given names written for one another that are not nicknames (`data/given-name-variants.tsv`):
 * each name to the names it is a variant of, both ways. Never a reading: the index keeps each.
 */
function loadGivenNameVariants(): ReadonlyMap<string, ReadonlySet<string>> {
  const variants = new Map<string, Set<string>>();
  const add = (a: string, b: string) => {
    const set = variants.get(a) ?? new Set<string>();
    set.add(b);
    variants.set(a, set);
  };
  for (const [name, forms] of readDataFile('given-name-variants.tsv')) {
    for (const form of listField(forms)) {
      add(name, form);
      add(form, name);
    }
  }
  return variants;
}

const GIVEN_NAME_VARIANTS = loadGivenNameVariants();

/** Whether `word` (folded) is listed in `given-name-variants.tsv` (a check before pairing). */
export function hasGivenNameVariants(word: string): boolean {
  return GIVEN_NAME_VARIANTS.has(word);
}

/** Whether two folded given names are variants of each other (Luke and Lucas, Sophia and Sofia). */
export function areGivenNameVariants(a: string, b: string): boolean {
  return GIVEN_NAME_VARIANTS.get(a)?.has(b) ?? false;
}

/** Given names of `common-given-names.txt`, `given-names.tsv` (formal names and forms) and the variants. */
let listedGivenNames: ReadonlySet<string> | undefined;

/**
 * Whether folded `token` is a given name the shipped data lists (`common-given-names.txt`,
 * `given-names.tsv`, `given-name-variants.tsv`): where a name's word order is a guess, a word
 * listed is read as a given name, one not listed as a surname.
 */
export function isListedGivenName(token: string): boolean {
  if (listedGivenNames === undefined) {
    const names = new Set<string>(GIVEN_NAMES.canonical.keys());
    for (const formal of GIVEN_NAMES.canonical.values()) names.add(formal);
    for (const name of GIVEN_NAME_VARIANTS.keys()) names.add(name);
    for (const [name] of readDataFile('common-given-names.txt')) names.add(name);
    listedGivenNames = names;
  }
  return listedGivenNames.has(token);
}

/** A normalised person name. */
export interface NormalizedPersonName {
  /** Folded tokens, given name first, titles, particles and suffixes removed. */
  readonly tokens: readonly string[];
  /** Given name as written (folded), when the name has one; a single letter for an initial. */
  readonly first?: string;
  /** Surname (folded): the last token, the part before a comma, or a leading capitalised word. */
  readonly last?: string;
  /** Names (or initials) between the given name and the surname, when there are any. */
  readonly middles?: readonly string[];
  /**
   * The place a title of nobility written after a comma is "of" (folded, particles dropped):
   * `devonshire` for "William Cavendish, 3rd Earl of Devonshire". People call such a person by
   * it ("the Earl of Devonshire", "Lord Rowallan"), so it is a second name, not a surname.
   */
  readonly titlePlace?: readonly string[];
}

/**
 * The words after the last title of nobility in `text` (what comes after a comma in a name),
 * without titles, particles and ordinals; empty when `text` holds no such title.
 */
function titlePlaceOf(text: string): string[] {
  const tokens = textTokens(text);
  let at = -1;
  for (let i = 0; i < tokens.length; i++) if (PARTS.nobility.has(tokens[i])) at = i;
  return at < 0 ? [] : tokens.slice(at + 1).filter((t) => !isPersonNameNoise(t) && !isSuffix(t));
}

/** True when `token` is a title, particle or ordinal that does not identify a person. */
export function isPersonNameNoise(token: string): boolean {
  return PARTS.anywhere.has(token) || ORDINAL.test(token);
}

function words(text: string): string[] {
  return textTokens(text).filter((t) => !isPersonNameNoise(t));
}

/** `tokens` without trailing suffixes, as long as two words remain. */
function withoutSuffixes(tokens: string[]): string[] {
  let end = tokens.length;
  while (end > 2 && PARTS.suffixes.has(tokens[end - 1])) end--;
  return end === tokens.length ? tokens : tokens.slice(0, end);
}

function isSuffix(token: string): boolean {
  return PARTS.suffixes.has(token) || PARTS.afterComma.has(token);
}

/**
 * A leading surname written in capitals before a given name in mixed case ("SANTOS Tom",
 * "VAN DER BERG Anna"): the number of words it takes, 0 when the name is not written so.
 */
function capitalisedSurname(name: string): number {
  const raw = name.trim().split(/\s+/);
  let caps = 0;
  while (caps < raw.length && /^\p{Lu}[\p{Lu}'’-]+$/u.test(raw[caps])) caps++;
  const rest = raw.slice(caps);
  return caps > 0 && rest.some((w) => /\p{Ll}/u.test(w)) ? caps : 0;
}

/**
 * Normalises a person name: folds it, removes titles, particles, ordinals and suffixes, and
 * splits it into given name, middle names and surname. "Smith, John" and "SMITH John" are read
 * surname first; a single token is taken as a given name. Other word-order errors (a surname
 * written first in lower case) are not detected here; the scorer compares names order-free.
 */
export function normalizePersonName(written: string): NormalizedPersonName {
  const name = written.includes('.') ? withDottedSuffixesJoined(written) : written;
  const comma = name.indexOf(',');
  if (comma > 0) {
    const named = readCommaName(name, comma);
    // A full name before the comma: "Smith, Lady Jane" is surname first, not a title.
    const titlePlace = named.last !== undefined ? titlePlaceOf(name.slice(comma + 1)) : [];
    if (titlePlace.length === 0 || words(name.slice(0, comma)).length < 2) return named;
    return { ...named, titlePlace };
  }
  const caps = capitalisedSurname(name);
  if (caps > 0) {
    const raw = name.trim().split(/\s+/);
    const surname = words(raw.slice(0, caps).join(' '));
    const given = withoutSuffixes(words(raw.slice(caps).join(' ')));
    if (surname.length > 0 && given.length > 0) return surnameFirst(surname[surname.length - 1], given);
  }
  return split(withoutSuffixes(words(name)));
}

/**
 * Letters of one or two, each followed by a dot, two or more in a row with a pair among them
 * ("Ph.D.", "M. Sc.", "LL.M."); runs of single letters ("B. A.", "M.D.") are initials as often.
 */
const DOTTED_RUN = /(?<!\p{L})(?=(?:\p{L}\.\s?)*\p{L}{2}\.)(?:\p{L}{1,2}\.\s?){2,}/gu;

/**
 * `name` with the dotted spellings of suffixes joined ("Ph.D." → "PhD", "M.Sc." → "MSc"), so
 * that they read as the suffixes they are rather than as a word and an initial; other dotted
 * runs ("J.R.R.", "Dr. A.", "B. A. Browne") are kept.
 */
function withDottedSuffixesJoined(name: string): string {
  return name.replace(DOTTED_RUN, (run) => {
    const joined = run.replace(/[.\s]/g, '');
    return isSuffix(foldText(joined)) ? `${joined}${/\s$/.test(run) ? ' ' : ''}` : run;
  });
}

/** A name with a comma at `comma`: "Surname, Given", "Given Surname, Jr." or a name and a title. */
function readCommaName(name: string, comma: number): NormalizedPersonName {
  const before = words(name.slice(0, comma));
  const after = words(name.slice(comma + 1));
  // "John Smith, Jr." / "Smith, John, MD": what follows a comma may be suffixes only.
  const afterName = after.filter((t) => !isSuffix(t));
  if (afterName.length === 0) return split(withoutSuffixes(before));
  // "Clifford, 1st Baron Clifford" is a name plus a title, not "Surname, Given".
  if (before.length === 1 && afterName.length <= 3) {
    const given = withoutSuffixes(afterName);
    return surnameFirst(before[0], given);
  }
  return split(withoutSuffixes(before.length > 0 ? before : after));
}

function surnameFirst(last: string, given: readonly string[]): NormalizedPersonName {
  const middles = given.slice(1);
  return {
    tokens: [...given, last],
    first: given[0],
    last,
    ...(middles.length ? { middles } : {}),
  };
}

function split(tokens: string[]): NormalizedPersonName {
  if (tokens.length === 0) return { tokens };
  if (tokens.length === 1) return { tokens, first: tokens[0] };
  const middles = tokens.slice(1, -1);
  return {
    tokens,
    first: tokens[0],
    last: tokens[tokens.length - 1],
    ...(middles.length ? { middles } : {}),
  };
}
