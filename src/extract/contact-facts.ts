import type { ContactString, Location, PhoneNumber } from '../kg/index.ts';
import { collapseWhitespace, findAllElements, type HtmlPage, resolveUrl, textOf } from './html-document.ts';
import { countryOfHost, toPhoneNumber } from './value-normalizers.ts';

/** A link to a profile on a social or reference site. */
export interface SocialProfile {
  /** `linkedIn`, `twitter`, `facebook`, `instagram`, `github`, `youtube`, `crunchbase`, `wikipedia`, `angellist`, `tiktok`, `pinterest`. */
  readonly network: string;
  /** The link as found (absolute). */
  readonly url: string;
  /** The knowledge graph's URI form: host without `www.` plus path, no scheme, no trailing slash. */
  readonly uri: string;
}

/** Contact facts found anywhere on a page (not only in structured data). */
export interface ContactFacts {
  readonly phoneNumbers: readonly PhoneNumber[];
  readonly emailAddresses: readonly ContactString[];
  /** Addresses written in `<address>` elements. */
  readonly addresses: readonly Location[];
  readonly socialProfiles: readonly SocialProfile[];
  /** A logo image URL: an `<img>` named like a logo (in the header first), else a touch icon. */
  readonly logo: string | undefined;
}

/** Which network a URL belongs to, when it is a profile (not a share button or a post). */
export function socialNetworkOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.toLowerCase().replace(/^(www|m|mobile|[a-z]{2})\./, '');
  const path = parsed.pathname.replace(/\/+$/, '');
  const first = path.split('/')[1]?.toLowerCase() ?? '';
  if (!first) return undefined;
  const sharing = /^(share|sharer|sharer\.php|intent|dialog|plugins|home|hashtag|search|login|signup)$/;
  if (sharing.test(first)) return undefined;
  if (host === 'linkedin.com') return /^(company|in|school|showcase)$/.test(first) ? 'linkedIn' : undefined;
  if (host === 'twitter.com' || host === 'x.com') return path.split('/').length === 2 ? 'twitter' : undefined;
  if (host === 'facebook.com' || host === 'fb.com') return 'facebook';
  if (host === 'instagram.com') return first === 'p' ? undefined : 'instagram';
  if (host === 'github.com') return 'github';
  if (host === 'youtube.com') return /^(channel|c|user|@.+)$/.test(first) ? 'youtube' : undefined;
  if (host === 'crunchbase.com')
    return /^(organization|person|company)$/.test(first) ? 'crunchbase' : undefined;
  if (host === 'wikipedia.org' && first === 'wiki') return 'wikipedia';
  if (host === 'angel.co' || host === 'wellfound.com') return 'angellist';
  if (host === 'tiktok.com') return first.startsWith('@') ? 'tiktok' : undefined;
  if (host === 'pinterest.com') return 'pinterest';
  return undefined;
}

/** The knowledge graph's URI form of a URL: `linkedin.com/company/acme`. */
export function kgUri(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
    const path = parsed.pathname.replace(/\/+$/, '');
    return `${host}${path}`;
  } catch {
    return undefined;
  }
}

/** The knowledge graph's homepage form of a URL: host, lowercased, without `www.`. */
export function kgHomepage(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}/g;
const HAS_EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}/;
/** File names that look like e-mail addresses (`logo@2x.png`). */
const NOT_EMAIL = /\.(png|jpe?g|gif|svg|webp|css|js)$/i;

/** A normalised e-mail address, or `undefined` when `raw` is not one. */
export function normalizeEmail(raw: string): string | undefined {
  const email = raw
    .trim()
    .replace(/^mailto:/i, '')
    .split('?')[0]
    .trim();
  if (!/^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}$/.test(email) || NOT_EMAIL.test(email))
    return undefined;
  return email.toLowerCase();
}

/**
 * Collects contact facts from the whole page: `tel:` and `mailto:` links, e-mail addresses in
 * the text, `<address>` blocks, links to social profiles and a logo. Phones are parsed with
 * the country suggested by the page's host when they are written nationally.
 */
export function collectContactFacts(page: HtmlPage): ContactFacts {
  let host: string | undefined;
  try {
    host = new URL(page.url).hostname;
  } catch {
    host = undefined;
  }
  const country = countryOfHost(host);
  const phones = new Map<string, PhoneNumber>();
  const emails = new Set<string>();
  const addresses: Location[] = [];
  const social = new Map<string, SocialProfile>();
  let headerLogo: string | undefined;
  let anyLogo: string | undefined;

  const elements = findAllElements(page.document, (el) => ['a', 'address', 'img', 'link'].includes(el.name));
  for (const el of elements) {
    if (el.name === 'a') {
      const href = el.attribs.href?.trim() ?? '';
      if (/^tel:/i.test(href)) {
        const phone = toPhoneNumber(decodeURIComponent(href.slice(4)).replace(/[^\d+()./ -]/g, ''), country);
        if (phone) phones.set(phone.digits ?? phone.string, phone);
        continue;
      }
      if (/^mailto:/i.test(href)) {
        const email = normalizeEmail(decodeURIComponent(href));
        if (email) emails.add(email);
        continue;
      }
      const url = resolveUrl(href, page.baseUrl);
      const network = url ? socialNetworkOf(url) : undefined;
      if (url && network && !social.has(network)) {
        const uri = kgUri(url);
        if (uri) social.set(network, { network, url, uri });
      }
    } else if (el.name === 'address') {
      const lines = textOf(el).split('\n');
      const address = collapseWhitespace(
        lines.filter((line) => !HAS_EMAIL.test(line) && !/^\+?[\d\s().-]{6,}$/.test(line)).join(', '),
      );
      if (address) addresses.push({ address });
    } else if (el.name === 'img') {
      const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${el.attribs.alt ?? ''} ${el.attribs.src ?? ''}`;
      if (!/logo/i.test(names)) continue;
      const url = resolveUrl(el.attribs.src, page.baseUrl);
      if (!url || url.startsWith('data:')) continue;
      anyLogo ??= url;
      let ancestor = el.parent;
      while (ancestor && !headerLogo) {
        if (
          ancestor.type === 'tag' &&
          (ancestor.name === 'header' || /header|brand|masthead/i.test(ancestor.attribs.class ?? ''))
        ) {
          headerLogo = url;
        }
        ancestor = ancestor.parent;
      }
    } else if (el.name === 'link') {
      const rel = (el.attribs.rel ?? '').toLowerCase();
      if (rel.includes('apple-touch-icon')) anyLogo ??= resolveUrl(el.attribs.href, page.baseUrl);
    }
  }

  // E-mail addresses written as text (obfuscation aside, the most common way to publish them).
  const bodyText = textOf(page.document);
  for (const match of bodyText.matchAll(EMAIL)) {
    const email = normalizeEmail(match[0]);
    if (email) emails.add(email);
  }
  // Phone numbers written as text after a label ("Phone: +1 415 555 0100").
  for (const match of bodyText.matchAll(
    /\b(?:phone|tel|telephone|call us|fax)\b\.?[ \t]*:?[ \t]*(\+?[\d(][\d \t().-]{5,}\d)/gi,
  )) {
    if (/fax/i.test(match[0].slice(0, 4))) continue;
    const phone = toPhoneNumber(match[1], country);
    if (phone && !phones.has(phone.digits ?? phone.string)) phones.set(phone.digits ?? phone.string, phone);
  }

  return {
    phoneNumbers: [...phones.values()],
    emailAddresses: [...emails].map((contactString) => ({ contactString })),
    addresses,
    socialProfiles: [...social.values()],
    logo: headerLogo ?? anyLogo,
  };
}
