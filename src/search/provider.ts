/**
 * Web search providers (docs/api.md#refresh-and-search). The operator configures one
 * (`QUARRY_SEARCH_URL`): a SearXNG-compatible endpoint, `GET <url>?q=…&format=json`, whose
 * answer lists results `{url, title, content}`. SearXNG is the self-hosted metasearch engine
 * people run; Debian's `searx` speaks the same format.
 *
 * The endpoint is the operator's own (often on the same machine or network), so it is called
 * directly, not through the SSRF-safe fetcher that guards the URLs callers make Quarry fetch;
 * the result URLs it returns go through that fetcher like any page.
 */
import { request } from 'undici';

/** One search result. */
export interface SearchResult {
  readonly url: string;
  readonly title: string;
  readonly content: string;
}

/** A search engine. */
export interface SearchProvider {
  /** What it is, for messages (`SearXNG at http://…`). */
  readonly name: string;
  /** The results for `query`, best first. Rejects with `SearchProviderError` when it fails. */
  search(query: string, options?: { readonly signal?: AbortSignal }): Promise<SearchResult[]>;
}

/** The provider failed (unreachable, an error status, an answer that is not its format). */
export class SearchProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchProviderError';
  }
}

export interface SearxngOptions {
  /** The search endpoint (`https://searx.example/search`). */
  readonly url: string;
  /** Time cap of one search, ms (default 10 s). */
  readonly timeoutMs?: number;
  /** Results kept per search at most (default 20). */
  readonly maxResults?: number;
  /** Answers larger than this are refused, bytes (default 2 MiB). */
  readonly maxBytes?: number;
  /** Extra query parameters (`categories`, `engines`, `language`). */
  readonly parameters?: Readonly<Record<string, string>>;
}

const MAX_FIELD = 2_000;

function clip(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, MAX_FIELD) : '';
}

/** A SearXNG-compatible provider; see the module comment. */
export class SearxngProvider implements SearchProvider {
  readonly name: string;
  readonly #url: URL;
  readonly #timeoutMs: number;
  readonly #maxResults: number;
  readonly #maxBytes: number;
  readonly #parameters: Readonly<Record<string, string>>;

  constructor(options: SearxngOptions) {
    this.#url = new URL(options.url);
    this.name = `SearXNG at ${this.#url.origin}`;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxResults = options.maxResults ?? 20;
    this.#maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
    this.#parameters = options.parameters ?? {};
  }

  async search(query: string, options: { readonly signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    const url = new URL(this.#url);
    for (const [name, value] of Object.entries(this.#parameters)) url.searchParams.set(name, value);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let text: string;
    try {
      const response = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += chunk.length;
        if (size > this.#maxBytes) {
          response.body.destroy();
          throw new SearchProviderError(`${this.name} answered more than ${this.#maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
      if (response.statusCode !== 200) {
        throw new SearchProviderError(`${this.name} answered HTTP ${response.statusCode}`);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof SearchProviderError) throw error;
      const why = timeout.aborted ? `no answer within ${this.#timeoutMs} ms` : (error as Error).message;
      throw new SearchProviderError(`${this.name} could not be reached: ${why}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new SearchProviderError(`${this.name} did not answer JSON (is format=json enabled?)`);
    }
    const results = (body as { results?: unknown })?.results;
    if (!Array.isArray(results)) throw new SearchProviderError(`${this.name} answered no "results" list`);
    const out: SearchResult[] = [];
    for (const item of results) {
      if (out.length >= this.#maxResults) break;
      const url = (item as { url?: unknown })?.url;
      if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || url.length > MAX_FIELD) continue;
      out.push({
        url,
        title: clip((item as { title?: unknown }).title),
        content: clip((item as { content?: unknown }).content),
      });
    }
    return out;
  }
}
