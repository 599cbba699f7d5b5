/**
 * IP evidence: CIDR ranges (IPv4 and IPv6) turned into bucket keys for retrieval, and exact
 * containment checks for scoring.
 */
import ipaddr from 'ipaddr.js';

// A range is bucketed by the widest of /24, /16, /8 (IPv4) or /48, /32, /16 (IPv6) that it
// fills: one key per range, and an address is looked up in its bucket of each width. Buckets of
// /16 alone held 256 organizations' /24 ranges, more than a lookup reads (the owner of an
// address was then often not found).
function ipv4BucketKeys(first: number, second: number, third: number, prefix: number): string[] {
  if (prefix >= 24) return [`4/24:${first}.${second}.${third}`];
  if (prefix >= 16) return [`4/16:${first}.${second}`];
  if (prefix >= 8) return [`4/8:${first}`];
  return [];
}

function bucketKeys(address: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): string[] {
  if (address.kind() === 'ipv4') {
    const bytes = address.toByteArray();
    return ipv4BucketKeys(bytes[0], bytes[1], bytes[2], prefix);
  }
  const parts = (address as ipaddr.IPv6).parts.map((part) => part.toString(16));
  if (prefix >= 48) return [`6/48:${parts[0]}:${parts[1]}:${parts[2]}`];
  if (prefix >= 32) return [`6/32:${parts[0]}:${parts[1]}`];
  if (prefix >= 16) return [`6/16:${parts[0]}`];
  return [];
}

// Dotted-quad IPv4 CIDR in its plain form (decimal octets without leading zeros): the usual
// stored form, read without the general parser (a third of `ipKeysForRange`'s cost at import).
const PLAIN_IPV4_CIDR =
  /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\/(0|[1-9]\d?)$/;

/**
 * The four octets and the prefix of a range in the plain form (`PLAIN_IPV4_CIDR`), or undefined
 * when it is not in that form or a value is out of range (the general parser then decides).
 */
function plainIpv4Cidr(text: string): [number, number, number, number, number] | undefined {
  const plain = PLAIN_IPV4_CIDR.exec(text);
  if (plain === null) return undefined;
  const a = Number(plain[1]);
  const b = Number(plain[2]);
  const c = Number(plain[3]);
  const d = Number(plain[4]);
  const prefix = Number(plain[5]);
  return a <= 255 && b <= 255 && c <= 255 && d <= 255 && prefix <= 32 ? [a, b, c, d, prefix] : undefined;
}

/** Retrieval keys of a CIDR range; empty for an unparsable or very wide range. */
export function ipKeysForRange(range: string): string[] {
  const text = range.trim();
  // Out-of-range values go to the parser below, which rejects them as before.
  const plain = plainIpv4Cidr(text);
  if (plain !== undefined) return ipv4BucketKeys(plain[0], plain[1], plain[2], plain[4]);
  try {
    // `ipaddr.parseCIDR` tries IPv6 first and throws for every IPv4 range before trying IPv4: the
    // exception was ~10% of an import's preparation CPU. Only IPv6 has colons, so the colon picks
    // the one parser that can succeed (same results).
    const [address, prefix] = text.includes(':') ? ipaddr.IPv6.parseCIDR(text) : ipaddr.IPv4.parseCIDR(text);
    return bucketKeys(address, prefix);
  } catch {
    return [];
  }
}

/** Retrieval keys to look an address up by (every bucket width a range may have used). */
export function ipKeysForAddress(ip: string): string[] {
  try {
    const address = ipaddr.process(ip.trim());
    if (address.kind() === 'ipv4')
      return [...bucketKeys(address, 24), ...bucketKeys(address, 16), ...bucketKeys(address, 8)];
    return [...bucketKeys(address, 48), ...bucketKeys(address, 32), ...bucketKeys(address, 16)];
  } catch {
    return [];
  }
}

/** True when `ip` lies in one of the CIDR `ranges`; unparsable values never match. */
export function ipInRanges(ip: string, ranges: readonly string[]): boolean {
  const address = parsedAddress(ip);
  if (address === undefined) return false;
  const ipv4 = address.kind() === 'ipv4' ? octetsNumber((address as ipaddr.IPv4).octets) : undefined;
  for (const range of ranges) {
    const text = range.trim();
    // A plain dotted-quad range (the stored form) compared as numbers: the general parser tries
    // IPv6 first and throws for every IPv4 range (1.7% of a matcher query on 1M + 1M).
    const plain = plainIpv4Cidr(text);
    if (plain !== undefined) {
      if (ipv4 !== undefined && sameNetwork(ipv4, octetsNumber(plain), plain[4])) return true;
      continue;
    }
    try {
      const cidr = ipaddr.parseCIDR(text);
      if (cidr[0].kind() === address.kind() && address.match(cidr)) return true;
    } catch {
      // An unparsable stored range is no evidence.
    }
  }
  return false;
}

/** An IPv4 address's four octets as one unsigned 32-bit number. */
function octetsNumber(octets: readonly number[]): number {
  return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}

/** Whether two IPv4 addresses (`octetsNumber`) agree in their first `prefix` bits. */
function sameNetwork(a: number, b: number, prefix: number): boolean {
  return prefix === 0 || (a ^ b) >>> (32 - prefix) === 0;
}

/**
 * `ip` parsed (IPv4-mapped IPv6 read as IPv4), or undefined when it does not parse. The last
 * one is remembered: a query's address is compared with every candidate's ranges.
 */
function parsedAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ip === lastAddress.ip) return lastAddress.parsed;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 | undefined;
  try {
    parsed = ipaddr.process(ip.trim());
  } catch {
    parsed = undefined;
  }
  lastAddress = { ip, parsed };
  return parsed;
}

let lastAddress: { readonly ip: string; readonly parsed: ipaddr.IPv4 | ipaddr.IPv6 | undefined } = {
  ip: '',
  parsed: undefined,
};
