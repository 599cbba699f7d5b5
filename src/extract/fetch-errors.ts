/** What the fetcher reports when a request fails: every failure as a `FetchError` that says why. */
import { FetchError } from '../errors.ts';
import { RefusedAddressError } from './guarded-agent.ts';

type CodedError = Error & { code?: string };

function findInChain(error: unknown, predicate: (e: CodedError) => boolean): CodedError | undefined {
  let current = error as (CodedError & { cause?: unknown }) | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (predicate(current)) return current;
    if (current instanceof AggregateError) {
      const inner = current.errors.find((e) => predicate(e));
      if (inner) return inner as CodedError;
    }
    current = current.cause as typeof current;
  }
  return undefined;
}

/**
 * Turns whatever undici, zlib or a redirect hook threw into a `FetchError`: refusals, timeouts
 * (transient), aborts, DNS failures, other network errors (transient). A `FetchError` passes.
 */
export function toFetchError(error: unknown, url: string, timedOut: boolean, aborted: boolean): FetchError {
  if (error instanceof FetchError) return error;
  const refused = findInChain(error, (e) => e instanceof RefusedAddressError);
  if (refused) return new FetchError('fetch_refused', refused.message);
  if (timedOut) return new FetchError('fetch_timeout', `Timed out fetching ${url}`, { transient: true });
  if (aborted) return new FetchError('fetch_aborted', `Fetching ${url} was aborted`);
  const coded = findInChain(error, (e) => typeof e.code === 'string');
  const code = coded?.code ?? '';
  if (code === 'ENOTFOUND') return new FetchError('fetch_dns', `Host of ${url} cannot be resolved`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code.includes('TIMEOUT')) {
    return new FetchError('fetch_timeout', `Timed out fetching ${url}`, { transient: true });
  }
  const detail = coded?.message ?? (error as Error)?.message ?? String(error);
  return new FetchError('fetch_network', `Could not fetch ${url}: ${code ? `${code} ` : ''}${detail}`, {
    transient: true,
  });
}
