import type { Element } from 'domhandler';
import { isText } from 'domhandler';
import { elementIndex } from './element-index.ts';
import { collapseWhitespace, type HtmlPage, inlineText, resolveUrl, textOf } from './html-document.ts';

/**
 * A schema.org node from JSON-LD or microdata, in one shape: `@type` is a list of bare type
 * names (`Organization`, not `https://schema.org/Organization`), property values are strings,
 * nested nodes or arrays of those. `source` says where it came from.
 */
export interface SchemaNode {
  readonly '@type': readonly string[];
  readonly '@id'?: string;
  readonly source: 'json-ld' | 'microdata';
  /** True for a node found at the top level of a document (not a property value of another). */
  readonly topLevel: boolean;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** Everything machine-readable a page declares about itself. */
export interface StructuredData {
  /** Every schema.org node (top-level and nested), JSON-LD first, in document order. */
  readonly nodes: readonly SchemaNode[];
  /** `<meta property|name="...">` contents keyed by lowercased property/name, in order. */
  readonly meta: ReadonlyMap<string, readonly string[]>;
  /** `<link rel="...">` hrefs (absolute) keyed by each lowercased rel token. */
  readonly links: ReadonlyMap<string, readonly string[]>;
  /** The text of `<title>`. */
  readonly title: string | undefined;
}

const SCHEMA_PREFIX = /^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i;

/** Bare schema.org type names of a raw `@type` / `itemtype` value. */
export function schemaTypes(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/\s+/) : [];
  return values
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((v) =>
      v
        .trim()
        .replace(SCHEMA_PREFIX, '')
        .replace(/^.*[/#]/, ''),
    );
}

/**
 * Parses the JSON of a `<script type="application/ld+json">` leniently: HTML comments and
 * CDATA wrappers are stripped, and raw control characters inside strings (a frequent authoring
 * error that strict JSON rejects) are replaced by spaces. `undefined` when it is not JSON.
 */
export function parseJsonLd(raw: string): unknown {
  const cleaned = raw
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\s*\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>\s*$/g, '')
    .trim();
  if (!cleaned) return undefined;
  try {
    return JSON.parse(cleaned);
  } catch {
    try {
      // Raw newlines/tabs in string literals, and trailing commas before } or ].
      return JSON.parse(cleaned.replace(/[\u0000-\u001f]+/g, ' ').replace(/,\s*([}\]])/g, '$1'));
    } catch {
      return undefined;
    }
  }
}

function collectJsonLd(value: unknown, topLevel: boolean, into: SchemaNode[], depth = 0): void {
  if (depth > 12 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectJsonLd(item, topLevel, into, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  if (Array.isArray(object['@graph'])) collectJsonLd(object['@graph'], topLevel, into, depth + 1);
  const types = schemaTypes(object['@type']);
  if (types.length > 0) {
    const properties: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(object)) {
      if (key.startsWith('@')) continue;
      properties[key.replace(SCHEMA_PREFIX, '')] = v;
    }
    into.push({
      '@type': types,
      '@id': typeof object['@id'] === 'string' ? object['@id'] : undefined,
      source: 'json-ld',
      topLevel,
      properties,
    });
  }
  for (const [key, v] of Object.entries(object)) {
    if (key !== '@graph' && v !== null && typeof v === 'object') collectJsonLd(v, false, into, depth + 1);
  }
}

/** The value of one microdata property element (WHATWG HTML §5.2.4). */
function microdataValue(el: Element, page: HtmlPage): unknown {
  if (el.attribs.itemscope !== undefined) return microdataItem(el, page, false);
  switch (el.name) {
    case 'meta':
      return el.attribs.content ?? '';
    case 'audio':
    case 'embed':
    case 'iframe':
    case 'img':
    case 'source':
    case 'track':
    case 'video':
      return resolveUrl(el.attribs.src, page.baseUrl) ?? '';
    case 'a':
    case 'area':
    case 'link':
      return resolveUrl(el.attribs.href, page.baseUrl) ?? '';
    case 'object':
      return resolveUrl(el.attribs.data, page.baseUrl) ?? '';
    case 'data':
    case 'meter':
      return el.attribs.value ?? '';
    case 'time':
      return el.attribs.datetime ?? inlineText(el);
    default:
      // `content` is widely used on non-meta elements (e.g. <span itemprop=price content=..>).
      return el.attribs.content ?? inlineText(el);
  }
}

function microdataItem(
  scope: Element,
  page: HtmlPage,
  topLevel: boolean,
): SchemaNode & { nested: SchemaNode[] } {
  const properties: Record<string, unknown> = {};
  const nested: SchemaNode[] = [];
  const visit = (el: Element): void => {
    for (const child of el.children) {
      if (child.type !== 'tag' && child.type !== 'script' && child.type !== 'style') continue;
      const element = child as Element;
      const itemprop = element.attribs.itemprop;
      if (itemprop !== undefined) {
        const value = microdataValue(element, page);
        if (value && typeof value === 'object' && 'properties' in value) {
          const item = value as SchemaNode & { nested: SchemaNode[] };
          nested.push(item, ...item.nested);
        }
        for (const name of itemprop.trim().split(/\s+/)) {
          if (!name) continue;
          const key = name.replace(SCHEMA_PREFIX, '');
          const existing = properties[key];
          if (existing === undefined) properties[key] = value;
          else if (Array.isArray(existing)) existing.push(value);
          else properties[key] = [existing, value];
        }
      }
      // A nested itemscope owns its own properties.
      if (element.attribs.itemscope === undefined) visit(element);
    }
  };
  visit(scope);
  return {
    '@type': schemaTypes(scope.attribs.itemtype ?? ''),
    '@id': scope.attribs.itemid,
    source: 'microdata',
    topLevel,
    properties,
    nested,
  };
}

/** Elements that declare something about the page whatever their attributes. */
const DECLARING_TAGS = new Set(['script', 'meta', 'link', 'title']);

/** Reads JSON-LD, microdata, `<meta>` and `<link>` declarations of a page. */
export function readStructuredData(page: HtmlPage): StructuredData {
  const nodes: SchemaNode[] = [];
  const meta = new Map<string, string[]>();
  const links = new Map<string, string[]>();
  let title: string | undefined;
  const microdataScopes: Element[] = [];
  for (const el of elementIndex(page.document).elements) {
    if (!DECLARING_TAGS.has(el.name) && el.attribs.itemscope === undefined) continue;
    if (el.name === 'script') {
      if ((el.attribs.type ?? '').trim().toLowerCase() !== 'application/ld+json') continue;
      const raw = el.children.map((child) => (isText(child) ? child.data : '')).join('');
      collectJsonLd(parseJsonLd(raw), true, nodes);
    } else if (el.name === 'meta') {
      const key = (el.attribs.property ?? el.attribs.name ?? el.attribs.itemprop)?.trim().toLowerCase();
      const content = el.attribs.content;
      if (key && content !== undefined && el.attribs.itemprop === undefined) {
        const list = meta.get(key) ?? [];
        list.push(collapseWhitespace(content));
        meta.set(key, list);
      }
    } else if (el.name === 'link') {
      const href = resolveUrl(el.attribs.href, page.baseUrl);
      if (!href) continue;
      for (const rel of (el.attribs.rel ?? '').toLowerCase().split(/\s+/)) {
        if (!rel) continue;
        const list = links.get(rel) ?? [];
        list.push(href);
        links.set(rel, list);
      }
    } else if (el.name === 'title') {
      title ??= collapseWhitespace(textOf(el, { includeNonText: true })) || undefined;
    }
    if (el.attribs.itemscope !== undefined && el.attribs.itemprop === undefined) microdataScopes.push(el);
  }
  for (const scope of microdataScopes) {
    const item = microdataItem(scope, page, true);
    const { nested, ...node } = item;
    nodes.push(node, ...nested);
  }
  return { nodes, meta, links, title };
}

/** The first `<meta>` content for any of `keys` (checked in order), when non-empty. */
export function metaContent(data: StructuredData, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = data.meta.get(key)?.find((v) => v !== '');
    if (value) return value;
  }
  return undefined;
}

/** Whether a node has one of `types` (bare names). */
export function hasType(node: SchemaNode, types: { has(type: string): boolean }): boolean {
  return node['@type'].some((t) => types.has(t));
}

/** Resolves a JSON-LD `{"@id": ...}` reference to the node declaring that id, when there is one. */
export function dereference(value: unknown, data: StructuredData): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const id = object['@id'];
    if (typeof id === 'string' && Object.keys(object).length === 1) {
      return data.nodes.find((n) => n['@id'] === id) ?? value;
    }
  }
  return value;
}

/** The property values as a list (a single value becomes a one-item list; absent → empty). */
export function values(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The text of a property value: a string as is, a number as digits, a node by its `name`
 * (or `@value`, `value`, `url`), the first usable item of a list. Whitespace collapsed;
 * `undefined` when nothing usable.
 */
export function textValue(value: unknown): string | undefined {
  if (typeof value === 'string') return collapseWhitespace(value) || undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = textValue(item);
      if (text) return text;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    const object = ('properties' in value ? (value as SchemaNode).properties : value) as Record<
      string,
      unknown
    >;
    return textValue(object.name) ?? textValue(object['@value']) ?? textValue(object.value) ?? undefined;
  }
  return undefined;
}

/** Property bag of a node or plain JSON-LD object. */
export function propertiesOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  if ('properties' in value && '@type' in value) return (value as SchemaNode).properties;
  return value as Record<string, unknown>;
}

/** A URL-valued property (string, or object with `url`/`contentUrl`/`@id`), resolved. */
export function urlValue(value: unknown, base: string): string | undefined {
  for (const item of values(value)) {
    if (typeof item === 'string') {
      const url = resolveUrl(item, base);
      if (url) return url;
      continue;
    }
    const props = propertiesOf(item);
    if (!props) continue;
    const raw = props.url ?? props.contentUrl ?? (props as Record<string, unknown>)['@id'];
    const url = typeof raw === 'string' ? resolveUrl(raw, base) : urlValue(raw, base);
    if (url) return url;
  }
  return undefined;
}

/** The types of a JSON-LD object value or schema node. */
export function typesOfValue(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  if ('properties' in value && '@type' in value) return [...(value as SchemaNode)['@type']];
  return schemaTypes((value as Record<string, unknown>)['@type']);
}
