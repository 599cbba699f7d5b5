/**
 * The selector dialect of Custom API rules. Rule sets written for the reference service use
 * jsoup selectors: CSS plus a few jsoup-only forms. Those forms are translated into a private
 * pseudo-class that css-select evaluates; everything else is standard CSS as css-select
 * understands it. A construct that is neither is rejected with a `SelectorError` naming it,
 * never silently matched against nothing.
 *
 * jsoup forms supported (jsoup semantics):
 * - `:contains(text)`, `:containsOwn(text)`: the element's (own) normalised text contains
 *   `text`, case-insensitively; `:containsWholeText(text)`, `:containsWholeOwnText(text)`:
 *   the raw (own) text contains it, case-sensitively; `:containsData(data)`: the contents of a
 *   `<script>`/`<style>` contain it.
 * - `:matches(regex)`, `:matchesOwn(regex)`, `:matchesWholeText(regex)`,
 *   `:matchesWholeOwnText(regex)`: the same texts are searched with a regular expression.
 * - `:eq(n)`, `:lt(n)`, `:gt(n)`: the element's index among its element siblings (0-based) is
 *   n, below n, above n.
 * - `[attr~=regex]`: the attribute value is searched with a regular expression (in CSS `~=` is
 *   a word match; in jsoup it is a regex).
 * - `[^prefix]`: the element has an attribute whose name starts with `prefix`.
 * - Attribute values may be unquoted and contain spaces (`[title=Hello World]`); value
 *   comparisons are case-insensitive, as in jsoup.
 *
 * Regular expressions run on the linear-time engine of `user-pattern/` (RE2 syntax, Java's
 * leading inline flags such as `(?i)`, `\A`, `\z`): no pattern can make matching take
 * exponential time. One it cannot run is a `SelectorError` naming it. `:matchText` (which
 * creates pseudo-elements) is not supported.
 */
import { compile, is, selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import { isTag, isText } from 'domhandler';
import { collapseWhitespace, inlineText, ownText } from './html-document.ts';
import { compileUserPattern, type UserPattern } from '../user-pattern/index.ts';

/**
 * An invalid or unsupported selector; `message` names the construct. Internal, not in the error
 * registry: rule-set parsing (`ruleset.ts` selectorAt) answers it as `InvalidParameterError`
 * naming the rule's path.
 */
export class SelectorError extends Error {
  readonly selector: string;
  constructor(selector: string, message: string) {
    super(message);
    this.name = 'SelectorError';
    this.selector = selector;
  }
}

/** A compiled selector: run it against a document or below elements. */
export interface CompiledSelector {
  /** The selector as written. */
  readonly source: string;
  /** The CSS handed to css-select (jsoup forms replaced by private pseudo-classes). */
  readonly css: string;
  /** Matching elements below `roots` (the roots themselves excluded), in document order. */
  selectAll(roots: AnyNode | readonly AnyNode[]): Element[];
  /** Whether `el` itself matches. */
  matches(el: Element): boolean;
  /**
   * The tag name every matching element has (`p` for `.body > p:first-child`), when the selector
   * names one for its subject; lets callers test only elements of that tag.
   */
  readonly subjectTag: string | undefined;
}

/**
 * The tag name of the subject (rightmost compound) of a single selector, lowercased;
 * `undefined` for selector lists, universal or tag-less subjects, namespaces and escapes.
 */
export function subjectTag(css: string): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  let compoundStart = 0;
  for (let i = 0; i < css.length; i++) {
    const c = css[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (depth === 0) {
      if (c === ',') return undefined;
      if (c === ' ' || c === '\t' || c === '\n' || c === '>' || c === '+' || c === '~') compoundStart = i + 1;
    }
  }
  const match = /^([a-zA-Z][a-zA-Z0-9-]*)(?![\w|\\-])/.exec(css.slice(compoundStart));
  return match ? match[1].toLowerCase() : undefined;
}

type Test = (el: Element) => boolean;

/** Text of all descendant text nodes, whitespace kept (jsoup's `wholeText`), scripts excluded. */
function wholeText(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!('children' in node)) return '';
  if (isTag(node) && (node.name === 'script' || node.name === 'style')) return '';
  let text = '';
  for (const child of node.children) text += wholeText(child);
  return text;
}

function wholeOwnText(el: Element): string {
  let text = '';
  for (const child of el.children) if (isText(child)) text += child.data;
  return text;
}

/** Script/style/comment contents (jsoup's `data()`). */
function dataOf(el: Element): string {
  let data = '';
  for (const child of el.children) {
    if (child.type === 'comment' || ((el.name === 'script' || el.name === 'style') && isText(child))) {
      data += (child as { data: string }).data;
    }
  }
  return data;
}

const TEXT_PSEUDOS: Record<string, (el: Element) => string> = {
  contains: (el) => inlineText(el),
  containsown: (el) => ownText(el),
  containswholetext: wholeText,
  containswholeowntext: wholeOwnText,
  containsdata: dataOf,
  matches: (el) => inlineText(el),
  matchesown: (el) => ownText(el),
  matcheswholetext: wholeText,
  matcheswholeowntext: wholeOwnText,
};

/** Element siblings before `el` (the count css-select's :nth-child uses), counted up to `limit`. */
function elementsBefore(el: Element, limit: number): number {
  let count = 0;
  for (let node = el.prev; node && count < limit; node = node.prev) if (isTag(node)) count++;
  return count;
}

/** Unescapes CSS/jsoup backslash escapes in a pseudo argument (`\)` → `)`). */
function unescapeArgument(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

function stripQuotes(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length >= 2 && (trimmed[0] === '"' || trimmed[0] === "'") && trimmed.at(-1) === trimmed[0]) {
    return trimmed.slice(1, -1);
  }
  return trimmed;
}

/** Index of the bracket closing the one at `open` (quotes and backslash escapes respected). */
function closingIndex(text: string, open: number, selector: string): number {
  const opener = text[open];
  const closer = opener === '(' ? ')' : ']';
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === opener) depth++;
    else if (c === closer && --depth === 0) return i;
  }
  throw new SelectorError(selector, `Unbalanced "${opener}" in selector "${selector}"`);
}

function quoteValue(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

class Translator {
  readonly tests: Test[] = [];
  readonly #selector: string;

  constructor(selector: string) {
    this.#selector = selector;
  }

  #register(test: Test): string {
    this.tests.push(test);
    return `:quarry-jsoup(${this.tests.length - 1})`;
  }

  translate(text: string): string {
    let out = '';
    for (let i = 0; i < text.length; ) {
      const c = text[i];
      if (c === '\\') {
        out += text.slice(i, i + 2);
        i += 2;
      } else if (c === '"' || c === "'") {
        const end = text.indexOf(c, i + 1);
        if (end < 0)
          throw new SelectorError(this.#selector, `Unterminated string in selector "${this.#selector}"`);
        out += text.slice(i, end + 1);
        i = end + 1;
      } else if (c === '[') {
        const end = closingIndex(text, i, this.#selector);
        out += this.#attribute(text.slice(i + 1, end));
        i = end + 1;
      } else if (c === ':' && text[i + 1] !== ':') {
        const match = /^:([a-zA-Z][\w-]*)/.exec(text.slice(i));
        if (!match) {
          out += c;
          i++;
          continue;
        }
        const name = match[1];
        let next = i + match[0].length;
        if (text[next] === '(') {
          const end = closingIndex(text, next, this.#selector);
          out += this.#pseudo(name, text.slice(next + 1, end));
          next = end + 1;
        } else {
          if (name.toLowerCase() === 'matchtext') {
            throw new SelectorError(
              this.#selector,
              `Unsupported jsoup construct ":matchText" in selector "${this.#selector}"`,
            );
          }
          out += match[0];
        }
        i = next;
      } else {
        out += c;
        i++;
      }
    }
    return out;
  }

  #pseudo(name: string, argument: string): string {
    const lower = name.toLowerCase();
    if (lower === 'has' || lower === 'not' || lower === 'is' || lower === 'where') {
      return `:${lower}(${this.translate(argument)})`;
    }
    const textOf = TEXT_PSEUDOS[lower];
    if (textOf && lower.startsWith('contains')) {
      const needle = stripQuotes(unescapeArgument(argument));
      if (!needle)
        throw new SelectorError(this.#selector, `:${name}() needs a text argument in "${this.#selector}"`);
      if (lower === 'contains' || lower === 'containsown') {
        const lowered = collapseWhitespace(needle).toLowerCase();
        return this.#register((el) => textOf(el).toLowerCase().includes(lowered));
      }
      return this.#register((el) => textOf(el).includes(needle));
    }
    if (textOf) {
      const regex = this.#regex(argument, name);
      return this.#register((el) => regex.test(textOf(el)));
    }
    if (lower === 'eq' || lower === 'lt' || lower === 'gt') {
      const n = Number(argument.trim());
      if (!Number.isInteger(n) || n < 0) {
        throw new SelectorError(
          this.#selector,
          `:${name}() needs a non-negative integer, got "${argument}" in "${this.#selector}"`,
        );
      }
      // jsoup's index among element siblings (0-based), as :nth-child(n + 1) computes it, but
      // counting back only as far as the answer needs: css-select counts from the first sibling,
      // which on a 100-paragraph article is quadratic for "p:eq(0)".
      if (lower === 'eq') return this.#register((el) => elementsBefore(el, n + 1) === n);
      if (lower === 'lt') return n === 0 ? ':not(*)' : this.#register((el) => elementsBefore(el, n) < n);
      return this.#register((el) => elementsBefore(el, n + 1) > n);
    }
    return `:${name}(${argument})`;
  }

  #regex(argument: string, where: string): UserPattern {
    const pattern = argument.trim();
    if (!pattern)
      throw new SelectorError(
        this.#selector,
        `:${where}() needs a regular expression in "${this.#selector}"`,
      );
    try {
      return compileUserPattern(pattern);
    } catch (error) {
      throw new SelectorError(
        this.#selector,
        `${(error as Error).message} in :${where}() of selector "${this.#selector}"`,
      );
    }
  }

  #attribute(inner: string): string {
    const body = inner.trim();
    if (body.startsWith('^')) {
      const prefix = body.slice(1).trim().toLowerCase();
      if (!prefix)
        throw new SelectorError(
          this.#selector,
          `Empty attribute prefix "[^]" in selector "${this.#selector}"`,
        );
      return this.#register((el) => Object.keys(el.attribs).some((key) => key.startsWith(prefix)));
    }
    const match = /^([^\s~|^$*!=]+)\s*(~=|\|=|\^=|\$=|\*=|!=|=)?\s*([\s\S]*)$/.exec(body);
    if (!match)
      throw new SelectorError(
        this.#selector,
        `Invalid attribute selector "[${inner}]" in "${this.#selector}"`,
      );
    const [, name, operator, rawValue] = match;
    if (!operator) {
      if (rawValue.trim()) {
        throw new SelectorError(
          this.#selector,
          `Invalid attribute selector "[${inner}]" in "${this.#selector}"`,
        );
      }
      return `[${name}]`;
    }
    if (operator === '~=') {
      const attribute = name.toLowerCase();
      const regex = this.#regex(stripQuotes(rawValue), `[${name}~=...]`);
      return this.#register((el) => el.attribs[attribute] !== undefined && regex.test(el.attribs[attribute]));
    }
    // An explicit CSS case flag ("v" i / "v" s) is kept as written.
    const flagged = /^(["'])(?:\\.|(?!\1).)*\1\s+[iIsS]$/.test(rawValue.trim());
    if (flagged) return `[${name}${operator}${rawValue.trim()}]`;
    // jsoup compares attribute values case-insensitively and allows unquoted spaces.
    return `[${name}${operator}${quoteValue(stripQuotes(unescapeArgument(rawValue)))} i]`;
  }
}

/**
 * Compiles a rule selector (CSS with the jsoup forms above). Throws `SelectorError` naming the
 * offending construct when the selector is invalid or uses an unsupported construct.
 */
export function compileSelector(selector: string): CompiledSelector {
  if (typeof selector !== 'string' || selector.trim() === '') {
    throw new SelectorError(String(selector), 'Selector is empty');
  }
  const translator = new Translator(selector);
  const css = translator.translate(selector.trim());
  const tests = translator.tests;
  let query: ReturnType<typeof compile<AnyNode, Element>>;
  try {
    query = compile<AnyNode, Element>(css, {
      pseudos: { 'quarry-jsoup': (el: Element, index?: string | null) => tests[Number(index)](el) },
    });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown pseudo-class :([\w-]+)/.exec(message);
    if (unknown) {
      throw new SelectorError(selector, `Unsupported selector construct ":${unknown[1]}" in "${selector}"`);
    }
    throw new SelectorError(selector, `Invalid selector "${selector}": ${message}`);
  }
  return {
    source: selector,
    css,
    selectAll: (roots) => selectAll<AnyNode, Element>(query, roots as AnyNode | AnyNode[]),
    matches: (el) => is<AnyNode, Element>(el, query),
    subjectTag: subjectTag(css),
  };
}
