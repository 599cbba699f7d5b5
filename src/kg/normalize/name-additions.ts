/**
 * What people write into a name column besides the name (`data/name-additions.tsv`): an
 * organization's stock listing ("Acme Robotics (NYSE: ACR)") or a department ("Acme Robotics –
 * Sales"), a person's pronouns ("Ada Hoffmann (she/her)") or birth name ("Ada Hoffmann née
 * Berg"). Each reader gives the name without the addition, or undefined when there is none.
 */
import { listField, readDataFile } from './data.ts';
import { textTokens } from './text.ts';

interface Additions {
  readonly listing: RegExp;
  readonly registration: RegExp;
  readonly parent: RegExp;
  readonly careOf: RegExp;
  readonly departmentWords: ReadonlySet<string>;
  readonly pageWords: ReadonlySet<string>;
  readonly pageGlue: ReadonlySet<string>;
  readonly pagePrefix: RegExp;
  readonly pronoun: RegExp;
  readonly birthName: RegExp;
}

let additions: Additions | undefined;
function tables(): Additions {
  if (additions) return additions;
  const records = readDataFile('name-additions.tsv');
  const of = (kind: string) => records.filter(([k]) => k === kind).flatMap(([, words]) => listField(words));
  // The words as alternatives, longest first, a word's parts apart by `gap`.
  const alternation = (words: readonly string[], gap: string) =>
    [...words]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.split(' ').join(gap))
      .join('|');
  const alternatives = (words: readonly string[]) => alternation(words, '\\s+');
  const pronouns = alternatives(of('pronoun'));
  // A marker's words apart by a space, a dot or a slash ("reg. no", "z. hd.").
  const markers = (kind: string, withSlash = true) =>
    alternation(
      of(kind).filter((m) => withSlash || !m.includes('/')),
      '[\\s./]*',
    );
  // Markers with a slash ("c/o"), the slash kept and spaces allowed around it.
  const slashed = (kind: string) =>
    of(kind)
      .filter((m) => m.includes('/'))
      .map((m) => m.split('/').join('\\s*/\\s*'))
      .join('|');
  additions = {
    // "(NYSE: ACR)", "[NASDAQ:ACR]", "- LSE: ACR", ", NYSE:ACR": an exchange, a colon, a ticker.
    listing: new RegExp(
      `^(.*?\\S)\\s*(?:[([]\\s*(?:${alternatives(of('exchange'))})\\s*:\\s*[\\p{L}\\d.]{1,8}\\s*[)\\]]|(?:,|\\s[-\\u2013\\u2014|]|\\s)\\s*(?:${alternatives(of('exchange'))})\\s*:\\s*[\\p{L}\\d.]{1,8})$`,
      'iu',
    ),
    // "(HRB 12345)", ", Company No. 01234567", "- VAT: GB123456789": a marker and a number.
    registration: new RegExp(
      `^(.*?\\S)\\s*(?:[([]\\s*(?:${markers('registration')})\\.?\\s*:?\\s*[^()[\\]]*\\d[^()[\\]]*[)\\]]|(?:,|\\s[-\\u2013\\u2014|])\\s*(?:${markers('registration')})\\.?\\s*:?\\s*[^,]*\\d[^,]*)$`,
      'iu',
    ),
    // "(subsidiary of Kasibo Inc)", "– a division of Kasibo", ", a Kasibo company".
    parent: new RegExp(
      `^(.*?\\S)\\s*(?:[([]\\s*(?:${markers('parent')})\\s+[^()[\\]]+[)\\]]|(?:,|\\s[-\\u2013\\u2014])\\s*(?:${markers('parent')})\\s+.+|,\\s*an?\\s+\\S.*\\s+company)$`,
      'iu',
    ),
    // "c/o Acme", "Attn: Acme", "Attn. Accounts Payable, Acme": a marker with a slash stands
    // alone; one of words ends in a colon or a dot ("Attention Deficit Inc" is a name).
    careOf: new RegExp(
      `^\\s*(?:(?:${slashed('care-of')})|(?:${markers('care-of', false)})\\s*[.:])\\s*(\\S.*)$`,
      'iu',
    ),
    departmentWords: new Set([...of('department'), ...of('department-word')]),
    pageWords: new Set(of('page')),
    pageGlue: new Set(of('page-glue')),
    // "Welcome to Acme Robotics", "Willkommen bei Acme GmbH!": the greeting and the name after it.
    pagePrefix: new RegExp(`^\\s*(?:${alternatives(of('page-prefix'))})\\s+(\\S.*?)[\\s!.]*$`, 'iu'),
    // "(she/her)", "[he/him]", "she/they", "| they/them", ", he/him/his" at the end.
    pronoun: new RegExp(
      `^(.*?\\S)[\\s,|(\\[-]*(?:${pronouns})(?:\\s*/\\s*(?:${pronouns})){1,2}[\\s)\\]]*$`,
      'iu',
    ),
    // "née Berg", "geb. Berg": a word or two of letters after the marker ("born 1855" is a date).
    birthName: new RegExp(
      `^(.*?\\S)\\s*,?\\s+(?:${alternatives(of('birth-name'))})\\.?\\s+(\\p{L}[\\p{L}'’-]*(?:\\s+\\p{L}[\\p{L}'’-]*)?)$`,
      'iu',
    ),
  };
  return additions;
}

/** An organization's name without what was written with it, and what that was. */
export interface NameAddition {
  readonly name: string;
  readonly addition: string;
  /**
   * `listing`: a stock exchange and ticker; `registration`: a register's or tax number;
   * `parent`: the organization it belongs to; `department`: a department or function;
   * `care-of`: an addressee line's words before the name ("c/o", "Attn:"); `page`: a web page
   * title's words ("| Home", "– Official Website", "Welcome to").
   */
  readonly kind: 'listing' | 'registration' | 'parent' | 'department' | 'care-of' | 'page';
}

/**
 * The longest name read for an addition. A name with its listing, register number, parent or
 * department is well under it ("Lebomivo Robotics GmbH (a subsidiary of Kasibo Holdings AG)" is
 * 58 characters); the patterns' lazy name part backtracks over a long text, so a 2,000-character
 * field of repeated ", a " cost 32 ms per query instead of ~0.1 ms. Longer names are read as
 * written.
 */
export const MAX_NAME_WITH_ADDITION = 200;

/** What sets a department apart from the name after it: a dash, comma, slash, bar or "(…)". */
const DEPARTMENT_AFTER = /^(.*?\S)\s*(?:\s[-\u2013\u2014/|]\s|,\s*|\(([^()]+)\)\s*$)\s*([^,()]*)$/u;
/** A department before the name, set apart by a comma ("Accounts Payable, Acme Robotics"). */
const DEPARTMENT_BEFORE = /^\s*([^,]+?),\s*(\S.*)$/u;
/** A page title's words before the name, set apart by a bar, a dash or a colon ("Home | Acme"). */
const PAGE_BEFORE = /^\s*([^|\u2013\u2014:\u00b7-]+?)\s*[|\u2013\u2014:\u00b7-]\s+(\S.*)$/u;
/** A page title's words after the name: a bar, a dash, a colon or a middle dot before them. */
const PAGE_AFTER = /^(.*?\S)\s*(?:\s[|\u2013\u2014\u00b7-]|:|\s::)\s+([^|\u2013\u2014:\u00b7]+)$/u;

function isDepartment(text: string, words: ReadonlySet<string>): boolean {
  const tokens = textTokens(text);
  return tokens.length > 0 && tokens.length <= 4 && tokens.every((t) => words.has(t));
}

/** Whether `text` is a web page title's words: page or glue words only, one page word at least. */
function isPageTitle(text: string, pageWords: ReadonlySet<string>, glue: ReadonlySet<string>): boolean {
  const tokens = textTokens(text);
  return (
    tokens.length > 0 &&
    tokens.length <= 5 &&
    tokens.every((t) => pageWords.has(t) || glue.has(t)) &&
    tokens.some((t) => pageWords.has(t))
  );
}

/**
 * `name` without a web page title's words ("Acme Robotics | Home", "Home – Acme Robotics",
 * "Welcome to Acme Robotics"): the name and those words, or undefined.
 */
function splitPageTitle(name: string): { name: string; addition: string } | undefined {
  const { pageWords, pageGlue, pagePrefix, departmentWords } = tables();
  // What is left is a name: it has a word that is neither a department's nor a page's.
  const isLeftName = (text: string) =>
    textTokens(text).some((t) => !departmentWords.has(t) && !pageWords.has(t) && !pageGlue.has(t));
  const after = PAGE_AFTER.exec(name);
  if (after && isPageTitle(after[2], pageWords, pageGlue) && isLeftName(after[1])) {
    const rest = splitPageTitle(after[1]);
    return {
      name: rest?.name ?? after[1],
      addition: `${rest ? `${rest.addition}; ` : ''}${after[2].trim()}`,
    };
  }
  const before = PAGE_BEFORE.exec(name);
  if (before && isPageTitle(before[1], pageWords, pageGlue) && isLeftName(before[2]))
    return { name: before[2].trim(), addition: before[1].trim() };
  const greeted = pagePrefix.exec(name);
  if (greeted && isLeftName(greeted[1]))
    return { name: greeted[1], addition: name.slice(0, name.indexOf(greeted[1])).trim() };
  return undefined;
}

/** Whether what is left beside a department can be a name: it has a word no department has. */
function isName(text: string, words: ReadonlySet<string>): boolean {
  return textTokens(text).some((t) => !words.has(t));
}

/**
 * `name` without what is written with it (`NameAddition`'s kinds): a stock listing, a register's
 * or tax number, the organization it belongs to, a department after it or before it with a
 * comma, an addressee line's words before it ("Acme Robotics Inc (NYSE: ACR)", "Acme GmbH (HRB
 * 12345)", "Acme SA, a Kasibo company", "Acme Robotics – Sales", "Accounts Payable, Acme GmbH",
 * "c/o Acme Ltd"); undefined when it has none or nothing would be left.
 */
export function splitOrganizationAddition(name: string): NameAddition | undefined {
  if (name.length > MAX_NAME_WITH_ADDITION) return undefined;
  const page = splitPageTitle(name);
  if (page) {
    const inner = splitOrganizationAddition(page.name);
    return inner ? { ...inner, addition: `${inner.addition}; ${page.addition}` } : { ...page, kind: 'page' };
  }
  const { careOf } = tables();
  const addressed = careOf.exec(name);
  if (!addressed) return splitAfterName(name);
  const marker = name.slice(0, name.length - addressed[1].length).trim();
  const inner = splitAfterName(addressed[1]);
  return inner
    ? { ...inner, addition: `${marker} ${inner.addition}` }
    : { name: addressed[1].trim(), addition: marker, kind: 'care-of' };
}

/** `splitOrganizationAddition` after an addressee line's words. */
function splitAfterName(name: string): NameAddition | undefined {
  const { listing, registration, parent, departmentWords } = tables();
  for (const [pattern, kind] of [
    [listing, 'listing'],
    [registration, 'registration'],
    [parent, 'parent'],
  ] as const) {
    const found = pattern.exec(name);
    if (found && isName(found[1], departmentWords))
      return {
        name: found[1].replace(/[\s,;:-]+$/u, ''),
        addition: name.slice(found[1].length).replace(/^[\s,;:\u2013\u2014-]+/u, ''),
        kind,
      };
  }
  const after = DEPARTMENT_AFTER.exec(name);
  const department = after ? (after[2] ?? after[3]) : undefined;
  if (after && department && isDepartment(department, departmentWords) && isName(after[1], departmentWords))
    return { name: after[1].replace(/[\s,;:-]+$/u, ''), addition: department.trim(), kind: 'department' };
  const before = DEPARTMENT_BEFORE.exec(name);
  if (before && isDepartment(before[1], departmentWords) && isName(before[2], departmentWords))
    return { name: before[2].trim(), addition: before[1].trim(), kind: 'department' };
  return undefined;
}

/** A person's name without pronouns written after it ("Ada Hoffmann (she/her)"), or undefined. */
export function withoutPronouns(name: string): string | undefined {
  if (name.length > MAX_NAME_WITH_ADDITION) return undefined;
  return tables().pronoun.exec(name)?.[1];
}

/**
 * A person's name without a birth name written after it ("Ada Hoffmann née Berg", "… geb.
 * Berg"): the name and the birth name; undefined when there is none.
 */
export function splitBirthName(name: string): { name: string; birthName: string } | undefined {
  if (name.length > MAX_NAME_WITH_ADDITION) return undefined;
  const found = tables().birthName.exec(name);
  return found ? { name: found[1], birthName: found[2] } : undefined;
}
