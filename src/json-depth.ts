/**
 * Deepest nesting of arrays and objects accepted in a JSON request body. Real bodies nest a few
 * levels (a rule set's nested rules a dozen at most); a 10,000-level body overflowed the stack
 * of whatever walked it next (validation, copying to a thread) and answered 500.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * True when the JSON text nests arrays/objects deeper than `max` levels. One pass over the
 * text, skipping strings; malformed text is left for the parser to report.
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}
