/**
 * Splits `text` on `separator` where it appears at the top level: not inside brackets,
 * parentheses or a quoted string. JSONPath filters may legitimately contain `;` and `,`
 * (`$.a[?@.b == 'x;y']`, `$.a[0,1]`), so a plain `split` would cut them apart.
 * Parts are returned untrimmed and may be empty.
 */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== undefined) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '[' || char === '(') depth++;
    else if ((char === ']' || char === ')') && depth > 0) depth--;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
