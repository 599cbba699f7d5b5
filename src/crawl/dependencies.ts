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
    },
  ): Promise<FetchedPageView>;
}

/** An object extracted from a page (`type` plus the extracted fields). */
export type ExtractedObject = Readonly<Record<string, unknown>>;

/** Runs an extraction API on a page already fetched. */
export interface PageExtractor {
  /** Throws `InvalidApiError` when `api` is neither built in nor one of the token's Custom APIs. */
  checkApi(tokenId: string, api: string): void;
  /** Extracts objects from `html`, the page at `url`. Throws a `QuarryError` when it cannot. */
  extract(input: {
    readonly tokenId: string;
    readonly api: string;
    readonly url: string;
    readonly html: string;
  }): Promise<readonly ExtractedObject[]>;
}

/**
 * Merges extracted Organization and Person objects into the knowledge graph, stated by the
 * page at `origin`. Synchronous so it joins the transaction that records the page's outcome
 * (a page's entities are ingested exactly once).
 */
export interface GraphIngester {
  ingest(objects: readonly ExtractedObject[], origin: string): void;
}
