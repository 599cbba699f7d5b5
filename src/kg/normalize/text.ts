/**
 * Text folding shared by every normaliser: Unicode compatibility decomposition, accents and
 * special letters folded to ASCII, lowercased, and split into alphanumeric tokens.
 */
import { listField, readDataFile } from './data.ts';

// Letters that NFKD does not decompose into a base letter plus marks.
const SPECIAL_LETTERS: Readonly<Record<string, string>> = Object.freeze({
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŀ: 'l',
  ŧ: 't',
});
const ASCII = /^[\x00-\x7f]*$/;
/** Greek and Cyrillic letters (after lowercasing). */
const GREEK_OR_CYRILLIC = /[\u0370-\u052f]/;
let lookAlikes: ReadonlyMap<string, string> | undefined;
/** Look-alike letter → Latin letter (`data/look-alike-letters.tsv`), read at first use. */
function lookAlikeLetters(): ReadonlyMap<string, string> {
  if (!lookAlikes) {
    const map = new Map<string, string>();
    for (const [latin, others] of readDataFile('look-alike-letters.tsv'))
      for (const other of listField(others)) map.set(other, latin);
    lookAlikes = map;
  }
  return lookAlikes;
}
/** A run of letters of any script (a word, as the look-alike rule sees it). */
const WORD_RE = /\p{L}+/gu;
/**
 * `folded` with the Greek and Cyrillic look-alikes of Latin letters read as those letters, in
 * words that also have a Latin letter ("tоm" with a Cyrillic о is "tom"); a word in one script
 * is kept as written.
 */
function latinLookAlikes(folded: string): string {
  const map = lookAlikeLetters();
  return folded.replace(WORD_RE, (word) => {
    if (!/[a-z]/.test(word) || !GREEK_OR_CYRILLIC.test(word)) return word;
    let out = '';
    for (const ch of word) out += map.get(ch) ?? ch;
    return out;
  });
}
const APOSTROPHES = /['’`´ʼ]/g;
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'g');

/**
 * Lowercases, folds accents and special letters (`Ø` → `o`, `ß` → `ss`) and Greek or Cyrillic
 * look-alikes inside a Latin word (`latinLookAlikes`); keeps punctuation.
 */
export function foldText(text: string): string {
  // Plain ASCII (most input) needs no decomposition: lowercasing is enough.
  if (ASCII.test(text)) return text.toLowerCase();
  const folded = text
    .normalize('NFKD')
    // Marks, and invisible format characters (zero-width space and joiners, byte-order mark).
    .replace(/[\p{M}\p{Cf}]+/gu, '')
    .toLowerCase()
    .replace(SPECIAL_RE, (ch) => SPECIAL_LETTERS[ch] ?? ch);
  return GREEK_OR_CYRILLIC.test(folded) ? latinLookAlikes(folded) : folded;
}

/**
 * Folded alphanumeric tokens of `text`. Apostrophes join (`o'brien` → `obrien`), `&` becomes
 * the token `and`, every other non-alphanumeric character separates tokens.
 */
export function textTokens(text: string): string[] {
  // Plain ASCII (most input): the same rules in one scan, much cheaper than the Unicode property
  // class and the regular-expression passes (the import runs this several times per entity).
  if (ASCII.test(text)) return asciiTokens(text.toLowerCase());
  // Apostrophes go before folding: NFKD spells the acute accent ´ as a space and a mark.
  return foldText(text.replace(APOSTROPHES, ''))
    .replace(/['’`]/g, '')
    .replace(/&/g, ' and ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token !== '');
}

/**
 * `textTokens` of lowercased ASCII text in one scan: runs of letters, digits and apostrophes are
 * tokens (apostrophes removed), `&` is the token `and`, anything else separates.
 */
function asciiTokens(lower: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  let quoted = false;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (c === 39 || c === 96) {
      // ' and `: inside a word they join its halves (o'brien → obrien).
      if (start < 0) start = i;
      quoted = true;
    } else {
      if (start >= 0) {
        const token = quoted ? lower.slice(start, i).replace(/['`]/g, '') : lower.slice(start, i);
        if (token !== '') tokens.push(token);
        start = -1;
        quoted = false;
      }
      if (c === 38) tokens.push('and');
    }
  }
  return tokens;
}

/**
 * The distinct tokens, sorted: `[...new Set(tokens)].sort()` without the set for the usual one
 * or two tokens (order-free name keys; the import builds several per entity).
 */
export function sortedDistinct(tokens: readonly string[]): string[] {
  if (tokens.length === 1) return [tokens[0]];
  if (tokens.length === 2) {
    const [a, b] = tokens;
    if (a === b) return [a];
    return a < b ? [a, b] : [b, a];
  }
  return [...new Set(tokens)].sort();
}
