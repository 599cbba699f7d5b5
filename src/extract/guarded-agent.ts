/**
 * The connection layer of the fetcher: an undici `Agent` whose connector refuses any address
 * outside the policy (docs/api.md#outbound-requests). IP literals are checked before connecting; names are
 * resolved here and refused when any of their addresses is not public. That covers redirects
 * and defeats DNS rebinding: the address checked is the address connected to.
 */
import type dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { type AddressGuard, type LookupAll, unbracketHost } from './address-policy.ts';

/**
 * Thrown inside the connector when a connection would reach a refused address. Internal, not in
 * the error registry: undici wraps it, and `fetch-errors.ts` finds it in the cause chain and
 * answers `FetchError('fetch_refused')`.
 */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_QUARRY_REFUSED_ADDRESS';
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for `net.connect` that refuses names with a non-public address.
 * `net.connect` calls it with `all: true` when it races address families (autoSelectFamily).
 */
function checkedLookup(guard: AddressGuard, lookup: LookupAll) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    lookup(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = found.filter((entry) => wanted === 0 || entry.family === wanted);
        const refused = found.find((entry) => !guard.allows(entry.address));
        if (refused) {
          const message = `Refusing to fetch ${hostname} (${refused.address}): not a public address (private networks are not allowed)`;
          callback(new RefusedAddressError(message), '');
        } else if (addresses.length === 0) {
          callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (error: Error) => callback(error, ''),
    );
  };
}

/** How the agent connects. */
export interface GuardedAgentOptions {
  readonly guard: AddressGuard;
  /** The resolver; `undefined` means the system's (used as is when everything is allowed). */
  readonly lookup: LookupAll | undefined;
  readonly systemLookup: LookupAll;
  /** Headers and body time caps, ms; the connect timeout is at most 10 s. */
  readonly timeoutMs: number;
}

/** An undici agent that only ever connects to addresses the guard allows. */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { guard, timeoutMs } = options;
  const baseConnector = buildConnector({
    timeout: Math.min(10_000, timeoutMs),
    // With private networks allowed and no resolver given, the system resolver is used as is.
    ...(guard.allowsEverything && !options.lookup
      ? {}
      : { lookup: checkedLookup(guard, options.lookup ?? options.systemLookup) }),
  });
  const connector: buildConnector.connector = (connectOptions, callback) => {
    const host = unbracketHost(connectOptions.hostname);
    if (net.isIP(host) && !guard.allows(host)) {
      const message = `Refusing to fetch ${host}: not a public address (private networks are not allowed)`;
      callback(new RefusedAddressError(message), null);
      return;
    }
    baseConnector(connectOptions, callback);
  };
  return new Agent({
    connect: connector,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
    connections: 32,
  });
}
