import { FetchError, InvalidApiError, InvalidParameterError } from '../errors.ts';
import {
  BUILT_IN_APIS,
  type BuiltInApi,
  isBuiltInApi,
  type ObjectType,
  runBuiltInApi,
} from './built-in-apis.ts';
import { decodeHtml } from './charset.ts';
import { ALL_APIS, type CustomApiService } from './custom-api-service.ts';
import { ensureSuccess, type Fetcher } from './fetcher.ts';
import { documentLanguage } from './html-document.ts';
import { PageContext } from './page-context.ts';
import type { PageType } from './page-type.ts';
import { applyRulesets, removePrefiltered } from './rule-engine.ts';
import { apiNameOf, type CompiledRuleset, isForwardableHeader, matchesUrl, parseRuleset } from './ruleset.ts';

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

/** An extraction to perform. */
export interface ExtractRequest {
  /** Owner of the Custom API rule sets to apply. */
  readonly tokenId: string;
  /** `article`, `/api/article`, or a custom API name. */
  readonly api: string;
  /** The page URL: fetched unless `html` is given; always used to match rules and resolve links. */
  readonly url: string;
  /** The page itself (nothing is fetched). A Buffer is decoded like a fetched body. */
  readonly html?: string | Buffer;
  /** Content-Type of a Buffer `html` (for its charset). */
  readonly contentType?: string;
  /** Headers to send when fetching (they win over rule sets' `xForwardHeaders`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fetch time cap in ms (never above the fetcher's). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** A rule set preview: the extraction as it would be with this rule set, nothing saved. */
export interface PreviewRequest {
  /** The rule set body as it would be posted to `/v3/custom`. */
  readonly ruleset: unknown;
  /** Page URL to use instead of the rule set's `testUrl`. */
  readonly url?: string;
  /** The page itself, instead of fetching the URL. */
  readonly html?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type PreviewResponse = ExtractionResponse & {
  /** Whether the rule set's `urlPattern` matches the page URL (rules run either way). */
  readonly urlPatternMatches: boolean;
};

/** Content types parsed as HTML; others are refused as "not HTML". */
const HTML_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/xml',
  'application/xml',
]);
/** Forward headers that only a JavaScript renderer could use. */
const RENDERER_HEADERS = new Set(['x-evaluate']);

function checkPageUrl(url: unknown, parameter = 'url'): string {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new InvalidParameterError(parameter, `Invalid parameter '${parameter}': is required`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new InvalidParameterError(
      parameter,
      `Invalid parameter '${parameter}': "${url}" is not an absolute URL`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidParameterError(
      parameter,
      `Invalid parameter '${parameter}': only http and https URLs can be extracted`,
    );
  }
  return parsed.href;
}

/** Headers of matching rule sets (an array value: one picked at random), then the caller's. */
function forwardHeaders(
  rulesets: readonly CompiledRuleset[],
  caller: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const ruleset of rulesets) {
    for (const [name, value] of Object.entries(ruleset.definition.xForwardHeaders ?? {})) {
      if (RENDERER_HEADERS.has(name.toLowerCase())) continue;
      headers[name.toLowerCase()] = Array.isArray(value)
        ? (value as string[])[Math.floor(Math.random() * value.length)]
        : (value as string);
    }
  }
  for (const [name, value] of Object.entries(caller ?? {})) {
    if (!RENDERER_HEADERS.has(name.toLowerCase()) && isForwardableHeader(name))
      headers[name.toLowerCase()] = value;
  }
  return headers;
}

interface LoadedPage {
  readonly text: string;
  readonly finalUrl: string;
}

/**
 * Extraction: fetch (or take) a page, run a built-in extractor, apply the token's Custom API
 * rule sets. Built-in APIs: `analyze` (detects the page type), `article`, `product`,
 * `organization`, `person`. A name that is neither built in nor defined by the token's rule
 * sets is `InvalidApiError` (457). Fetch problems are `FetchError`s; nothing here throws
 * anything else for bad input or unreachable pages.
 */
export class ExtractionService {
  readonly #fetcher: Fetcher;
  readonly #customApis: CustomApiService;

  constructor(deps: { fetcher: Fetcher; customApis: CustomApiService }) {
    this.#fetcher = deps.fetcher;
    this.#customApis = deps.customApis;
  }

  /** Throws `InvalidApiError` unless `api` is built in or defined by the token's rule sets. */
  async checkApi(tokenId: string, api: string): Promise<string> {
    const name = apiNameOf(api);
    if (!isBuiltInApi(name) && !(await this.#customApis.definesApi(tokenId, name)))
      throw new InvalidApiError();
    return name;
  }

  /** Extracts objects from one page (see `ExtractRequest`). */
  async extract(request: ExtractRequest): Promise<ExtractionResponse> {
    const name = await this.checkApi(request.tokenId, request.api);
    const url = checkPageUrl(request.url);
    // analyze may become any built-in type: every type's rule sets are candidates.
    const names = name === 'analyze' ? [...BUILT_IN_APIS] : [name];
    const candidates = await this.#customApis.rulesetsFor(request.tokenId, names);
    const forUrl = candidates.filter((ruleset) => matchesUrl(ruleset, url));
    const page = await this.#load(url, request, forwardHeaders(forUrl, request.headers));
    const applicable =
      page.finalUrl === url
        ? forUrl
        : candidates.filter((ruleset) => matchesUrl(ruleset, url) || matchesUrl(ruleset, page.finalUrl));
    return this.#run(name, url, page, applicable);
  }

  /**
   * Runs a rule set that is not saved against its `testUrl` (or `url`, or supplied HTML) and
   * returns what the extraction would produce with it (built-in fields of a built-in API plus
   * this rule set's fields). Invalid rule sets are rejected exactly as `POST /v3/custom` would.
   */
  async preview(request: PreviewRequest): Promise<PreviewResponse> {
    const ruleset = parseRuleset(request.ruleset);
    const url = checkPageUrl(request.url ?? ruleset.definition.testUrl, request.url ? 'url' : 'testUrl');
    const page = await this.#load(url, { html: request.html }, forwardHeaders([ruleset], request.headers));
    const response = this.#run(ruleset.apiName, url, page, [ruleset]);
    return { ...response, urlPatternMatches: matchesUrl(ruleset, url) || matchesUrl(ruleset, page.finalUrl) };
  }

  async #load(
    url: string,
    request: Pick<ExtractRequest, 'html' | 'contentType' | 'timeoutMs' | 'signal'>,
    headers: Record<string, string>,
  ): Promise<LoadedPage> {
    if (typeof request.html === 'string') return { text: request.html, finalUrl: url };
    if (request.html) return { text: decodeHtml(request.html, request.contentType).text, finalUrl: url };
    const fetched = ensureSuccess(
      await this.#fetcher.fetch(url, { headers, timeoutMs: request.timeoutMs, signal: request.signal }),
    );
    const type = fetched.contentType;
    const looksLikeMarkup = /^\s*</.test(
      fetched.body
        .subarray(0, 512)
        .toString('latin1')
        .replace(/^\uFEFF|^ï»¿/, ''),
    );
    if (type ? !HTML_TYPES.has(type) : !looksLikeMarkup) {
      throw new FetchError(
        'not_html',
        `The page at ${fetched.finalUrl} is not HTML (Content-Type: ${type ?? 'none'})`,
        {
          httpStatus: fetched.status,
        },
      );
    }
    return { text: fetched.text(), finalUrl: fetched.finalUrl };
  }

  #run(
    name: string,
    url: string,
    page: LoadedPage,
    rulesets: readonly CompiledRuleset[],
  ): ExtractionResponse {
    const context = PageContext.fromHtml(page.text, page.finalUrl);
    removePrefiltered(context.page.document, rulesets);
    let type: string = name;
    let fields: Record<string, unknown> | undefined;
    let detected: PageType | undefined;
    if (isBuiltInApi(name)) {
      const result = runBuiltInApi(name as BuiltInApi, context);
      detected = result.type;
      type = result.type;
      fields = result.fields;
    }
    // Rule sets of this API, of `all`, and (for analyze) of the detected type.
    const wanted = new Set([
      name,
      ALL_APIS,
      ...(detected && detected !== 'other' ? [detected as ObjectType] : []),
    ]);
    const applied = rulesets.filter((ruleset) => wanted.has(ruleset.apiName));
    const custom = applied.length > 0 ? applyRulesets(applied, context.page.document, context.baseUrl) : {};
    const objects: ExtractedObject[] = [];
    if (fields || Object.keys(custom).length > 0) {
      objects.push({
        type,
        pageUrl: url,
        ...(page.finalUrl !== url ? { resolvedPageUrl: page.finalUrl } : {}),
        ...fields,
        ...custom,
      });
    }
    const response: ExtractionResponse = { request: { pageUrl: url, api: name, version: 3 }, objects };
    if (name !== 'analyze') return response;
    const language = documentLanguage(context.page);
    return { ...response, type: detected ?? 'other', ...(language ? { humanLanguage: language } : {}) };
  }
}
