import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which outbound destinations Quarry may contact on a caller's behalf
 * (docs/api.md#outbound-requests). By default only public unicast addresses are allowed;
 * `allowPrivateNetwork` lifts the rule (tests, trusted deployments) and `allowedAddresses` lets
 * single addresses or CIDR ranges through (an operator's internal mirror, a test fixture server).
 */
export interface AddressPolicy {
  /** When true, every address is allowed. */
  readonly allowPrivateNetwork: boolean;
  /** Addresses or CIDR ranges (IPv4 or IPv6) allowed even though they are not public. */
  readonly allowedAddresses?: readonly string[];
}

/** A DNS lookup with the signature of `dns.lookup(hostname, {all: true})`. */
export type LookupAll = (hostname: string) => Promise<readonly dns.LookupAddress[]>;

/** The system resolver (`getaddrinfo`, so `/etc/hosts` is honoured), all addresses. */
export const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true });

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRanges(entries: readonly string[]): Range[] {
  return entries.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  // Everything ipaddr.js classifies (loopback, private, link-local, CGNAT, multicast, broadcast,
  // unspecified, reserved, documentation, ...) has a range name other than `unicast`.
  return address.range() === 'unicast';
}

/** The IPv4 address embedded in an IPv6 translation or tunnelling address, when there is one. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  const parts = address.parts;
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);
  }
  if (range === '6to4') {
    return new ipaddr.IPv4([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff]);
  }
  return undefined;
}

/**
 * True when `ip` (an IPv4 or IPv6 literal without brackets) is a public unicast address:
 * not loopback, private, link-local, unique-local, unspecified, CGNAT, multicast, reserved or
 * documentation space, nor an IPv4-mapped / NAT64 / 6to4 form of one of those. Global IPv6
 * unicast must lie in 2000::/3; Teredo is refused (its embedded address is obfuscated).
 * Unparseable input is not public.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return isPublicIPv4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return isPublicIPv4(embedded);
  if (v6.range() !== 'unicast') return false;
  return (v6.parts[0] & 0xe000) === 0x2000;
}

/** Strips the brackets of an IPv6 URL host (`[::1]` → `::1`). */
export function unbracketHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Decides, for one policy, whether an address may be contacted. Build once, use per connection. */
export class AddressGuard {
  readonly #allowAll: boolean;
  readonly #allowed: Range[];

  constructor(policy: AddressPolicy) {
    this.#allowAll = policy.allowPrivateNetwork;
    this.#allowed = parseRanges(policy.allowedAddresses ?? []);
  }

  /** True when every address is allowed (private networks allowed by the operator). */
  get allowsEverything(): boolean {
    return this.#allowAll;
  }

  /** Whether the IP literal `ip` may be contacted under this policy. */
  allows(ip: string): boolean {
    if (this.#allowAll) return true;
    if (isPublicAddress(ip)) return true;
    if (!ipaddr.isValid(ip)) return false;
    const address = ipaddr.process(ip);
    return this.#allowed.some(([range, bits]) => {
      if (range.kind() !== address.kind()) return false;
      return (address as ipaddr.IPv4).match(range as ipaddr.IPv4, bits);
    });
  }
}

/** Why a URL may not be fetched; `undefined` when it may. */
export type UrlRefusal = { readonly reason: 'scheme' | 'address' | 'unresolvable'; readonly message: string };

/**
 * The checks that need no DNS: the URL parses, its scheme is http or https, and a host that is
 * an IP literal is allowed by the policy. `undefined` when none of them refuses the URL.
 */
export function checkUrlSyntax(url: string | URL, guard: AddressGuard): UrlRefusal | undefined {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return { reason: 'scheme', message: `Not a valid absolute URL: ${String(url)}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { reason: 'scheme', message: `Only http and https URLs can be fetched, not ${parsed.protocol}` };
  }
  const host = unbracketHost(parsed.hostname);
  if (net.isIP(host) && !guard.allows(host)) return addressRefusal(host, host);
  return undefined;
}

/**
 * Checks a URL before a request is made: only http and https, and every address its host
 * resolves to must be allowed by the policy. For webhook senders and other callers that want
 * an early, explicit answer; the fetcher enforces the same rule again at connection time (which
 * also covers redirects and DNS rebinding).
 */
export async function checkUrlAllowed(
  url: string | URL,
  policy: AddressPolicy | AddressGuard,
  lookup: LookupAll = systemLookup,
): Promise<UrlRefusal | undefined> {
  const guard = policy instanceof AddressGuard ? policy : new AddressGuard(policy);
  const syntax = checkUrlSyntax(url, guard);
  if (syntax || guard.allowsEverything) return syntax;
  const host = unbracketHost(new URL(url).hostname);
  if (net.isIP(host)) return undefined;
  let addresses: readonly dns.LookupAddress[];
  try {
    addresses = await lookup(host);
  } catch (error) {
    return {
      reason: 'unresolvable',
      message: `Host ${host} cannot be resolved: ${(error as Error).message}`,
    };
  }
  if (addresses.length === 0) return { reason: 'unresolvable', message: `Host ${host} has no address` };
  const refused = addresses.find((entry) => !guard.allows(entry.address));
  return refused ? addressRefusal(host, refused.address) : undefined;
}

function addressRefusal(host: string, address: string): UrlRefusal {
  const where = host === address ? address : `${host} (${address})`;
  return {
    reason: 'address',
    message: `Refusing to fetch ${where}: not a public address (private networks are not allowed)`,
  };
}

/** Convenience: true when `checkUrlAllowed` finds nothing to refuse. */
export async function isUrlAllowed(
  url: string | URL,
  policy: AddressPolicy | AddressGuard,
  lookup: LookupAll = systemLookup,
): Promise<boolean> {
  return (await checkUrlAllowed(url, policy, lookup)) === undefined;
}
