import type dns from 'node:dns';
import net from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent, buildConnector, request } from 'undici';
import { FetchError, isRetryableHttpStatus } from '../errors.ts';
import {
  AddressGuard,
  type AddressPolicy,
  checkUrlSyntax,
  type LookupAll,
  systemLookup,
  unbracketHost,
} from './address-policy.ts';
import { decodeText, detectCharset, parseMediaType } from './charset.ts';

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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers never forwarded to another origin when a redirect crosses origins (credentials). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** Thrown inside the connector when a connection would reach a refused address. */
class RefusedAddressError extends Error {
  readonly code = 'ERR_QUARRY_REFUSED_ADDRESS';
}

function findInChain(error: unknown, predicate: (e: Error & { code?: string }) => boolean) {
  let current = error as (Error & { code?: string; cause?: unknown }) | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (predicate(current)) return current;
    if (current instanceof AggregateError) {
      const inner = current.errors.find((e) => predicate(e));
      if (inner) return inner as Error & { code?: string };
    }
    current = current.cause as typeof current;
  }
  return undefined;
}

/** Turns whatever undici or zlib threw into a FetchError that says what happened. */
function toFetchError(error: unknown, url: string, timedOut: boolean, aborted: boolean): FetchError {
  if (error instanceof FetchError) return error;
  const refused = findInChain(error, (e) => e instanceof RefusedAddressError);
  if (refused) return new FetchError('fetch_refused', refused.message);
  if (timedOut) return new FetchError('fetch_timeout', `Timed out fetching ${url}`, { transient: true });
  if (aborted) return new FetchError('fetch_aborted', `Fetching ${url} was aborted`);
  const coded = findInChain(error, (e) => typeof e.code === 'string');
  const code = coded?.code ?? '';
  if (code === 'ENOTFOUND') {
    return new FetchError('fetch_dns', `Host of ${url} cannot be resolved`);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code.includes('TIMEOUT')) {
    return new FetchError('fetch_timeout', `Timed out fetching ${url}`, { transient: true });
  }
  const detail = coded?.message ?? (error as Error)?.message ?? String(error);
  return new FetchError('fetch_network', `Could not fetch ${url}: ${code ? `${code} ` : ''}${detail}`, {
    transient: true,
  });
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

async function decompress(body: Buffer, encoding: string, maxBytes: number, url: string): Promise<Buffer> {
  const options = { maxOutputLength: maxBytes };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return await gunzip(body, options);
      case 'deflate':
        // RFC 9110 says zlib-wrapped, but some servers send raw deflate: the zlib header's first
        // byte has low nibble 8 (CM = deflate).
        return (body[0] & 0x0f) === 8 ? await inflate(body, options) : await inflateRaw(body, options);
      case 'br':
        return await brotli(body, { maxOutputLength: maxBytes });
      default:
        throw new FetchError('fetch_bad_response', `Unsupported Content-Encoding "${encoding}" from ${url}`);
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new FetchError('fetch_too_large', `Response from ${url} exceeds ${maxBytes} bytes`);
    }
    throw new FetchError('fetch_bad_response', `Response from ${url} is not valid ${encoding} data`);
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/**
 * Creates a fetcher. The private-network rule is enforced where connections are made: the
 * connector refuses IP literals outside the policy and resolves names itself, refusing any
 * name with a non-public address. That covers redirects and defeats DNS rebinding (the address
 * checked is the address connected to). An up-front check gives early, clear errors.
 */
export function createFetcher(options: FetcherOptions): Fetcher {
  const guard = new AddressGuard(options);
  const lookup = options.lookup ?? systemLookup;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

  // `net.connect` calls this instead of `dns.lookup`, with `all: true` when it races address
  // families (autoSelectFamily) and without it otherwise.
  const checkedLookup = (
    hostname: string,
    lookupOptions: dns.LookupOptions,
    callback: (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
  ): void => {
    lookup(hostname).then(
      (found) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const addresses = found.filter((entry) => wanted === 0 || entry.family === wanted);
        const refused = found.find((entry) => !guard.allows(entry.address));
        if (refused) {
          callback(
            new RefusedAddressError(
              `Refusing to fetch ${hostname} (${refused.address}): not a public address (private networks are not allowed)`,
            ),
            '',
          );
        } else if (addresses.length === 0) {
          callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (lookupOptions.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (error: Error) => callback(error, ''),
    );
  };
  const baseConnector = buildConnector({
    timeout: Math.min(10_000, timeoutMs),
    // With private networks allowed and no resolver given, the system resolver is used as is.
    ...(guard.allowsEverything && !options.lookup ? {} : { lookup: checkedLookup }),
  });
  const connector: buildConnector.connector = (connectOptions, callback) => {
    const host = unbracketHost(connectOptions.hostname);
    if (net.isIP(host) && !guard.allows(host)) {
      callback(
        new RefusedAddressError(
          `Refusing to fetch ${host}: not a public address (private networks are not allowed)`,
        ),
        null,
      );
      return;
    }
    baseConnector(connectOptions, callback);
  };
  const agent = new Agent({
    connect: connector,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
    connections: 32,
  });

  async function readBody(
    body: AsyncIterable<Buffer> & { destroy(error?: Error): void },
    declaredLength: number,
    url: string,
  ): Promise<Buffer> {
    if (declaredLength > maxBodyBytes) {
      body.destroy();
      throw new FetchError('fetch_too_large', `Response from ${url} exceeds ${maxBodyBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of body) {
      total += chunk.length;
      if (total > maxBodyBytes) {
        body.destroy();
        throw new FetchError('fetch_too_large', `Response from ${url} exceeds ${maxBodyBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, total);
  }

  async function fetchOnce(url: string, fetchOptions: FetchOptions = {}): Promise<FetchedPage> {
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      throw new FetchError('fetch_invalid_url', `Not a valid absolute URL: ${url}`);
    }
    const limit = Math.min(fetchOptions.timeoutMs ?? timeoutMs, timeoutMs);
    const timeout = AbortSignal.timeout(limit);
    const signal = fetchOptions.signal ? AbortSignal.any([timeout, fetchOptions.signal]) : timeout;
    const redirectLimit = fetchOptions.maxRedirects ?? maxRedirects;
    let method: string = fetchOptions.method ?? 'GET';
    let requestBody = fetchOptions.body;
    let headers: Record<string, string> = {
      'user-agent': userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-encoding': 'gzip, deflate, br',
      ...lowerCaseKeys(fetchOptions.headers),
    };
    const requested = current.href;
    const redirects: string[] = [];
    const seen = new Set<string>([current.href]);
    try {
      for (;;) {
        // Fast, explicit refusals before any I/O; the connector enforces the same rule.
        const refusal = checkUrlSyntax(current, guard);
        if (refusal) throw new FetchError('fetch_refused', refusal.message);

        const response = await request(current, {
          method: method as 'GET',
          headers,
          body: requestBody,
          dispatcher: agent,
          signal,
        });
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode) && location && redirectLimit > 0) {
          await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          if (redirects.length >= redirectLimit) {
            throw new FetchError(
              'fetch_too_many_redirects',
              `More than ${redirectLimit} redirects fetching ${requested}`,
            );
          }
          let next: URL;
          try {
            next = new URL(Array.isArray(location) ? location[0] : location, current);
          } catch {
            throw new FetchError('fetch_bad_response', `Invalid redirect location from ${current.href}`);
          }
          if (seen.has(next.href)) {
            throw new FetchError('fetch_redirect_loop', `Redirect loop fetching ${requested} (${next.href})`);
          }
          if (next.origin !== current.origin) {
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name)),
            );
          }
          // RFC 9110 §15.4: 303 always, and 301/302 after POST in practice, become GET.
          if (response.statusCode === 303 || (response.statusCode < 307 && method === 'POST')) {
            method = method === 'HEAD' ? 'HEAD' : 'GET';
            requestBody = undefined;
          }
          redirects.push(current.href);
          seen.add(next.href);
          current = next;
          continue;
        }
        const responseHeaders = flattenHeaders(response.headers);
        const declared = Number(responseHeaders['content-length'] ?? -1);
        const raw = await readBody(
          response.body,
          responseHeaders['content-encoding'] ? -1 : declared,
          current.href,
        );
        const body = await decompress(
          raw,
          (responseHeaders['content-encoding'] ?? '').trim().toLowerCase(),
          maxBodyBytes,
          current.href,
        );
        const mediaType = parseMediaType(responseHeaders['content-type']);
        const charset = detectCharset(body, mediaType.charset);
        return {
          url: requested,
          finalUrl: current.href,
          redirects,
          status: response.statusCode,
          headers: responseHeaders,
          body,
          contentType: mediaType.essence,
          charset,
          text: () => decodeText(body, charset),
        };
      }
    } catch (error) {
      throw toFetchError(error, current.href, timeout.aborted, fetchOptions.signal?.aborted ?? false);
    }
  }

  return {
    fetch: fetchOnce,
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
