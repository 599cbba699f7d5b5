import type { ContactString, Location, PhoneNumber } from '../kg/index.ts';
import { collapseWhitespace, findAllElements, type HtmlPage, resolveUrl, textOf } from './html-document.ts';
import { insideAny, siteChrome } from './page-regions.ts';
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

/** Contacts found in one region of a page. */
export interface RegionContacts {
  readonly phoneNumbers: readonly PhoneNumber[];
  readonly emailAddresses: readonly ContactString[];
  /** Addresses written in `<address>` elements. */
  readonly addresses: readonly Location[];
  readonly socialProfiles: readonly SocialProfile[];
}

/**
 * Contact facts found on a page (not only in structured data): those of the page's own content,
 * and apart, those of its site chrome (header, navigation, footer, sidebars, comments: see
 * `page-regions.ts`), which belong to the site, not to whom the page is about.
 */
export interface ContactFacts extends RegionContacts {
  /** The site chrome's contacts (the footer's phone, the newsroom's e-mail, social links). */
  readonly siteWide: RegionContacts;
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

/** Contacts of one region, as they are collected. */
class RegionCollector {
  readonly phones = new Map<string, PhoneNumber>();
  readonly emails = new Set<string>();
  readonly addresses: Location[] = [];
  readonly social = new Map<string, SocialProfile>();

  addPhone(phone: PhoneNumber | undefined): void {
    if (phone && !this.phones.has(phone.digits ?? phone.string))
      this.phones.set(phone.digits ?? phone.string, phone);
  }

  /** E-mails and labelled phone numbers written as text. */
  addText(text: string, country: string | undefined): void {
    for (const match of text.matchAll(EMAIL)) {
      const email = normalizeEmail(match[0]);
      if (email) this.emails.add(email);
    }
    // Phone numbers written as text after a label ("Phone: +1 415 555 0100", "Tél. :", "Telefon").
    for (const match of text.matchAll(PHONE_LABEL)) {
      if (/fax/i.test(match[0].slice(0, 4))) continue;
      this.addPhone(toPhoneNumber(match[1], country));
    }
  }

  result(): RegionContacts {
    return {
      phoneNumbers: [...this.phones.values()],
      emailAddresses: [...this.emails].map((contactString) => ({ contactString })),
      addresses: this.addresses,
      socialProfiles: [...this.social.values()],
    };
  }
}

const PHONE_LABEL =
  /\b(?:phone|tel|telephone|t[ée]l[ée]phone|t[ée]l|telefon|tel[ée]fono|telefone|call us|fax)\b\.?[ \t]*:?[ \t]*(\+?[\d(][\d \t().-]{5,}\d)/gi;

/**
 * Collects contact facts: `tel:` and `mailto:` links, e-mail addresses and labelled phone
 * numbers in the text, `<address>` blocks, links to social profiles, each credited to the page's
 * own content or to its site chrome (`page-regions.ts`); and a logo. Phones are parsed with the
 * country suggested by the page's host when they are written nationally.
 */
export function collectContactFacts(page: HtmlPage): ContactFacts {
  let host: string | undefined;
  try {
    host = new URL(page.url).hostname;
  } catch {
    host = undefined;
  }
  const country = countryOfHost(host);
  const chrome = siteChrome(page);
  const main = new RegionCollector();
  const site = new RegionCollector();
  let headerLogo: string | undefined;
  let anyLogo: string | undefined;

  const elements = findAllElements(page.document, (el) => ['a', 'address', 'img', 'link'].includes(el.name));
  for (const el of elements) {
    const region = el.name === 'a' || el.name === 'address' ? (insideAny(el, chrome) ? site : main) : main;
    if (el.name === 'a') {
      const href = el.attribs.href?.trim() ?? '';
      if (/^tel:/i.test(href)) {
        region.addPhone(
          toPhoneNumber(decodeURIComponent(href.slice(4)).replace(/[^\d+()./ -]/g, ''), country),
        );
        continue;
      }
      if (/^mailto:/i.test(href)) {
        const email = normalizeEmail(decodeURIComponent(href));
        if (email) region.emails.add(email);
        continue;
      }
      const url = resolveUrl(href, page.baseUrl);
      const network = url ? socialNetworkOf(url) : undefined;
      if (url && network && !region.social.has(network)) {
        const uri = kgUri(url);
        if (uri) region.social.set(network, { network, url, uri });
      }
    } else if (el.name === 'address') {
      const lines = textOf(el).split('\n');
      const address = collapseWhitespace(
        lines.filter((line) => !HAS_EMAIL.test(line) && !/^\+?[\d\s().-]{6,}$/.test(line)).join(', '),
      );
      if (address) region.addresses.push({ address });
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
  // Text of each region (obfuscation aside, the most common way to publish addresses).
  main.addText(textOf(page.document, { exclude: chrome }), country);
  for (const root of chrome) site.addText(textOf(root), country);
  return { ...main.result(), siteWide: withoutShared(site.result(), main), logo: headerLogo ?? anyLogo };
}

/** The site's contacts that the page's own content does not state too. */
function withoutShared(site: RegionContacts, main: RegionCollector): RegionContacts {
  return {
    phoneNumbers: site.phoneNumbers.filter((p) => !main.phones.has(p.digits ?? p.string)),
    emailAddresses: site.emailAddresses.filter((e) => !main.emails.has(e.contactString)),
    addresses: site.addresses,
    socialProfiles: site.socialProfiles.filter((p) => main.social.get(p.network)?.uri !== p.uri),
  };
}
