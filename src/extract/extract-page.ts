/**
 * The pure core of extraction: a page (its text, or its bytes and charset) plus the rule sets
 * that apply in, the API response (or the stored documents of a crawled page) out. It runs in
 * the extraction threads (`extraction-threads.ts`); nothing here does I/O.
 */
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import { BUILT_IN_APIS, type BuiltInApi, isBuiltInApi, runBuiltInApi } from './built-in-apis.ts';
import { decodeHtml, decodeText } from './charset.ts';
import { documentLanguage } from './html-document.ts';
import { PageContext } from './page-context.ts';
import type { PageType } from './page-type.ts';
import { applyRulesets, removePrefiltered } from './rule-engine.ts';
import { type CompiledRuleset, compileRuleset, type Ruleset } from './ruleset.ts';

/**
 * One extracted object. `type` is `article`, `product`, `organization`, `person` (built-in
 * extractors, lowercase as in the reference API) or the name of a custom API; `pageUrl` is the
 * requested URL and `resolvedPageUrl` the final one when redirects led elsewhere. The other
 * fields depend on the type (see the extractors) and on Custom API rules.
 */
export interface ExtractedObject {
  readonly type: string;
  readonly pageUrl: string;
  readonly resolvedPageUrl?: string;
  readonly [field: string]: unknown;
}

/** The response of an extraction API (docs/api.md#extraction-api). */
export interface ExtractionResponse {
  readonly request: { readonly pageUrl: string; readonly api: string; readonly version: 3 };
  readonly objects: readonly ExtractedObject[];
  /** `analyze` only: the detected page type (`other` when no extractor fits). */
  readonly type?: PageType;
  /** `analyze` only: the page's language (ISO 639-1), when declared. */
  readonly humanLanguage?: string;
}

/** The page content of an extraction: decoded text, or bytes decoded here. */
export type PageContent =
  | { readonly text: string }
  /** `charset`: the WHATWG name the fetcher detected; else sniffed from `contentType` and bytes. */
  | { readonly body: Uint8Array; readonly charset?: string; readonly contentType?: string };

/** Everything one extraction needs; plain data, so it can cross to a thread. */
export interface PageInput {
  /** API name without `/api/` (built in or custom). */
  readonly api: string;
  /** The requested URL (`pageUrl` of the objects). */
  readonly url: string;
  /** The URL of the final response: links resolve against it. */
  readonly finalUrl: string;
  readonly content: PageContent;
  /** Rule sets whose urlPattern matched, in creation order (any API; filtered here). */
  readonly rulesets: readonly Ruleset[];
}

/** The name under which rule sets apply to every API (the reference service's `all`). */
export const ALL_APIS = 'all';

/**
 * Compiled rule sets by their JSON; a thread sees the same few rule sets page after page. Bounded
 * by memory (16 MiB per thread), the compiled form counted as four times its JSON.
 */
const compiledCache = new ByteBoundedCache<string, CompiledRuleset>(
  16 * 1024 * 1024,
  (_, key) => 4 * key.length,
);

function compiled(definition: Ruleset): CompiledRuleset {
  const key = JSON.stringify(definition);
  let ruleset = compiledCache.get(key);
  if (!ruleset) {
    ruleset = compileRuleset(definition);
    compiledCache.set(key, ruleset);
  }
  return ruleset;
}

function pageText(content: PageContent): string {
  if ('text' in content) return content.text;
  const bytes = Buffer.from(content.body.buffer, content.body.byteOffset, content.body.byteLength);
  return content.charset ? decodeText(bytes, content.charset) : decodeHtml(bytes, content.contentType).text;
}

/** Runs the API on the page: built-in fields, then the rule sets of this API, `all` and the detected type. */
export function extractPage(input: PageInput): ExtractionResponse {
  const { api: name, url, finalUrl } = input;
  const context = PageContext.fromHtml(pageText(input.content), finalUrl);
  const rulesets = input.rulesets.map(compiled);
  removePrefiltered(context.page.document, rulesets);
  let found: { type: string; fields: Record<string, unknown> }[] = [];
  let detected: PageType | undefined;
  if (isBuiltInApi(name)) {
    const result = runBuiltInApi(name as BuiltInApi, context);
    detected = result.type;
    found = result.objects;
  }
  const wanted = new Set<string>([
    name,
    ALL_APIS,
    ...(detected && detected !== 'other' ? [detected] : []),
    ...found.map((object) => object.type),
  ]);
  const applied = rulesets.filter((ruleset) => wanted.has(ruleset.apiName));
  const custom = applied.length > 0 ? applyRulesets(applied, context.page.document, context.baseUrl) : {};
  // Custom API rules add to the page's object (the first), or make one of the API's type.
  if (found.length === 0 && Object.keys(custom).length > 0) found = [{ type: detected ?? name, fields: {} }];
  const objects: ExtractedObject[] = found.map((object, index) => ({
    type: object.type,
    pageUrl: url,
    ...(finalUrl !== url ? { resolvedPageUrl: finalUrl } : {}),
    ...object.fields,
    ...(index === 0 ? custom : {}),
  }));
  const response: ExtractionResponse = { request: { pageUrl: url, api: name, version: 3 }, objects };
  if (name !== 'analyze') return response;
  const language = documentLanguage(context.page);
  return { ...response, type: detected ?? 'other', ...(language ? { humanLanguage: language } : {}) };
}

/** The API names whose rule sets an extraction with `api` may apply (analyze: every type's). */
export function candidateApis(api: string): string[] {
  return api === 'analyze' ? [...BUILT_IN_APIS] : [api];
}

/** The objects of a crawled page as stored (`crawl/`'s documents), with the type of each. */
export interface StoredDocuments {
  /**
   * Each object serialised as JSON: `type` (the API name when the extractor gives none),
   * `pageUrl` (the submitted URL), `resolvedPageUrl` (the final URL, when redirected),
   * `timestamp` (extraction time, epoch ms), then the extracted fields.
   */
  readonly documents: readonly string[];
  readonly types: readonly string[];
}

/** Serialises `objects` as `StoredDocuments` for the page at `url` (final URL `finalUrl`). */
export function storedDocuments(
  objects: readonly ExtractedObject[],
  page: { readonly api: string; readonly url: string; readonly finalUrl: string; readonly timestamp: number },
): StoredDocuments {
  const types: string[] = [];
  const documents = objects.map((object) => {
    const { type, pageUrl: _pageUrl, resolvedPageUrl: _resolved, timestamp: _timestamp, ...fields } = object;
    const kind = typeof type === 'string' && type !== '' ? type : page.api;
    types.push(kind);
    return JSON.stringify({
      type: kind,
      pageUrl: page.url,
      ...(page.finalUrl !== page.url ? { resolvedPageUrl: page.finalUrl } : {}),
      timestamp: page.timestamp,
      ...fields,
    });
  });
  return { documents, types };
}
