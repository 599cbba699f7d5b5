/**
 * Job titles without the qualifiers written with the role (`data/title-qualifiers.tsv`): "Interim
 * Sales Director", "Acting CEO", "Software Engineer (m/w/d)", "Designer a.i." name the role
 * "Sales Director", "CEO", "Software Engineer", "Designer" that a person's record holds.
 */
import { listField, readDataFile } from './data.ts';
import { textTokens } from './text.ts';

interface Qualifiers {
  /** Qualifiers written before the role, as their folded words joined by a space. */
  readonly before: ReadonlySet<string>;
  /** Qualifiers written after the role. */
  readonly after: ReadonlySet<string>;
  /** Letters of a gender tag ("m/w/d"), folded. */
  readonly genderLetters: ReadonlySet<string>;
  /** The most words a qualifier has. */
  readonly longest: number;
}

let qualifiers: Qualifiers | undefined;
function tables(): Qualifiers {
  if (qualifiers) return qualifiers;
  const records = readDataFile('title-qualifiers.tsv');
  const of = (kind: string) =>
    new Set(
      records
        .filter(([k]) => k === kind)
        .flatMap(([, words]) => listField(words).map((w) => textTokens(w).join(' '))),
    );
  const before = of('before');
  const after = of('after');
  const longest = Math.max(...[...before, ...after].map((q) => q.split(' ').length));
  qualifiers = { before, after, genderLetters: of('gender-letter'), longest };
  return qualifiers;
}

/** Marks written around a qualifier: spaces, brackets, commas, dashes, bars. */
const MARKS = new Set([' ', ',', ';', ':', '|', '/', '-', '\u2013', '\u2014', '(', ')', '[', ']']);

/** Marks left at a role's ends by the qualifiers dropped ("Accountant, interim"): no brackets. */
const SEPARATORS = new Set([' ', ',', ';', ':', '|', '/', '-', '\u2013', '\u2014']);

/**
 * `text` without the `marks` at its ends (a loop, not a pattern: no backtracking on long runs).
 */
function withoutMarksAround(text: string, marks: ReadonlySet<string> = MARKS): string {
  let start = 0;
  let end = text.length;
  while (start < end && marks.has(text[start])) start++;
  while (end > start && marks.has(text[end - 1])) end--;
  return text.slice(start, end);
}

/** Whether `text` is a gender tag: two to four listed letters written with slashes ("m/w/d"). */
function isGenderTag(text: string, letters: ReadonlySet<string>): boolean {
  if (!text.includes('/')) return false;
  const parts = text.split('/');
  return (
    parts.length >= 2 && parts.length <= 4 && parts.every((part) => letters.has(textTokens(part).join(' ')))
  );
}

/**
 * Whether raw words `text` (one to `longest` of them, joined by a space) are a qualifier of
 * `kind`'s set or a gender tag, once the marks around them are left out; words of marks alone
 * ("-", "|") are too.
 */
function isQualifier(text: string, set: ReadonlySet<string>, gender: boolean): boolean {
  const inner = withoutMarksAround(text);
  if (inner === '') return true;
  if (gender && isGenderTag(inner, tables().genderLetters)) return true;
  const tokens = textTokens(inner);
  return tokens.length > 0 && set.has(tokens.join(' '));
}

/**
 * The most qualifiers dropped at each end: a title carries a few ("Interim Designer (m/w/d) -
 * Remote": three, with the dash), and a hostile 2,000-character field of 250 "(m/w/d)" costs
 * ~0.5 ms to read to the end instead of ~0.05 ms.
 */
const MAX_QUALIFIERS = 6;

/**
 * `title` without the qualifiers written before and after the role (`data/title-qualifiers.tsv`),
 * or undefined when it has none (or is nothing but qualifiers: a title "Interim" is kept).
 * Linear in the title's length: at most `MAX_QUALIFIERS` steps at each end, each looking at a
 * few words.
 */
export function withoutTitleQualifiers(title: string): string | undefined {
  const { before, after, longest } = tables();
  const words = title.trim().split(/\s+/u);
  let start = 0;
  let end = words.length;
  // Each step drops the longest qualifier at the end (then at the start) that leaves a word.
  let steps = 0;
  for (let n = Math.min(longest, end - start - 1); n >= 1 && steps < MAX_QUALIFIERS; n--) {
    if (!isQualifier(words.slice(end - n, end).join(' '), after, true)) continue;
    end -= n;
    steps++;
    n = Math.min(longest, end - start - 1) + 1;
  }
  steps = 0;
  for (let n = Math.min(longest, end - start - 1); n >= 1 && steps < MAX_QUALIFIERS; n--) {
    if (!isQualifier(words.slice(start, start + n).join(' '), before, false)) continue;
    start += n;
    steps++;
    n = Math.min(longest, end - start - 1) + 1;
  }
  if (start === 0 && end === words.length) return undefined;
  const role = withoutMarksAround(words.slice(start, end).join(' '), SEPARATORS);
  // A role must be left: a word with a letter or a digit.
  return textTokens(role).length > 0 ? role : undefined;
}
