/**
 * URLs and domains: a URL, a bare host or a host with a path becomes its host (lowercase, no
 * `www.`, no port) and its registrable domain (public-suffix aware: `cs.ox.ac.uk` → `ox.ac.uk`).
 */
import { parse } from 'tldts';
import { BoundedMemo } from './memo.ts';

/** A normalised web address. */
export interface NormalizedDomain {
  /** Host without `www.` prefix, lowercase (`admissions.mit.edu`). */
  readonly host: string;
  /** Registrable domain (`mit.edu`); equals `host` when the host is itself registrable. */
  readonly registrable: string;
}

/**
 * Normalises a URL or host. Returns `undefined` for text that holds no plausible host (no dot,
 * spaces inside, an IP literal is kept as its own registrable domain).
 */
export function normalizeDomain(url: string): NormalizedDomain | undefined {
  const trimmed = url.trim().toLowerCase();
  if (trimmed === '' || /\s/.test(trimmed)) return undefined;
  // A bare host (the usual stored form) needs no URL parsing.
  if (BARE_HOST.test(trimmed)) return fromHostname(trimmed);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? trimmed : `http://${trimmed}`;
  let hostname: string;
  try {
    hostname = new URL(withScheme).hostname;
  } catch {
    return undefined;
  }
  return fromHostname(hostname);
}

const BARE_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+\.?$/;
// Bounded: a cache, not a copy of every host ever seen; for hosts of three labels or more (two
// need no lookup, `TWO_LABELS`). Its size was chosen when every host went through it: 100k
// entries held the hosts of a 100k-organization graph, whose people's e-mail domains then hit
// (3% less import preparation CPU on a 50k + 50k demo graph than 4,096 entries).
const registrables = new BoundedMemo<string>(100_000);

/**
 * Two labels of letters, digits and hyphens (`acme.example`, most organizations' hosts): the host
 * is its own registrable domain whatever the public-suffix list says. Under a one-label suffix
 * the domain is the whole host; a host that is itself a suffix (`co.uk`, `github.io`) has no
 * domain and keeps the host. So no suffix lookup (an import did one per organization).
 */
const TWO_LABELS = /^[a-z0-9-]+\.[a-z0-9-]+$/;

function fromHostname(name: string): NormalizedDomain | undefined {
  const hostname = name.replace(/\.$/, '').replace(/^www\d?\./, '');
  if (TWO_LABELS.test(hostname)) return { host: hostname, registrable: hostname };
  if (!hostname.includes('.') && !hostname.includes(':')) return undefined;
  const registrable = registrables.get(hostname, () => {
    const parsed = parse(hostname);
    return parsed.isIp ? hostname : (parsed.domain ?? hostname);
  });
  return { host: hostname, registrable };
}

/** Parent hosts of `host` down to its registrable domain, most specific first (host included). */
export function hostAncestors(domain: NormalizedDomain): string[] {
  const out = [domain.host];
  let host = domain.host;
  while (host !== domain.registrable && host.includes('.')) {
    host = host.slice(host.indexOf('.') + 1);
    out.push(host);
    if (host.length <= domain.registrable.length) break;
  }
  return out;
}
