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
  readonly departmentWords: ReadonlySet<string>;
  readonly pronoun: RegExp;
  readonly birthName: RegExp;
}

let additions: Additions | undefined;
function tables(): Additions {
  if (additions) return additions;
  const records = readDataFile('name-additions.tsv');
  const of = (kind: string) => records.filter(([k]) => k === kind).flatMap(([, words]) => listField(words));
  const alternatives = (words: readonly string[]) =>
    [...words]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.split(' ').join('\\s+'))
      .join('|');
  const pronouns = alternatives(of('pronoun'));
  additions = {
    // "(NYSE: ACR)", "[NASDAQ:ACR]", "- LSE: ACR", ", NYSE:ACR": an exchange, a colon, a ticker.
    listing: new RegExp(
      `^(.*?\\S)\\s*(?:[([]\\s*(?:${alternatives(of('exchange'))})\\s*:\\s*[\\p{L}\\d.]{1,8}\\s*[)\\]]|(?:,|\\s[-\\u2013\\u2014|]|\\s)\\s*(?:${alternatives(of('exchange'))})\\s*:\\s*[\\p{L}\\d.]{1,8})$`,
      'iu',
    ),
    departmentWords: new Set([...of('department'), ...of('department-word')]),
    // "(she/her)", "[he/him]", "she/they", "| they/them", ", he/him/his" at the end.
    pronoun: new RegExp(
      `^(.*?\\S)[\\s,|(\\[-]*(?:${pronouns})(?:\\s*/\\s*(?:${pronouns})){1,2}[\\s)\\]]*$`,
      'iu',
    ),
    // "née Berg", "geb. Berg": a word or two of letters after the marker ("born 1855" is a date).
    birthName: new RegExp(
      `^(.*?\\S)\\s*,?\\s+(?:${alternatives(of('birth-name').map((w) => w.replace('e', '[eé]')))})\\.?\\s+(\\p{L}[\\p{L}'’-]*(?:\\s+\\p{L}[\\p{L}'’-]*)?)$`,
      'iu',
    ),
  };
  return additions;
}

/** An organization's name without what was written with it, and what that was. */
export interface NameAddition {
  readonly name: string;
  readonly addition: string;
  /** `listing`: a stock exchange and ticker; `department`: a department or function. */
  readonly kind: 'listing' | 'department';
}

/** What sets a department apart from the name after it: a dash, comma, slash, bar or "(…)". */
const DEPARTMENT_AFTER = /^(.*?\S)\s*(?:\s[-\u2013\u2014/|]\s|,\s*|\(([^()]+)\)\s*$)\s*([^,()]*)$/u;
/** A department before the name, set apart by a comma ("Accounts Payable, Acme Robotics"). */
const DEPARTMENT_BEFORE = /^\s*([^,]+?),\s*(\S.*)$/u;

function isDepartment(text: string, words: ReadonlySet<string>): boolean {
  const tokens = textTokens(text);
  return tokens.length > 0 && tokens.length <= 4 && tokens.every((t) => words.has(t));
}

/** Whether what is left beside a department can be a name: it has a word no department has. */
function isName(text: string, words: ReadonlySet<string>): boolean {
  return textTokens(text).some((t) => !words.has(t));
}

/**
 * `name` without a stock listing ("Acme Robotics Inc (NYSE: ACR)") or a department written
 * after it, or before it with a comma ("Acme Robotics – Sales", "Acme GmbH (IT Department)",
 * "Accounts Payable, Acme GmbH"); undefined when it has neither or nothing would be left.
 */
export function splitOrganizationAddition(name: string): NameAddition | undefined {
  const { listing, departmentWords } = tables();
  const listed = listing.exec(name);
  if (listed) return { name: listed[1], addition: name.slice(listed[1].length).trim(), kind: 'listing' };
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
  return tables().pronoun.exec(name)?.[1];
}

/**
 * A person's name without a birth name written after it ("Ada Hoffmann née Berg", "… geb.
 * Berg"): the name and the birth name; undefined when there is none.
 */
export function splitBirthName(name: string): { name: string; birthName: string } | undefined {
  const found = tables().birthName.exec(name);
  return found ? { name: found[1], birthName: found[2] } : undefined;
}
