/** A query normalised once, in every form the retrieval and the features compare. */
import type { EntityType, NameAddition, NormalizedEmail, ParsedLocation } from '../kg/index.ts';
import {
  abbreviatedOrganizationWord,
  canonicalGivenName,
  alpha3Country,
  countryCode,
  isGenericOrganizationWord,
  isOrganizationStopword,
  isListedGivenName,
  isSurnameConjunction,
  looksLikeAcronym,
  looksLikeWebAddress,
  normalizeEmail,
  normalizeOrganizationName,
  normalizePersonName,
  parseLocation,
  readPhone,
  splitBirthName,
  splitOrganizationAddition,
  splitOtherName,
  sortedDistinct,
  splitTrailingPlace,
  textTokens,
  withoutPronouns,
  withoutTitleQualifiers,
} from '../kg/index.ts';
import { hostLookupKeys } from './profile.ts';

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
  /** Person only: given name and surname as read, and the names or initials between them. */
  readonly first?: string;
  readonly last?: string;
  readonly middles?: readonly string[];
  /** Organization only: the legal forms the name carries (`llc`, `gmbh`). */
  readonly legalForms?: readonly string[];
  /** Lowercase letters when the name is written like an acronym ("CDU", "M.I.T."). */
  readonly acronym?: string;
}

export interface QueryUrl {
  /** The host and its parents down to the registrable domain (none for a `profile`). */
  readonly hosts: readonly string[];
  readonly domain: string;
  /** A profile on a shared host (`linkedin.com/company/acme`): only that page identifies. */
  readonly profile?: string;
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
  /** Person queries with a `school`: its organization-name key (retrieval's `ps:` lookup). */
  readonly schoolKey?: string;
  readonly ip?: string;
  /**
   * Person queries with an `ip`: ids of the organizations whose ranges contain it (resolved by
   * the matcher before retrieval; their current employees are candidates).
   */
  readonly ipOrganizations?: readonly string[];
  /**
   * Person queries with an e-mail at an organization's domain (not a free-mail provider's): ids
   * of the organizations with that domain (resolved by the matcher; their employees are
   * candidates, and working there is evidence).
   */
  readonly domainOrganizations?: readonly string[];
  /** Person queries with an `employer`: the organization-name key it is written as. */
  readonly employerKey?: string;
  /**
   * Person queries whose `employer` is a web address ("acme.com", "https://www.acme.de/"): its
   * registrable domain. The matcher resolves it to the organizations at that domain (their
   * names then stand for the employer); until then `employerTokens` are the domain label's.
   */
  readonly employerDomain?: string;
  /**
   * Person queries with an `employer`: ids of the organizations of that name (resolved by the
   * matcher; their current employees are candidates, so that among many namesakes the one
   * working there is retrieved).
   */
  readonly employerOrganizations?: readonly string[];
  /**
   * Person queries with an `employer` that no organization of the graph is named (no name key
   * answers it, and a word of it is in no organization's name, nor one a typo away): the person
   * may work there since the graph was written, so another employer of theirs weighs less
   * against them.
   */
  readonly employerUnknown?: boolean;
  /**
   * Person queries pointing at organizations (`employerOrganizations`, `domainOrganizations`):
   * where those organizations are, each at its most specific level (`c` a city, `r` a region,
   * `k` a country, as `personNamePlaceKey` spells them). People mostly live where they work:
   * retrieval looks the query's name up there too, so that among hundreds of namesakes those
   * near the workplace are kept before the candidate limit cuts the crowd.
   */
  readonly organizationPlaces?: readonly (readonly ['c' | 'r' | 'k', string])[];
  /**
   * Organization queries: their names with a place written after them ("Acme Robotics Berlin",
   * "Acme SA (Brazil)"), read without it. `withQueryOrganizations` adds each to `names`, and its
   * place as the location when the query gives none and the place is a country or set apart,
   * unless a word of the place is a word of the graph's organization names ("Daeblu
   * University": University, Florida; "Yunnzn Normal").
   */
  readonly namesWithPlace?: readonly NameWithPlaceReading[];
  /**
   * Organization queries: their names as written (without an e-mail address in them), for
   * `withJoinedWordsApart`.
   */
  readonly writtenNames?: readonly string[];
  /**
   * What the query's fields were read as when that needed a guess or failed, and the fields
   * the matcher does not use: for the response's `errors`.
   */
  readonly notes: readonly string[];
}

/** A query's organization name read without the place written after it. */
export interface NameWithPlaceReading {
  /** The name as written, for the note. */
  readonly written: string;
  readonly name: QueryName;
  readonly place: string;
  /** The place's words, as organization names' words are spelt (the vocabulary's). */
  readonly placeWords: readonly string[];
  /** Whether the place is taken as where the organization is (a country, or set apart). */
  readonly locates: boolean;
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
    ...(normalized.legalForms.length ? { legalForms: normalized.legalForms } : {}),
  };
}

function personName(name: string): QueryName | undefined {
  const split = normalizePersonName(name);
  const tokens = split.tokens;
  if (tokens.length === 0) return undefined;
  return {
    tokens,
    key: [...new Set(tokens.map(canonicalGivenName))].sort().join(' '),
    ...(split.first ? { first: split.first } : {}),
    ...(split.last ? { last: split.last } : {}),
    ...(split.middles ? { middles: split.middles } : {}),
  };
}

/** An e-mail address in a name, bare or in angle brackets ("Ada Lovelace <ada@example.com>"). */
const EMAIL_IN_NAME =
  /<\s*([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)\s*>|(?<![^\s("'<,;])([^\s<>@"'(),;]+@[^\s<>@"'(),;]+\.[^\s<>@"'(),;]+)/u;

/** A name that is only an e-mail address, bare, in angle brackets or with "mailto:". */
const EMAIL_ALONE = /^\s*<?\s*(?:mailto:)?([^\s<>@"'(),;]+@[^\s<>@"'(),;]+\.[^\s<>@"'(),;]+?)\s*>?\s*$/iu;

/**
 * A name written with an e-mail address (a mail client's "Name <address>" pasted into the name
 * column): the name without it, and the address. None when there is no address, or nothing
 * else (a name that is only an address is left to be read as written).
 */
function nameAndEmail(written: string): { name: string; email: string } | undefined {
  const found = EMAIL_IN_NAME.exec(written);
  if (!found) return undefined;
  const name = (written.slice(0, found.index) + written.slice(found.index + found[0].length))
    .replace(/^[\s"'“”,;:(<-]+|[\s"'“”,;:)>-]+$/gu, '')
    .trim();
  return name === '' ? undefined : { name, email: found[1] ?? found[2] };
}

/** What a CRM's name column adds after a person's name: "(…)", or a dash, bar, at or slash. */
const PERSON_CONTEXT = /^(.*?\S)\s+(?:[-\u2013\u2014|@/]|at)\s+(\S.*)$/u;

/** Words in parentheses in a person's name, after it or inside it ("Ada (Berg) Hoffmann"). */
const PERSON_PARENTHESES = /\s*\([^()]*\)\s*/gu;

/**
 * A word or two in quotes between words of a person's name: the name they go by ('Ada "Di"
 * Hoffmann', "Robert 'Bob' Smith", "Julia “Giulia” Okafor"), with the word before it. The quotes
 * open after a space and close before one, so that an apostrophe inside a word (O'Brien) is
 * never one; at most 40 characters between them: one pass, linear in the name.
 */
const PERSON_QUOTED = /(\S)\s+["'“”‘’„«»][^\s"'“”‘’„«»][^"“”‘’„«»]{0,39}?["'“”‘’»«](?=\s+\S)/gu;

/**
 * A person's name as written without what is no part of it, or undefined when nothing is:
 * pronouns ("(she/her)"), a birth name ("née Berg"), words in parentheses, after the name or
 * inside it (a workplace, a title, a birth name or a nickname: "Ada (Berg) Hoffmann") and a
 * nickname in quotes inside it ('Ada "Di" Hoffmann').
 */
function bareName(name: string): string | undefined {
  let bare = name.includes('/') ? (withoutPronouns(name) ?? name) : name;
  bare = splitBirthName(bare)?.name ?? bare;
  if (bare.includes('(')) bare = bare.replace(PERSON_PARENTHESES, ' ').trim();
  if (/["'“”‘’„«»]/u.test(bare)) bare = bare.replace(PERSON_QUOTED, '$1').replace(/\s+/gu, ' ').trim();
  return bare !== name && /\S\s+\S/.test(bare) ? bare : undefined;
}

/**
 * A name of four words or more read without its last word and without the one before it, as
 * one of two surnames ("Ada Amir Rossi Santos", "Ada Amir Rossi-Santos" as Ada Amir Rossi, the
 * Spanish order, and as Ada Amir Santos, the Portuguese: such names carry two, a married name
 * may be added, and records often keep one); none for shorter names, which compare with a
 * record's without a word already (a query's middle word that matches nothing is left out of
 * the comparison).
 */
function withOneSurname(read: QueryName): QueryName[] {
  if (read.first === undefined || read.tokens.length < 4) return [];
  const n = read.tokens.length;
  // "Ada Amir Rossi y Santos": the conjunction goes with the surname left out.
  const joined = isSurnameConjunction(read.tokens[n - 2]) ? 1 : 0;
  const readings = [
    read.tokens.slice(0, n - 1 - joined),
    [...read.tokens.slice(0, n - 2 - joined), read.tokens[n - 1]],
  ];
  return readings.map((tokens) => {
    const middles = tokens.slice(1, -1);
    return {
      tokens,
      key: [...new Set(tokens.map(canonicalGivenName))].sort().join(' '),
      first: read.first,
      last: tokens[tokens.length - 1],
      ...(middles.length ? { middles } : {}),
    };
  });
}

/**
 * A name of four words written two surnames first without a comma or capitals ("Rossi Santos
 * Ada Amir"), read given names first with one of the surnames (`withOneSurname` of "Ada Amir
 * Rossi Santos"); none unless the data reads it so: the third word a given name it lists
 * (`isListedGivenName`), and more of the last two words listed than of the first two (some
 * surnames are given names too: "Ruiz Martin Julia Farid"). Names written given name first
 * ("Julia Farid Moreau Ferreira") keep only their own readings, and those come first: a guess
 * read first took the retrieval of the name as written and offered namesakes of its words crossed.
 */
function surnamesFirstGuessed(read: QueryName): QueryName[] {
  if (read.tokens.length !== 4 || read.tokens.some(isSurnameConjunction)) return [];
  const [a, b, c, d] = read.tokens;
  const listed = (word: string) => (isListedGivenName(word) ? 1 : 0);
  if (!listed(c) || listed(c) + listed(d) <= listed(a) + listed(b)) return [];
  const given = personName(`${c} ${d} ${a} ${b}`);
  return given ? withOneSurname(given) : [];
}

/** "Rossi Santos, Ada Amir", "Rossi-Santos, Ada": two surnames, a comma, one to three given names. */
const TWO_SURNAMES_COMMA =
  /^\s*(\p{L}[\p{L}'’.]*(?:\s+|\s*-\s*)\p{L}[\p{L}'’.]*)\s*,\s*(\p{L}[\p{L}'’.-]*(?:\s+\p{L}[\p{L}'’.-]*){0,2})\s*$/u;
/** "ROSSI SANTOS Ada Amir": two surnames or more in capitals, then given names in mixed case. */
const TWO_SURNAMES_CAPITALS =
  /^\s*(\p{Lu}[\p{Lu}'’-]+(?:\s+\p{Lu}[\p{Lu}'’-]+)+)\s+(\p{Lu}?\p{Ll}[\p{L}'’-]*(?:\s+\p{L}[\p{L}'’.-]*){0,2})\s*$/u;

/**
 * A name written surname first with two surnames ("Rossi Santos, Ada Amir", "Rossi-Santos,
 * Ada", "ROSSI SANTOS Ada Amir"), given names first ("Ada Amir Rossi Santos"); undefined otherwise. Normalisation reads
 * the comma form as a name and a title ("William Cavendish, Duke of Devonshire") and the
 * capitals as one surname, the last: this is another reading, the comparison picks.
 */
function surnamesWrittenFirst(name: string): string | undefined {
  const found = (name.includes(',') ? TWO_SURNAMES_COMMA : TWO_SURNAMES_CAPITALS).exec(name);
  return found ? `${found[2]} ${found[1]}` : undefined;
}

/**
 * Initials written together before a surname, in capitals ("AJ Hoffmann"): the name with them
 * apart ("A J Hoffmann"); undefined otherwise. Two or three capitals before one capitalised
 * word also read as a surname written first ("HO Chen"), so this is a second reading.
 */
function initialsApart(name: string): string | undefined {
  const found = /^\s*(\p{Lu}{2,3})\s+(\p{Lu}[\p{L}'’-]*\p{Ll}[\p{L}'’-]*)\s*$/u.exec(name);
  return found ? `${[...found[1]].join(' ')} ${found[2]}` : undefined;
}

/**
 * A person's name followed by words about the person (an employer, a title: "Ada Hoffmann
 * (Lebomivo Robotics)", "Ada Hoffmann - CTO", "Ada Hoffmann @ Lebomivo"): the name and those
 * words. None unless the name before them has two words or more.
 */
function personNameWithContext(written: string): { name: string; context: string } | undefined {
  const found = PERSON_CONTEXT.exec(written.trim());
  if (!found || !/\S\s+\S/.test(found[1])) return undefined;
  return { name: found[1], context: found[2].trim() };
}

/** "(at)", "[at]", " at " and "(dot)", "[dot]", " dot " as a web page writes an address against harvesters. */
const OBFUSCATED_AT = /\s*[([{]\s*at\s*[)\]}]\s*|\s+at\s+/iu;
const OBFUSCATED_DOT = /\s*[([{]\s*dot\s*[)\]}]\s*|\s+dot\s+/giu;

/**
 * An e-mail address written against harvesters ("ada.hoffmann(at)lebomivo.example", "ada [at]
 * lebomivo [dot] example"): the address; undefined when `text` is not written so.
 */
function deobfuscatedEmail(text: string): string | undefined {
  if (!OBFUSCATED_AT.test(text)) return undefined;
  const address = text.trim().replace(OBFUSCATED_AT, '@').replace(OBFUSCATED_DOT, '.');
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/u.test(address) ? address : undefined;
}

/**
 * A profile's headline: "CTO at Acme", "CTO @ Acme | Speaker", "CTO | Acme GmbH", "CTO, Acme
 * GmbH", "CTO – Acme".
 */
const HEADLINE = /^(.*?\S)\s*(\sat\s|@|\s[|\u2022\u00b7\u2013\u2014-]\s|,\s)\s*(.*)$/iu;
/** Where a headline's workplace ends: at a bar, a bullet or a comma. */
const HEADLINE_PART_END = /\s*[|\u2022\u00b7,]/u;

/**
 * A person's title written as a profile headline (issue 22: "Sales Director at Acme Robotics |
 * MBA"): the title before the first mark, and the workplace after "at" or "@", or after a
 * comma or a dash when it carries a legal form ("Designer, Acme GmbH"; "Director, Sales" is a
 * title); undefined when the title has no such mark.
 */
function readHeadline(title: string): { title: string; employer?: string } | undefined {
  const found = HEADLINE.exec(title.trim());
  if (!found) return undefined;
  const after = found[3].split(HEADLINE_PART_END)[0].trim();
  const at = /at|@/i.test(found[2]);
  const employer =
    at || (/[,\u2013\u2014-]/u.test(found[2]) && normalizeOrganizationName(after).legalForms.length > 0)
      ? after
      : '';
  return employer ? { title: found[1], employer } : { title: found[1] };
}

/**
 * A person's title as compared: the headline's title when it is one (`headline`), without the
 * qualifiers written with the role ("Interim Sales Director", "Designer (m/w/d)"), which a note
 * names.
 */
function readTitle(written: string, headline: string | undefined, notes: string[]): string {
  const title = headline ?? written;
  const role = withoutTitleQualifiers(title);
  if (role === undefined) return title;
  notes.push(`title ${quote(title)} was read as the role ${quote(role)}`);
  return role;
}

/**
 * The words of a place written after an organization's name, as organization names' words are
 * spelt, leaving out a country's code in capitals, alone or after a comma ("… SA FR", "… SA
 * (Paris, FR)"): a tag, not a word of the name, though acronyms spell the same letters.
 */
function placeWordsOf(place: string): string[] {
  return place
    .split(',')
    .flatMap((part) => (countryTag(part.trim()) ? [] : normalizeOrganizationName(part).tokens));
}

/**
 * Whether `place` is a country's code or abbreviation in capitals ("FR", "UK", "USA", "U.S.",
 * "DEU"); `place` is set apart after a name, where an alpha-3 code is a country.
 */
function countryTag(place: string): boolean {
  if (!/^(?:[A-Z]{2,3}|(?:[A-Z]\.){2,3})$/.test(place)) return false;
  return countryCode(place) !== undefined || alpha3Country(place) !== undefined;
}

function present(value: string | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** The names of a query read (see `AnalyzedQuery`), and the e-mail addresses written in them. */
interface ReadNames {
  readonly names: QueryName[];
  readonly namesWithPlace: NameWithPlaceReading[];
  /** Organization names as written, without an e-mail address (`writtenNames`). */
  readonly written: string[];
  readonly emailsInNames: string[];
}

/** Reads the names of `query`, adding to `notes` what needed a guess or failed. */
function readNames(query: MatchQuery, notes: string[]): ReadNames {
  const read: ReadNames = { names: [], namesWithPlace: [], written: [], emailsInNames: [] };
  for (const asWritten of query.names) {
    const alone = asWritten.includes('@') ? EMAIL_ALONE.exec(asWritten)?.[1] : undefined;
    if (alone) {
      // "ada.hoffmann@lebomivo.example" in the name column: the query's email, not a name.
      read.emailsInNames.push(alone);
      notes.push(`name ${quote(asWritten)} is an e-mail address: read as the email`);
      continue;
    }
    const withEmail = asWritten.includes('@') ? nameAndEmail(asWritten) : undefined;
    if (withEmail) {
      read.emailsInNames.push(withEmail.email);
      notes.push(`name ${quote(asWritten)} holds an e-mail address: read as the name and the email`);
    }
    const text = withEmail?.name ?? asWritten;
    if (query.type === 'Person') readPersonName(asWritten, text, notes, read);
    else readOrganizationName(asWritten, text, notes, read);
  }
  return read;
}

/** A person's name (`text`: `asWritten` without an e-mail address in it) into `into.names`. */
function readPersonName(asWritten: string, text: string, notes: string[], into: ReadNames): void {
  const withContext = personNameWithContext(text);
  if (withContext)
    notes.push(
      `name ${quote(asWritten)} was read as the name ${quote(withContext.name)} followed by ${quote(withContext.context)}: not compared`,
    );
  const name = withContext?.name ?? text;
  // "Ada Hoffmann (Lebomivo Robotics)", "Ada Hoffmann née Berg": also read without what may
  // not be the name, first (the given name and surname are read from the first name), as words
  // in parentheses may be a workplace or a title as well as words of the name.
  const bare = bareName(name);
  const bareRead = bare ? personName(bare) : undefined;
  if (bare && bareRead) {
    into.names.push(bareRead);
    notes.push(`name ${quote(name)} was also read as ${quote(bare)}`);
  }
  const read = personName(name);
  if (read) into.names.push(read);
  else notes.push(`name ${quote(name)} has no letters or digits to match: not used`);
  // Of the name without what may not be the name when there is such a reading: "Ada Hoffmann
  // (Lebomivo Robotics)" has none, "Ada Amir (Berg) Rossi Santos" is Ada Amir Rossi.
  const reordered = surnamesWrittenFirst(bare ?? name);
  const reorderedRead = reordered ? personName(reordered) : undefined;
  if (reordered && reorderedRead) {
    into.names.push(reorderedRead);
    notes.push(`name ${quote(name)} was also read as ${quote(reordered)}`);
  }
  const whole = reorderedRead ?? bareRead ?? read;
  for (const reading of whole ? withOneSurname(whole) : []) {
    into.names.push(reading);
    notes.push(
      `name ${quote(name)} was also read with one of two surnames: ${quote(reading.tokens.join(' '))}`,
    );
  }
  // "Rossi Santos Ada Amir": after the readings of the name as written (see the function).
  for (const reading of !reorderedRead && whole ? surnamesFirstGuessed(whole) : []) {
    into.names.push(reading);
    notes.push(
      `name ${quote(name)} was also read surnames first with one of them: ${quote(reading.tokens.join(' '))}`,
    );
  }
  const initials = initialsApart(bare ?? name);
  const initialsRead = initials ? personName(initials) : undefined;
  if (initials && initialsRead) {
    into.names.push(initialsRead);
    notes.push(`name ${quote(name)} was also read with initials: ${quote(initials)}`);
  }
}

/**
 * A place written between an organization's name and its legal form ("Acme Robotics Canada
 * Inc", "Acme Germany GmbH": a subsidiary named for its country): the name with its legal form
 * and without the place; undefined when the name ends in no legal form or none is before it.
 */
function placeBeforeLegalForm(name: string): ReturnType<typeof splitTrailingPlace> {
  const whole = normalizeOrganizationName(name);
  if (whole.legalForms.length === 0) return undefined;
  const words = name.trim().split(/\s+/);
  const same = whole.tokens.join(' ');
  // The longest run of trailing words that is only the legal form ("Pty Ltd", not "Ltd").
  for (let n = Math.min(3, words.length - 2); n >= 1; n--) {
    if (normalizeOrganizationName(words.slice(0, -n).join(' ')).tokens.join(' ') !== same) continue;
    const split = splitTrailingPlace(words.slice(0, -n).join(' '));
    return split ? { ...split, name: `${split.name} ${words.slice(-n).join(' ')}` } : undefined;
  }
  return undefined;
}

/** Marks that set what is written with an organization's name apart (`splitOrganizationAddition`). */
const ADDITION_MARKS =
  /[-\u2013\u2014\u00b7,(/|[:]|^\s*(?:attn|attention|z\.?\s?hd|fao|for|welcome|willkommen|bienvenid|bienvenue|benvenuti|welkom)\b/iu;

/** What each kind of `NameAddition` is called in a note. */
const ADDITION_NAMES: Readonly<Record<NameAddition['kind'], string>> = {
  listing: 'stock listing',
  registration: 'registration number',
  parent: 'parent organization',
  department: 'department',
  'care-of': 'addressee line',
  page: 'web page title words',
};

/**
 * An organization's name (`written`: `asWritten` without an e-mail address in it) into `into`: its
 * names (and another name written after it), the name as written, and its reading without a
 * place written after it.
 */
function readOrganizationName(asWritten: string, written: string, notes: string[], into: ReadNames): void {
  // "Acme Robotics Inc (NYSE: ACR)", "Acme Robotics – Sales": read without the listing or the
  // department (a department's words may be the name's too, "Acme – Logistics": read with them
  // as well, after).
  const addition = ADDITION_MARKS.test(written) ? splitOrganizationAddition(written) : undefined;
  if (addition)
    notes.push(
      `name ${quote(asWritten)} was read as the name ${quote(addition.name)} and its ${ADDITION_NAMES[addition.kind]} ${quote(addition.addition)}`,
    );
  const text = addition?.name ?? written;
  const withOther = splitOtherName(text);
  const name = withOther?.name ?? text;
  const read = organizationName(name);
  if (read) into.names.push(read);
  else notes.push(`name ${quote(name)} has no letters or digits to match: not used`);
  const other = withOther ? organizationName(withOther.other) : undefined;
  if (withOther && other) {
    into.names.push(other);
    notes.push(
      `name ${quote(asWritten)} was read as two names of one organization: ${quote(name)} and ${quote(withOther.other)}`,
    );
  }
  const whole = addition?.kind === 'department' ? organizationName(written) : undefined;
  if (whole) into.names.push(whole);
  if (!read) return;
  into.written.push(name);
  const split = splitTrailingPlace(name) ?? placeBeforeLegalForm(name);
  const bare = split ? organizationName(split.name) : undefined;
  if (split && bare) {
    into.namesWithPlace.push({
      written: name,
      name: bare,
      place: split.place,
      placeWords: placeWordsOf(split.place),
      // A city written bare after a name may be a word of it; a country, or any place set
      // apart, is where the organization is.
      locates: split.setApart || countryCode(split.place) !== undefined,
    });
  }
}

/** A Person query's employer as compared (`employerTokens`) and looked up (`employerKey`). */
interface EmployerReading {
  readonly tokens: readonly string[];
  readonly key: string;
}

/**
 * An employer's words without the generic organisational ones ("Acme Robotics Holdings",
 * "Acme Robotics Intl": the group, the subsidiary abroad, as people write the workplace) when
 * two other words or more remain, so that the comparison with the graph's employer asks
 * whether the distinctive words are there; else as they are ("Acme Group" keeps its word).
 */
function distinctiveWords(tokens: readonly string[]): readonly string[] {
  const kept = tokens.filter((token) => !isGenericOrganizationWord(token));
  return kept.length >= 2 ? kept : tokens;
}

/** Marks that may set a place apart after an employer's name (`splitTrailingPlace`). */
const PLACE_MARKS = /[([,\-\u2013\u2014]/u;
/**
 * The longest employer read for a place set apart after it: `splitTrailingPlace`'s lazy name
 * part backtracks over a long text (a 2,000-character employer of "Acme (Paris, France) "
 * repeated cost ~1 ms); an employer with its office is well under it. Longer ones are read as
 * written.
 */
const MAX_EMPLOYER_WITH_PLACE = 200;

/**
 * How many of `tokens`' last words (one to three) name a country, in full ("spain", "united
 * kingdom": codes are left, being words of names too), with a name before them that does not
 * end in a stopword ("Bank of America"); 0 when none do.
 */
function countryAtEnd(tokens: readonly string[]): number {
  for (let n = Math.min(3, tokens.length - 1); n >= 1; n--) {
    const place = tokens.slice(-n).join(' ');
    if (place.length > 3 && countryCode(place) !== undefined)
      return isOrganizationStopword(tokens[tokens.length - n - 1]) ? 0 : n;
  }
  return 0;
}

/**
 * A Person query's employer read as an organization's name is: without a place set apart after
 * it ("Acme SA (Spain)", "Acme Ltd, Manchester") or a country's name ending it ("Acme Robotics
 * Spain SA": where the office is, not which organization), compared by its distinctive words
 * (`distinctiveWords`). A city written bare after the name may be a word of it ("Acme Berlin"):
 * kept. One normalisation unless a place is found (the employer is read for every query).
 */
function readEmployer(text: string, notes: string[]): EmployerReading {
  const apart =
    text.length <= MAX_EMPLOYER_WITH_PLACE && PLACE_MARKS.test(text) ? splitTrailingPlace(text) : undefined;
  const placed = apart?.setApart ? apart : undefined;
  let normalized = normalizeOrganizationName(placed?.name ?? text);
  let place = placed?.place;
  const country = placed ? 0 : countryAtEnd(normalized.tokens);
  if (country) {
    place = normalized.tokens.slice(-country).join(' ');
    normalized = normalizeOrganizationName(normalized.tokens.slice(0, -country).join(' '));
  }
  if (place)
    notes.push(
      `employer ${quote(text)} was read as ${quote(normalized.tokens.join(' '))} in ${quote(place)}`,
    );
  return { tokens: distinctiveWords(normalized.significant), key: normalized.key };
}

/**
 * `query` with its employer's abbreviated words the graph's organization names lack written
 * out (`writtenOut`: "Acme Mtrs SA" as Acme Motors, "Acme Pharma Hldgs" as Acme Pharma
 * Holdings), in the words compared and in the name looked up; `query` itself when there are
 * none. `count` as in `withJoinedWordsApart`.
 */
export function withEmployerWrittenOut(query: AnalyzedQuery, count: (word: string) => number): AnalyzedQuery {
  if (!query.employerKey) return query;
  const key = query.employerKey.split(' ');
  const words = key.map((word) => writtenOut(word, count) ?? word);
  if (words.every((word, i) => word === key[i])) return query;
  const written = sortedDistinct(words).join(' ');
  return {
    ...query,
    employerTokens: distinctiveWords(query.employerTokens.map((word) => writtenOut(word, count) ?? word)),
    employerKey: written,
    notes: [
      ...query.notes,
      `employer ${quote(query.employerKey)} was read with its abbreviations written out: ${quote(written)}`,
    ],
  };
}

/**
 * The registrable domain of an employer written as a web address ("acme.com",
 * "https://www.acme.co.uk/about"), or undefined for a name ("Acme Corp.") or a shared host's
 * profile (a LinkedIn page names no domain of the employer's).
 */
function employerSite(employer: string): string | undefined {
  if (!looksLikeWebAddress(employer)) return undefined;
  const { domain, profile } = hostLookupKeys(employer);
  return profile || !domain?.includes('.') ? undefined : domain;
}

/**
 * Normalises every field of `query` once. Unparsable values are dropped (they give no evidence)
 * and named in `notes`, as are guesses (a phone number read in several countries) and the
 * fields matching does not use.
 */
export function analyzeQuery(query: MatchQuery): AnalyzedQuery {
  const isPerson = query.type === 'Person';
  const notes: string[] = [];
  const headline = isPerson && present(query.title) ? readHeadline(query.title) : undefined;
  if (headline?.employer && !present(query.employer))
    notes.push(
      `title ${quote(query.title ?? '')} was read as the title ${quote(headline.title)} at ${quote(headline.employer)}`,
    );
  const title = isPerson && present(query.title) ? readTitle(query.title, headline?.title, notes) : undefined;
  const employerText = present(query.employer) ? query.employer : headline?.employer;
  const employerDomain = isPerson && employerText ? employerSite(employerText) : undefined;
  if (employerDomain)
    notes.push(
      `employer ${quote(employerText ?? '')} is a web address: read as the organization at ${employerDomain}`,
    );
  const employer = employerText
    ? employerDomain
      ? readEmployer(employerDomain.slice(0, employerDomain.indexOf('.')), notes)
      : readEmployer(employerText, notes)
    : undefined;
  const school = present(query.school) ? normalizeOrganizationName(query.school) : undefined;
  const { names, namesWithPlace, written, emailsInNames } = readNames(query, notes);
  const urls: QueryUrl[] = [];
  // An organization's web address in the name column ("acme.com", "www.acme.co.uk"): it is the
  // organization's url too (the name is still compared as written).
  const addresses = isPerson
    ? []
    : query.names.filter((name) => !query.urls.includes(name) && looksLikeWebAddress(name));
  for (const name of addresses) notes.push(`name ${quote(name)} is a web address: also read as the url`);
  for (const url of [...query.urls, ...addresses]) {
    const { hosts, domain, profile } = hostLookupKeys(url);
    if (profile) urls.push({ hosts, domain: '', profile });
    else if (domain) urls.push({ hosts, domain });
    else notes.push(`url ${quote(url)} names no web host: not used`);
  }
  const emails: NormalizedEmail[] = [];
  for (const email of query.emails) {
    const plain = email.includes('@') ? undefined : deobfuscatedEmail(email);
    const read = normalizeEmail(plain ?? email);
    if (read && plain) notes.push(`email ${quote(email)} was read as ${quote(plain)}`);
    if (read) emails.push(read);
    else notes.push(`email ${quote(email)} is not an e-mail address (local@domain): not used`);
  }
  for (const email of emailsInNames) {
    const read = normalizeEmail(email);
    if (read && !emails.some((e) => e.address === read.address)) emails.push(read);
  }
  const location = present(query.location) ? parseLocation(query.location) : undefined;
  const phones: string[] = [];
  for (const phone of query.phones) {
    const reading = readPhone(phone, location?.country);
    for (const number of reading.numbers) if (!phones.includes(number)) phones.push(number);
    if (reading.numbers.length === 0) notes.push(`phone ${quote(phone)} is not a phone number: not used`);
    else if (reading.guessedCountries?.length === 0)
      notes.push(
        `phone ${quote(phone)} has no country code and no location: give it with +country code, or a location, to match it`,
      );
    else if (reading.guessedCountries)
      notes.push(
        `phone ${quote(phone)} has no country code and no location: matched as it reads in ${reading.guessedCountries.join(', ')}; give +country code or a location to be sure`,
      );
  }
  if (present(query.description))
    notes.push('description is not used for matching: the graph is searched by the other fields');
  return {
    type: query.type,
    names,
    urls,
    emails,
    phones,
    ...(location && (location.tokens.length || location.country || location.places.length)
      ? { location }
      : {}),
    titleTokens: title ? textTokens(title) : present(query.title) ? textTokens(query.title) : [],
    employerTokens: employer?.tokens ?? [],
    ...(query.type === 'Person' && employer?.key && !employerDomain ? { employerKey: employer.key } : {}),
    ...(employerDomain ? { employerDomain } : {}),
    schoolTokens: school?.significant ?? [],
    ...(query.type === 'Person' && school?.key ? { schoolKey: school.key } : {}),
    ...(present(query.ip) ? { ip: query.ip.trim() } : {}),
    ...(namesWithPlace.length ? { namesWithPlace } : {}),
    ...(written.length ? { writtenNames: written } : {}),
    notes,
  };
}

/**
 * `query` with its `namesWithPlace` applied (see there): `isNameWord` tells whether a word is a
 * word of the graph's organization names.
 */
export function withNamesWithoutPlace(
  query: AnalyzedQuery,
  isNameWord: (word: string) => boolean,
): AnalyzedQuery {
  if (!query.namesWithPlace) return query;
  const names = [...query.names];
  const notes = [...query.notes];
  let location = query.location;
  for (const reading of query.namesWithPlace) {
    if (reading.placeWords.some(isNameWord)) continue;
    names.push(reading.name);
    const located = !location && reading.locates ? parseLocation(reading.place) : undefined;
    if (located && (located.country || located.places.length)) location = located;
    notes.push(
      `name ${quote(reading.written)} was also read as an organization's name followed by its place ${quote(reading.place)}`,
    );
  }
  const { namesWithPlace: _, ...rest } = query;
  return { ...rest, names, notes, ...(location ? { location } : {}) };
}

/** Parts a joined word is set apart into are at least this long ("PL" of "PLRobotics"). */
const JOINED_PART_MIN = 2;
/**
 * A longer word is not tried as two joined: two name words of 24 letters are already rare, and
 * each cut costs two look-ups, so a hostile 1,500-letter word would cost thousands per query.
 */
const JOINED_WORD_MAX = 48;

/**
 * A word of an organization name that is not a word of the graph's names but two of them run
 * together ("lebomivorobotics": "lebomivo robotics"), the two set apart; undefined otherwise.
 * Of several ways to cut it, the one whose rarer half is the commonest.
 */
function apart(word: string, count: (word: string) => number): string | undefined {
  if (word.length < 2 * JOINED_PART_MIN || word.length > JOINED_WORD_MAX || count(word) > 0) return undefined;
  let best: string | undefined;
  let bestCount = 0;
  for (let i = JOINED_PART_MIN; i <= word.length - JOINED_PART_MIN; i++) {
    const left = word.slice(0, i);
    const right = word.slice(i);
    const least = Math.min(count(left), count(right));
    if (least > bestCount) {
      best = `${left} ${right}`;
      bestCount = least;
    }
  }
  return best;
}

/**
 * The word an abbreviation written in an organization name stands for ("Mtrs": motors, "Hldgs":
 * holdings), when the graph's names do not have the abbreviation and have the word, or the word
 * is a generic organisational one (compared with a capped weight, whether the graph has it or
 * not); undefined otherwise. `count` as in `withJoinedWordsApart`.
 */
function writtenOut(word: string, count: (word: string) => number): string | undefined {
  const full = abbreviatedOrganizationWord(word);
  if (full === undefined || count(word) > 0) return undefined;
  return count(full) > 0 || isGenericOrganizationWord(full) ? full : undefined;
}

/**
 * `query` with each organization name that has words run together ("LebomivoRobotics",
 * "LEBOMIVOROBOTICS": words the graph's names do not have, each two of their words joined) also
 * read with them apart, and each that has abbreviated words the graph's names do not have
 * ("Lebomivo Mtrs", "Lebomivo Robotics Hldgs") also read with them written out (`writtenOut`).
 * `count` is how many of the graph's organization names have a word.
 */
export function withJoinedWordsApart(query: AnalyzedQuery, count: (word: string) => number): AnalyzedQuery {
  if (!query.writtenNames) return query;
  let names: QueryName[] | undefined;
  let notes: string[] | undefined;
  for (const written of query.writtenNames) {
    let joined = false;
    let abbreviated = false;
    const words = textTokens(written).map((word) => {
      const full = writtenOut(word, count);
      if (full) abbreviated = true;
      const parts = full ? undefined : apart(word, count);
      if (parts) joined = true;
      return full ?? parts ?? word;
    });
    const read = joined || abbreviated ? organizationName(words.join(' ')) : undefined;
    if (!read) continue;
    names ??= [...query.names];
    notes ??= [...query.notes];
    names.push(read);
    const how = abbreviated
      ? joined
        ? 'with its joined words apart and its abbreviations written out'
        : 'with its abbreviations written out'
      : 'with its joined words apart';
    notes.push(`name ${quote(written)} was also read ${how}: ${quote(words.join(' '))}`);
  }
  if (!names || !notes) return query;
  const { writtenNames: _, ...rest } = query;
  return { ...rest, names, notes };
}
