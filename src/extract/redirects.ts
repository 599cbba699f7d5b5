/**
 * Following redirects (RFC 9110 §15.4): which responses are redirects, where they lead, what
 * the next request sends. Pure; the fetcher's loop asks `followRedirect` at each response.
 */
import { FetchError } from '../errors.ts';

/** Statuses whose `Location` is followed. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Headers never forwarded to another origin when a redirect crosses origins (credentials). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** The request being made, as a redirect changes it. */
export interface RedirectState {
  readonly url: URL;
  readonly method: string;
  readonly body: string | Buffer | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

/** The chain so far: the URL asked for, the URLs that redirected, every URL seen. */
export interface RedirectChain {
  readonly requested: string;
  readonly redirects: string[];
  readonly seen: Set<string>;
  readonly limit: number;
}

/**
 * The next request after a redirect response from `state.url` with `status` and `location`,
 * or `undefined` when the response is not a redirect to follow (not a redirect status, no
 * `Location`, or a limit of 0). Records the hop in `chain`. Throws `FetchError` for too many
 * redirects, a loop or an invalid `Location`.
 */
export function followRedirect(
  state: RedirectState,
  status: number,
  location: string | string[] | undefined,
  chain: RedirectChain,
): RedirectState | undefined {
  if (!REDIRECT_STATUSES.has(status) || !location || chain.limit <= 0) return undefined;
  if (chain.redirects.length >= chain.limit) {
    throw new FetchError(
      'fetch_too_many_redirects',
      `More than ${chain.limit} redirects fetching ${chain.requested}`,
    );
  }
  let next: URL;
  try {
    next = new URL(Array.isArray(location) ? location[0] : location, state.url);
  } catch {
    throw new FetchError('fetch_bad_response', `Invalid redirect location from ${state.url.href}`);
  }
  if (chain.seen.has(next.href)) {
    throw new FetchError('fetch_redirect_loop', `Redirect loop fetching ${chain.requested} (${next.href})`);
  }
  const headers =
    next.origin === state.url.origin
      ? state.headers
      : Object.fromEntries(Object.entries(state.headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name)));
  // 303 always, and 301/302 after POST in practice, become GET (HEAD stays HEAD).
  const toGet = status === 303 || (status < 307 && state.method === 'POST');
  chain.redirects.push(state.url.href);
  chain.seen.add(next.href);
  return {
    url: next,
    method: toGet ? (state.method === 'HEAD' ? 'HEAD' : 'GET') : state.method,
    body: toGet ? undefined : state.body,
    headers,
  };
}
