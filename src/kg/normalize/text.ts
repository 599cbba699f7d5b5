/**
 * Text folding shared by every normaliser: Unicode compatibility decomposition, accents and
 * special letters folded to ASCII, lowercased, and split into alphanumeric tokens.
 */

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
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'g');

/** Lowercases, folds accents and special letters (`Ø` → `o`, `ß` → `ss`); keeps punctuation. */
export function foldText(text: string): string {
  // Plain ASCII (most input) needs no decomposition: lowercasing is enough.
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(SPECIAL_RE, (ch) => SPECIAL_LETTERS[ch] ?? ch);
}

/**
 * Folded alphanumeric tokens of `text`. Apostrophes join (`o'brien` → `obrien`), `&` becomes
 * the token `and`, every other non-alphanumeric character separates tokens.
 */
export function textTokens(text: string): string[] {
  // Plain ASCII (most input): the same rules with ASCII classes, which are much cheaper than the
  // Unicode property class (the import runs this several times per entity).
  if (ASCII.test(text)) {
    return text
      .toLowerCase()
      .replace(/['`]/g, '')
      .replace(/&/g, ' and ')
      .split(/[^a-z0-9]+/)
      .filter((token) => token !== '');
  }
  return foldText(text)
    .replace(/['’`´]/g, '')
    .replace(/&/g, ' and ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token !== '');
}
