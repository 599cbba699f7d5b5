import type { AnyNode, Document, Element } from 'domhandler';
import { isDocument, isTag, isText } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { Parser } from 'htmlparser2';
import { elementIndex, IndexingDomHandler } from './element-index.ts';

/** A parsed page: the DOM plus the URLs relative references resolve against. */
export interface HtmlPage {
  readonly document: Document;
  /** The page URL (after redirects when it was fetched). */
  readonly url: string;
  /** The URL relative references resolve against: `<base href>` when present, else `url`. */
  readonly baseUrl: string;
}

/**
 * Parses HTML with htmlparser2 (forgiving, fast; entities decoded, names lowercased) and finds
 * the base URL. `pageUrl` may be any string; when it is not an absolute URL, relative
 * references are left as written.
 */
export function parseHtml(html: string, pageUrl: string): HtmlPage {
  const handler = new IndexingDomHandler();
  new Parser(handler, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }).end(html);
  const document = handler.document();
  let baseUrl = pageUrl;
  const base = elementIndex(document)
    .withTag('base')
    .find((el) => el.attribs.href !== undefined);
  if (base) baseUrl = resolveUrl(base.attribs.href, pageUrl) ?? pageUrl;
  return { document, url: pageUrl, baseUrl };
}

/**
 * The absolute form of `href` against `base` (http, https, mailto, tel, data ... as resolved by
 * the WHATWG URL parser). `undefined` for an empty reference or one that cannot be resolved;
 * `javascript:` references are dropped.
 */
export function resolveUrl(href: string | undefined, base: string): string | undefined {
  const trimmed = href?.trim();
  if (!trimmed) return undefined;
  if (/^javascript:/i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed, base).href;
  } catch {
    try {
      return new URL(trimmed).href;
    } catch {
      return undefined;
    }
  }
}

/** Depth-first, document order: the first element satisfying `test`, skipping none. */
export function findFirst(root: AnyNode, test: (el: Element) => boolean): Element | undefined {
  if (isDocument(root)) return elementIndex(root).elements.find(test);
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && node !== root && test(node)) return node;
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return undefined;
}

/** Depth-first, document order: every element satisfying `test` (root excluded). */
export function findAllElements(root: AnyNode, test: (el: Element) => boolean): Element[] {
  if (isDocument(root)) return elementIndex(root).elements.filter(test);
  const found: Element[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && node !== root && test(node)) found.push(node);
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return found;
}

/** Elements whose content is never page text. */
const NON_TEXT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'head',
]);
/** Elements that start a new line in rendered text. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
  'title',
  'option',
  'body',
  'html',
  'center',
]);
const CELL = new Set(['td', 'th']);

/** Options of `textOf`. */
export interface TextOptions {
  /** Nodes whose subtrees are left out (e.g. `exclude` filters, boilerplate). */
  readonly exclude?: ReadonlySet<AnyNode>;
  /** Keep text of `<head>`-like non-text elements? Only `<title>`-style callers need it. */
  readonly includeNonText?: boolean;
}

/**
 * The rendered text of `node`, roughly as a browser's `innerText`: block elements and `<br>`
 * end lines, table cells are separated by spaces, whitespace runs collapse (except inside
 * `<pre>`), lines are trimmed and empty lines dropped. Scripts, styles and other non-text
 * elements are skipped. Returns `''` when there is no text.
 */
export function textOf(node: AnyNode, options: TextOptions = {}): string {
  const text = new RenderedText();
  appendText(node, node, false, options, text);
  return text.toString();
}

function appendText(
  current: AnyNode,
  root: AnyNode,
  inPre: boolean,
  options: TextOptions,
  text: RenderedText,
): void {
  if (options.exclude?.has(current)) return;
  if (isText(current)) {
    if (inPre) text.preformatted(current.data);
    else text.flowing(current.data);
    return;
  }
  if (!isTag(current)) {
    if ('children' in current)
      for (const child of current.children) appendText(child, root, inPre, options, text);
    return;
  }
  const name = current.name;
  if (!options.includeNonText && NON_TEXT.has(name) && current !== root) return;
  if (name === 'br') {
    text.lineBreak();
    return;
  }
  const block = BLOCK.has(name);
  if (block) text.lineBreak();
  else if (CELL.has(name)) text.space();
  const pre = inPre || name === 'pre' || name === 'textarea';
  for (const child of current.children) appendText(child, root, pre, options, text);
  if (block) text.lineBreak();
}

/** Whether collapsing whitespace runs (`/\s+/` → one space) would change a text, or it holds U+200B. */
const IRREGULAR_WHITESPACE = /\s\s|[^\S ]|\u200b/;

/**
 * The pieces of `textOf`'s output before line normalisation. It remembers whether any line can
 * hold a whitespace run or horizontal whitespace other than a single space; when none can (the
 * usual case: flowing text is collapsed as it arrives), lines only need trimming, and the
 * per-line rescan `normalizeLines` does (a regular expression over every character) is skipped.
 */
class RenderedText {
  readonly #parts: string[] = [];
  #endsWithSpace = false;
  #irregular = false;

  /** Text outside `<pre>`: whitespace runs become one space. */
  flowing(data: string): void {
    let piece = data;
    // Testing first is several times cheaper than a replace that rewrites every single space.
    if (IRREGULAR_WHITESPACE.test(data)) {
      piece = data.replace(/\s+/g, ' ');
      // U+200B is not \s, so it survives collapsing; normalizeLines treats it as a space.
      if (piece.includes('\u200b')) this.#irregular = true;
    }
    this.#append(piece);
  }

  /** Text inside `<pre>`, as written. */
  preformatted(data: string): void {
    if (data !== '') this.#irregular = true;
    this.#append(data);
  }

  lineBreak(): void {
    this.#parts.push('\n');
    this.#endsWithSpace = false;
  }

  space(): void {
    this.#append(' ');
  }

  #append(piece: string): void {
    if (piece === '') return;
    if (this.#endsWithSpace && piece.charCodeAt(0) === 32) this.#irregular = true;
    this.#endsWithSpace = piece.charCodeAt(piece.length - 1) === 32;
    this.#parts.push(piece);
  }

  toString(): string {
    return splitLines(this.#parts.join(''), this.#irregular);
  }
}

/** Trims each line, collapses horizontal whitespace runs, drops empty lines. */
export function normalizeLines(text: string): string {
  return splitLines(text, true);
}

/** `normalizeLines`; without `collapse`, for text known to hold no run to collapse. */
function splitLines(text: string, collapse: boolean): string {
  const kept: string[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let line = text.slice(start, end).trim();
    // Text nodes arrive collapsed already; only <pre> content and joins need another pass.
    if (
      collapse &&
      line &&
      (line.includes('  ') || /[\t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]/.test(line))
    ) {
      line = line.replace(/[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+/g, ' ').trim();
    }
    if (line) kept.push(line);
    start = end + 1;
  }
  return kept.join('\n');
}

/** Collapses all whitespace (newlines included) to single spaces and trims. */
export function collapseWhitespace(text: string): string {
  // Most texts hold only single spaces: testing is cheaper than a replace of every one of them.
  return (COLLAPSIBLE_WHITESPACE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

/** Whether collapsing whitespace runs (`/\s+/` → one space) would change a text. */
const COLLAPSIBLE_WHITESPACE = /\s\s|[^\S ]/;

/** The text of `el` on one line (`textOf` with lines joined by spaces). */
export function inlineText(el: AnyNode, options: TextOptions = {}): string {
  return collapseWhitespace(textOf(el, options));
}

/** Text of `el`'s own text-node children only (jsoup's `ownText`), whitespace collapsed. */
export function ownText(el: Element): string {
  let text = '';
  for (const child of el.children) if (isText(child)) text += child.data;
  return collapseWhitespace(text);
}

/** The markup of `el` including itself, as parsed. */
export function outerHtml(el: AnyNode): string {
  return getOuterHTML(el, { decodeEntities: true, encodeEntities: 'utf8' });
}

const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT = new Set(['script', 'style']);

/** Options of `serializeHtml`. */
export interface SerializeOptions {
  /** Nodes left out with their subtrees. */
  readonly exclude?: ReadonlySet<AnyNode>;
  /** When given, only these attributes are kept (others dropped). */
  readonly keepAttributes?: ReadonlySet<string>;
  /** Rewrites an attribute value (e.g. resolve `href`/`src` to absolute URLs). */
  readonly rewriteAttribute?: (name: string, value: string, el: Element) => string | undefined;
  /** Elements left out with their subtrees (besides `exclude`). */
  readonly dropElement?: (el: Element) => boolean;
  /** Elements replaced by their children (the tag itself is not written). */
  readonly unwrapElement?: (el: Element) => boolean;
}

/** The markup of `node`'s children (or of `node` itself with `self`), honouring the options. */
export function serializeHtml(node: AnyNode, options: SerializeOptions = {}, self = false): string {
  const out: string[] = [];
  const write = (current: AnyNode): void => {
    if (options.exclude?.has(current)) return;
    if (isText(current)) {
      const parent = current.parent;
      out.push(
        parent && isTag(parent) && RAW_TEXT.has(parent.name) ? current.data : escapeHtml(current.data),
      );
      return;
    }
    if (!isTag(current)) return;
    if (options.dropElement?.(current)) return;
    if (options.unwrapElement?.(current)) {
      for (const child of current.children) write(child);
      return;
    }
    out.push('<', current.name);
    for (const [name, raw] of Object.entries(current.attribs)) {
      if (options.keepAttributes && !options.keepAttributes.has(name)) continue;
      const value = options.rewriteAttribute ? options.rewriteAttribute(name, raw, current) : raw;
      if (value === undefined) continue;
      out.push(' ', name, '="', escapeHtml(value), '"');
    }
    out.push('>');
    if (VOID_ELEMENTS.has(current.name)) return;
    for (const child of current.children) write(child);
    out.push('</', current.name, '>');
  };
  if (self) write(node);
  else if ('children' in node) for (const child of node.children) write(child);
  return out.join('');
}

/** Escapes text for inclusion in HTML text or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;',
  );
}

/** The `lang` of the `<html>` element as a primary language subtag (`en`), when declared. */
export function documentLanguage(page: HtmlPage): string | undefined {
  const html = findFirst(page.document, (el) => el.name === 'html');
  const lang = html?.attribs.lang ?? html?.attribs['xml:lang'];
  const primary = lang?.trim().split(/[-_]/)[0]?.toLowerCase();
  return primary && /^[a-z]{2,3}$/.test(primary) ? primary : undefined;
}
