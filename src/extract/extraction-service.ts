import { FetchError, InvalidApiError, InvalidParameterError } from '../errors.ts';
import { isBuiltInApi } from './built-in-apis.ts';
import type { CustomApiService } from './custom-api-service.ts';
import {
  candidateApis,
  type ExtractedObject,
  type ExtractionResponse,
  extractPage,
  type PageContent,
  type PageInput,
  type StoredDocuments,
  storedDocuments,
} from './extract-page.ts';
import type { ExtractionThreads } from './extraction-threads.ts';
import { ensureSuccess, type Fetcher } from './fetcher.ts';
import { apiNameOf, type CompiledRuleset, isForwardableHeader, matchesUrl, parseRuleset } from './ruleset.ts';

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
  /**
   * Comma-separated fields each object keeps (`type`, `pageUrl` and `resolvedPageUrl` always
   * stay); absent or empty: every field.
   */
  readonly fields?: string;
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

/** A page fetched by a crawl, to extract with the token's rule sets. */
export interface FetchedPageToExtract {
  readonly tokenId: string;
  readonly api: string;
  /** The submitted URL (`pageUrl` of the objects). */
  readonly url: string;
  /** The URL of the final response (rules match it too; links resolve against it). */
  readonly finalUrl: string;
  readonly body: Uint8Array;
  /** The `Content-Type` header as received. */
  readonly contentType: string | undefined;
  /** Extraction time, epoch ms (`timestamp` of the stored objects). */
  readonly timestamp: number;
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
  readonly content: PageContent;
  readonly finalUrl: string;
}

/**
 * Extraction: fetch (or take) a page, run a built-in extractor, apply the token's Custom API
 * rule sets. Built-in APIs: `analyze` (detects the page type), `article`, `product`,
 * `organization`, `person`. A name that is neither built in nor defined by the token's rule
 * sets is `InvalidApiError` (457). Fetch problems are `FetchError`s; a page over its time or
 * memory budget is `ExtractionTimeoutError` or `ExtractionTooLargeError` (422), and an extraction
 * that failed in its thread for a reason of its own `ExtractionFailedError` (500); nothing else
 * for bad input or unreachable pages.
 *
 * This thread fetches and picks the rule sets (their urlPattern runs on the linear-time
 * engine); parsing and extracting happen in `threads`. Without threads (unit tests and
 * benchmarks only) they happen here.
 */
export class ExtractionService {
  readonly #fetcher: Fetcher;
  readonly #customApis: CustomApiService;
  readonly #threads: ExtractionThreads | undefined;

  constructor(deps: { fetcher: Fetcher; customApis: CustomApiService; threads?: ExtractionThreads }) {
    this.#fetcher = deps.fetcher;
    this.#customApis = deps.customApis;
    this.#threads = deps.threads;
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
    const candidates = await this.#customApis.rulesetsFor(request.tokenId, candidateApis(name));
    const forUrl = candidates.filter((ruleset) => matchesUrl(ruleset, url));
    const page = await this.#load(url, request, forwardHeaders(forUrl, request.headers));
    const applicable =
      page.finalUrl === url
        ? forUrl
        : candidates.filter((ruleset) => matchesUrl(ruleset, url) || matchesUrl(ruleset, page.finalUrl));
    const response = await this.#run({
      api: name,
      url,
      finalUrl: page.finalUrl,
      content: page.content,
      rulesets: definitions(applicable),
    });
    return selectFields(response, request.fields);
  }

  /**
   * Extracts a page a crawl fetched, with the token's rule sets for `api` that match its URL
   * or final URL; the objects as stored documents. Background priority: requests go first.
   */
  async extractFetched(page: FetchedPageToExtract): Promise<StoredDocuments> {
    const name = await this.checkApi(page.tokenId, page.api);
    const rulesets = (await this.#customApis.rulesetsFor(page.tokenId, candidateApis(name))).filter(
      (ruleset) => matchesUrl(ruleset, page.url) || matchesUrl(ruleset, page.finalUrl),
    );
    const input: PageInput = {
      api: name,
      url: page.url,
      finalUrl: page.finalUrl,
      content: { body: page.body, contentType: page.contentType },
      rulesets: definitions(rulesets),
    };
    if (!this.#threads) {
      const response = extractPage(input);
      return storedDocuments(response.objects, {
        api: name,
        url: page.url,
        finalUrl: page.finalUrl,
        timestamp: page.timestamp,
      });
    }
    return this.#threads.documents(input, page.timestamp);
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
    const response = await this.#run({
      api: ruleset.apiName,
      url,
      finalUrl: page.finalUrl,
      content: page.content,
      rulesets: [ruleset.definition],
    });
    return { ...response, urlPatternMatches: matchesUrl(ruleset, url) || matchesUrl(ruleset, page.finalUrl) };
  }

  async #load(
    url: string,
    request: Pick<ExtractRequest, 'html' | 'contentType' | 'timeoutMs' | 'signal'>,
    headers: Record<string, string>,
  ): Promise<LoadedPage> {
    if (typeof request.html === 'string') return { content: { text: request.html }, finalUrl: url };
    if (request.html)
      return { content: { body: request.html, contentType: request.contentType }, finalUrl: url };
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
    return { content: { body: fetched.body, charset: fetched.charset }, finalUrl: fetched.finalUrl };
  }

  #run(input: PageInput): Promise<ExtractionResponse> {
    if (!this.#threads) return Promise.resolve(extractPage(input));
    return this.#threads.extract(input);
  }
}

function definitions(rulesets: readonly CompiledRuleset[]) {
  return rulesets.map((ruleset) => ruleset.definition);
}

/** Fields an object always keeps, whatever `fields=` asks. */
const IDENTITY_FIELDS = ['type', 'pageUrl', 'resolvedPageUrl'];

/** The response with each object reduced to `fields` (comma-separated); as is without it. */
function selectFields(response: ExtractionResponse, fields: string | undefined): ExtractionResponse {
  const wanted = (fields ?? '')
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
  if (wanted.length === 0) return response;
  const keep = new Set([...IDENTITY_FIELDS, ...wanted]);
  const objects = response.objects.map(
    (object) =>
      Object.fromEntries(Object.entries(object).filter(([key]) => keep.has(key))) as ExtractedObject,
  );
  return { ...response, objects };
}
