import { type Agent, request } from 'undici';
import { FetchError, isRetryableHttpStatus } from '../errors.ts';
import type { FetchMetrics } from '../metrics/index.ts';
import {
  AddressGuard,
  type AddressPolicy,
  checkUrlSyntax,
  type LookupAll,
  systemLookup,
} from './address-policy.ts';
import { decodeText, detectCharset, parseMediaType } from './charset.ts';
import { toFetchError } from './fetch-errors.ts';
import { createGuardedAgent } from './guarded-agent.ts';
import { followRedirect, type RedirectChain, type RedirectState } from './redirects.ts';
import { decompress, flattenHeaders, readBody } from './response-body.ts';

/** Default cap on a response body, after decompression (docs/api.md#fetching: 10 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Default cap on the whole exchange, redirects and body included (docs/api.md#fetching: 30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Redirects followed at most (docs/api.md#fetching). */
export const DEFAULT_MAX_REDIRECTS = 5;
/** Sent unless the caller supplies its own `User-Agent`. */
export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (compatible; QuarryBot/0.1; self-hosted Quarry extraction service)';

/** How a fetcher behaves; every field has a default. */
export interface FetcherOptions extends AddressPolicy {
  /** User agent sent when the caller gives none. */
  readonly userAgent?: string;
  /** Body cap in bytes (after decompression); larger responses fail with `fetch_too_large`. */
  readonly maxBodyBytes?: number;
  /** Time cap in milliseconds for the whole fetch; exceeded → `fetch_timeout` (transient). */
  readonly timeoutMs?: number;
  /** Redirects followed at most; one more → `fetch_too_many_redirects`. */
  readonly maxRedirects?: number;
  /** DNS resolver (all addresses of a name); the system resolver by default. Tests inject one. */
  readonly lookup?: LookupAll;
}

/** Per-request options. */
export interface FetchOptions {
  /** Extra request headers (e.g. `User-Agent`, `Cookie`, `Referer`); they replace the defaults. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts the fetch; it then fails with `fetch_aborted`. */
  readonly signal?: AbortSignal;
  /** `GET` by default. */
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** Request body (POST/PUT). It is resent on 307/308 redirects, dropped on 301/302/303. */
  readonly body?: string | Buffer;
  /** Overrides the fetcher's time cap for this request (never above it). */
  readonly timeoutMs?: number;
  /** Overrides the fetcher's redirect limit for this request; 0 returns a redirect response as is. */
  readonly maxRedirects?: number;
  /**
   * Called before each redirect hop is requested, with its URL and the URL that redirected.
   * It may wait (a host's politeness) or throw to stop the fetch (a `FetchError` reaches the
   * caller as it is: e.g. robots.txt disallows the hop).
   */
  readonly beforeRedirect?: (to: URL, from: URL) => Promise<void>;
}

/** A fetched response. Any HTTP status is a response; see `ensureSuccess` to reject non-2xx. */
export interface FetchedPage {
  /** The URL that was asked for (normalised by the URL parser). */
  readonly url: string;
  /** The URL of the final response, after redirects. */
  readonly finalUrl: string;
  /** Every URL that answered with a redirect, in order (empty when there was none). */
  readonly redirects: readonly string[];
  readonly status: number;
  /** Response headers, names lowercased; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, decompressed. */
  readonly body: Buffer;
  /** Media type essence of `Content-Type` (`text/html`), `undefined` when absent. */
  readonly contentType: string | undefined;
  /** Character encoding of the body as an HTML document would be decoded (WHATWG name). */
  readonly charset: string;
  /** The body decoded with `charset`. */
  text(): string;
}

/** Fetches URLs on a caller's behalf, refusing non-public destinations. */
export interface Fetcher {
  /**
   * Fetches `url` (http/https only), following at most `maxRedirects` redirects. Throws a
   * `FetchError` (never anything else) when the URL is refused or invalid, the destination is
   * not public, the network fails, the time or body cap is exceeded, or redirects loop.
   */
  fetch(url: string, options?: FetchOptions): Promise<FetchedPage>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** What one exchange of a fetch needs from its fetcher. */
interface ExchangeContext {
  readonly guard: AddressGuard;
  readonly agent: Agent;
  readonly maxBodyBytes: number;
}

/** Sends one request of the chain and reads the answer, or says where its redirect leads. */
async function exchange(
  context: ExchangeContext,
  state: RedirectState,
  chain: RedirectChain,
  signal: AbortSignal,
) {
  const refusal = checkUrlSyntax(state.url, context.guard);
  if (refusal) throw new FetchError('fetch_refused', refusal.message);
  const response = await request(state.url, {
    method: state.method as 'GET',
    headers: state.headers,
    body: state.body,
    dispatcher: context.agent,
    signal,
  });
  const next = followRedirect(state, response.statusCode, response.headers.location, chain);
  if (next) {
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return { kind: 'redirect' as const, next };
  }
  const headers = flattenHeaders(response.headers);
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  const declared = encoding ? -1 : Number(headers['content-length'] ?? -1);
  const raw = await readBody(response.body, declared, state.url.href, context.maxBodyBytes);
  const body = await decompress(raw, encoding, context.maxBodyBytes, state.url.href);
  return { kind: 'response' as const, status: response.statusCode, headers, body };
}

/**
 * Creates a fetcher: the connection layer (`guarded-agent.ts`) refuses non-public addresses
 * wherever a connection is made, redirects hops included (`redirects.ts`), bodies are read
 * within their cap and decompressed (`response-body.ts`), and every failure is a `FetchError`
 * (`fetch-errors.ts`). An up-front syntax check of each URL gives early, clear refusals.
 */
export function createFetcher(options: FetcherOptions): Fetcher {
  const guard = new AddressGuard(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const agent = createGuardedAgent({ guard, lookup: options.lookup, systemLookup, timeoutMs });
  const context: ExchangeContext = { guard, agent, maxBodyBytes };

  async function fetchPage(url: string, fetchOptions: FetchOptions = {}): Promise<FetchedPage> {
    let state: RedirectState;
    try {
      state = {
        url: new URL(url),
        method: fetchOptions.method ?? 'GET',
        body: fetchOptions.body,
        headers: {
          'user-agent': userAgent,
          accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
          'accept-encoding': 'gzip, deflate, br',
          ...lowerCaseKeys(fetchOptions.headers),
        },
      };
    } catch {
      throw new FetchError('fetch_invalid_url', `Not a valid absolute URL: ${url}`);
    }
    const timeout = AbortSignal.timeout(Math.min(fetchOptions.timeoutMs ?? timeoutMs, timeoutMs));
    const signal = fetchOptions.signal ? AbortSignal.any([timeout, fetchOptions.signal]) : timeout;
    const requested = state.url.href;
    const chain: RedirectChain = {
      requested,
      redirects: [],
      seen: new Set([requested]),
      limit: fetchOptions.maxRedirects ?? maxRedirects,
    };
    try {
      for (;;) {
        const answer = await exchange(context, state, chain, signal);
        if (answer.kind === 'redirect') {
          // The caller's check of the hop (robots.txt, politeness) before it is requested.
          await fetchOptions.beforeRedirect?.(answer.next.url, state.url);
          state = answer.next;
          continue;
        }
        const mediaType = parseMediaType(answer.headers['content-type']);
        const charset = detectCharset(answer.body, mediaType.charset);
        const { body } = answer;
        return {
          url: requested,
          finalUrl: state.url.href,
          redirects: chain.redirects,
          status: answer.status,
          headers: answer.headers,
          body,
          contentType: mediaType.essence,
          charset,
          text: () => decodeText(body, charset),
        };
      }
    } catch (error) {
      throw toFetchError(error, state.url.href, timeout.aborted, fetchOptions.signal?.aborted ?? false);
    }
  }

  return {
    fetch: fetchPage,
    async close() {
      await agent.close();
    },
  };
}

/**
 * Throws a `FetchError` (`fetch_http_status`, with `httpStatus`) unless the response status is
 * 2xx. 429 and 5xx are transient (worth retrying later); other statuses are not.
 */
export function ensureSuccess(page: FetchedPage): FetchedPage {
  if (page.status >= 200 && page.status < 300) return page;
  throw new FetchError('fetch_http_status', `Could not download page (${page.status}): ${page.finalUrl}`, {
    httpStatus: page.status,
    transient: isRetryableHttpStatus(page.status),
  });
}

/**
 * `fetcher` with each fetch's time and result reported to `metrics` under `purpose`
 * (docs/metrics.md): `response` for any HTTP answer, else the `FetchError`'s code.
 */
export function observedFetcher(
  fetcher: Fetcher,
  metrics: FetchMetrics | undefined,
  purpose: string,
): Fetcher {
  if (!metrics) return fetcher;
  return {
    async fetch(url, options) {
      const start = performance.now();
      let result = 'response';
      try {
        return await fetcher.fetch(url, options);
      } catch (error) {
        result = error instanceof FetchError ? error.code : 'error';
        throw error;
      } finally {
        metrics.fetchFinished(purpose, result, (performance.now() - start) / 1000);
      }
    },
    close: () => fetcher.close(),
  };
}
