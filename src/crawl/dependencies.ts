/**
 * What bulk extract jobs need from other capabilities, as narrow interfaces: fetching pages
 * (`extract/`'s SSRF-safe fetcher fits `PageFetcher`), extracting objects from a page
 * (`extract/`'s extraction service) and merging objects into the knowledge graph (`kg/`).
 * The composition root (`runtime.ts`) adapts the real services to them.
 */

/** A fetched response, as far as the crawler reads it. */
export interface FetchedPageView {
  /** The URL of the final response, after redirects. */
  readonly finalUrl: string;
  readonly status: number;
  /** Response headers, names lowercased. */
  readonly headers: Readonly<Record<string, string>>;
  /** Media type essence of `Content-Type` (`text/html`); `undefined` when absent. */
  readonly contentType: string | undefined;
  /** The body, decompressed. */
  readonly body: Buffer;
  /** The body decoded as text. */
  text(): string;
}

/** Fetches URLs on a caller's behalf; throws `FetchError` for refusals and failures. */
export interface PageFetcher {
  fetch(
    url: string,
    options?: {
      readonly headers?: Readonly<Record<string, string>>;
      readonly signal?: AbortSignal;
      readonly timeoutMs?: number;
      readonly method?: 'GET' | 'POST';
      readonly body?: string;
      /** Called before each redirect hop is requested; may wait, or throw to stop the fetch. */
      readonly beforeRedirect?: (to: URL, from: URL) => Promise<void>;
    },
  ): Promise<FetchedPageView>;
}

/** An object extracted from a page (`type` plus the extracted fields). */
export type ExtractedObject = Readonly<Record<string, unknown>>;

/** A fetched page to extract, with what the stored objects must say about it. */
export interface PageToExtract {
  readonly tokenId: string;
  /** Extraction API name (built in or one of the token's Custom APIs). */
  readonly api: string;
  /** The submitted URL: the objects' `pageUrl`. */
  readonly pageUrl: string;
  /** The URL of the final response: links resolve and Custom API rules match against it. */
  readonly finalUrl: string;
  /** The response body, as received. */
  readonly body: Buffer;
  /** The `Content-Type` header as received (its charset, when declared, decodes the body). */
  readonly contentType: string | undefined;
  /** Extraction time, epoch ms: the objects' `timestamp`. */
  readonly timestamp: number;
}

/** What extraction produced for one page, ready to store. */
export interface PageExtraction {
  /**
   * Each extracted object serialised as JSON: `type`, `pageUrl`, `resolvedPageUrl` (when the
   * page was redirected), `timestamp`, then the extracted fields.
   */
  readonly documents: readonly string[];
  /** The `type` of each document, in the same order. */
  readonly types: readonly string[];
}

/** Runs an extraction API on pages already fetched. */
export interface PageExtractor {
  /** Throws `InvalidApiError` when `api` is neither built in nor one of the token's Custom APIs. */
  checkApi(tokenId: string, api: string): Promise<void>;
  /** Extracts the objects of one page. Rejects with an error saying why it cannot. */
  extract(page: PageToExtract): Promise<PageExtraction>;
  /** Releases threads or other resources. */
  close(): Promise<void>;
}

/**
 * Merges extracted Organization and Person objects into the knowledge graph, stated by the
 * page at `origin`. Synchronous so it joins the transaction that records the page's outcome
 * (a page's entities are ingested exactly once).
 */
export interface GraphIngester {
  ingest(objects: readonly ExtractedObject[], origin: string): void;
}
