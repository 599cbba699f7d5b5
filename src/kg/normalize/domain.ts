/**
 * URLs and domains: a URL, a bare host or a host with a path becomes its host (lowercase, no
 * `www.`, no port) and its registrable domain (public-suffix aware: `cs.ox.ac.uk` → `ox.ac.uk`).
 */
import { parse } from 'tldts';
import { readDataFile } from './data.ts';
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
  // "<https://acme.com>" (a mail client's or Markdown's link), "(acme.com)", quoted: the marks
  // around a URL are no part of it.
  if (WRAPPED.test(trimmed)) return normalizeDomain(trimmed.slice(1, -1));
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
/** A URL between angle brackets, parentheses, brackets or quotes. */
const WRAPPED = /^(?:<.*>|\(.*\)|\[.*\]|".*"|'.*')$/;
// Bounded: a cache, not a copy of every host ever seen; for hosts of three labels or more (two
// need no lookup, `TWO_LABELS`). Its size was chosen when every host went through it: 100k
// entries held the hosts of a 100k-organization graph, whose people's e-mail domains then hit
// (3% less import preparation CPU on a 50k + 50k demo graph than 4,096 entries).
// 16 MiB: about 100,000 hosts of ordinary length.
const registrables = new BoundedMemo<string>(16 * 1024 * 1024);

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

/** Top-level domains reserved for examples and tests (RFC 2606, RFC 6761): real in their use. */
const RESERVED_SUFFIXES: ReadonlySet<string> = new Set(['example', 'test']);

/**
 * Whether `text` is written as a web address ("acme.com", "www.acme.co.uk/about",
 * "https://acme.example"): one word, a scheme, `www.` or a path, or a host under a suffix of
 * the public-suffix list (or a reserved one). "St.Petersburg" and "D.Y. Patil" are not.
 */
export function looksLikeWebAddress(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '' || /\s/.test(trimmed)) return false;
  if (!/^(?:[a-z][a-z0-9+.-]*:\/\/)?[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+\.?(?:[/?#:]\S*)?$/iu.test(trimmed))
    return false;
  const host = normalizeDomain(trimmed)?.host;
  if (!host) return false;
  const parsed = parse(host);
  if (parsed.isIp) return false;
  return parsed.isIcann === true || RESERVED_SUFFIXES.has(parsed.publicSuffix ?? '');
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

let sharedHosts: ReadonlySet<string> | undefined;

/** The shared host `host` is on (itself or a parent of it: `uk.linkedin.com`), if any. */
function sharedHostOf(host: string): string | undefined {
  sharedHosts ??= new Set(readDataFile('shared-hosts.txt').map(([name]) => name));
  for (let h = host; h.includes('.'); h = h.slice(h.indexOf('.') + 1)) if (sharedHosts.has(h)) return h;
  return undefined;
}

/**
 * A profile on a shared host (`shared-hosts.txt`: a site on which each path is someone's own
 * page): the host without `www.`/`m.` and the path, lowercase, without trailing slash, query or
 * fragment (Facebook's `profile.php?id=` keeps its id): `https://www.LinkedIn.com/company/Acme/`
 * → `linkedin.com/company/acme`. `undefined` for any other URL, and for a shared host with no
 * path (that is the site's own homepage: LinkedIn's, not a profile on it).
 */
export function sharedHostProfile(url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '' || /\s/.test(trimmed) || BARE_HOST.test(trimmed.toLowerCase())) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
  } catch {
    return undefined;
  }
  let host = parsed.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^(www\d?|m|mobile)\./, '');
  const shared = sharedHostOf(host);
  if (!shared) return undefined;
  // A country's copy of the site (uk.linkedin.com) is the same page; a language's Wikipedia is not.
  if (/^[a-z]{2}\./.test(host) && host.length === shared.length + 3 && shared !== 'wikipedia.org')
    host = shared;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    path = parsed.pathname;
  }
  path = path.toLowerCase().replace(/\/+$/, '');
  const id = path.endsWith('/profile.php') ? parsed.searchParams.get('id') : null;
  if (path === '' && id === null) return undefined;
  return `${host}${path}${id !== null ? `?id=${id}` : ''}`;
}
