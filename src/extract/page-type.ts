import { extractArticleDate } from './article-extractor.ts';
import { findAllElements, findFirst, inlineText } from './html-document.ts';
import { collectContactFacts } from './contact-facts.ts';
import { insideAny, siteChrome } from './page-regions.ts';
import { isTeamPage } from './team-extractor.ts';
import type { PageContext } from './page-context.ts';
import {
  ARTICLE_TYPES,
  ORGANIZATION_TYPES,
  PAGE_TYPES,
  PERSON_TYPES,
  PRODUCT_TYPES,
} from './schema-types.ts';
import { metaContent, type SchemaNode, typesOfValue, values } from './structured-data.ts';
import { parsePrice } from './value-normalizers.ts';

/**
 * Page types `analyze` can detect: those of the built-in extractors, `team` (several people:
 * one person object each), `listing` (an index of articles or products: no object), and `other`
 * when nothing fits.
 */
export type PageType = 'article' | 'product' | 'organization' | 'person' | 'team' | 'listing' | 'other';

/** Paragraph characters above which a page without other signals reads as an article. */
const ARTICLE_TEXT_CHARS = 1200;
/**
 * The same, for a page that also names an author or a publication date: a short news item
 * ("brève") of a few sentences is an article too.
 */
const ARTICLE_TEXT_CHARS_WITH_BYLINE = 200;
/** Schema.org types of index pages. */
const LISTING_TYPES = new Set(['ItemList', 'CollectionPage', 'SearchResultsPage', 'OfferCatalog']);

/**
 * Whether the page is an index of other pages: declared as one, or its content is mostly a run
 * of teaser links (six or more links of headline length) with little prose between them.
 */
function looksLikeListing(
  context: PageContext,
  pageTypes: readonly string[],
  types: readonly string[],
): boolean {
  if ([...pageTypes, ...types].some((t) => LISTING_TYPES.has(t))) return true;
  const teasers = findAllElements(context.page.document, (el) => {
    if (el.name !== 'a') return false;
    const text = inlineText(el);
    return text.length >= 20 && text.length <= 160 && /\s/.test(text);
  }).filter((a) => !insideAny(a, siteChrome(context.page)));
  if (teasers.length < 6) return false;
  // Headlines make a good part of the content's text (an article's text is its own).
  const teaserChars = teasers.reduce((sum, a) => sum + inlineText(a).length, 0);
  return teaserChars >= 0.3 * Math.max(1, context.content().text.length);
}

/** Whether the page names an author or a publication time, as articles do. */
function hasArticleMarkers(context: PageContext): boolean {
  const data = context.data;
  if (metaContent(data, 'author', 'article:author', 'article:published_time', 'date', 'dc.date')) return true;
  if (extractArticleDate(context) !== undefined) return true;
  return (
    findAllElements(
      context.page.document,
      (el) =>
        (el.name === 'time' && el.attribs.datetime !== undefined) ||
        /\b(byline|author)\b/i.test(el.attribs.class ?? '') ||
        /\bauthor\b/i.test(el.attribs.rel ?? ''),
    ).length > 0
  );
}

/** Types a page declares about itself: top-level nodes and the mainEntity of its WebPage nodes. */
function declaredTypes(nodes: readonly SchemaNode[]): { types: string[]; pageTypes: string[] } {
  const types: string[] = [];
  const pageTypes: string[] = [];
  for (const node of nodes) {
    if (!node.topLevel) continue;
    const isPage = node['@type'].some((t) => PAGE_TYPES.has(t));
    if (isPage) {
      pageTypes.push(...node['@type']);
      for (const main of values(node.properties.mainEntity)) types.push(...typesOfValue(main));
    } else {
      types.push(...node['@type']);
    }
  }
  return { types, pageTypes };
}

function looksLikeProduct(context: PageContext): boolean {
  let price = false;
  let buy = false;
  for (const el of findAllElements(
    context.page.document,
    (e) =>
      e.name === 'button' ||
      /price|availability|stock/i.test(`${e.attribs.class ?? ''} ${e.attribs.id ?? ''}`) ||
      e.attribs.itemprop === 'price',
  )) {
    const text = inlineText(el);
    if (text.length > 60) continue;
    if (el.name === 'button' || el.attribs.type === 'submit') {
      if (/\b(add to (cart|basket|bag)|buy (it )?now)\b/i.test(text)) buy = true;
    } else if (
      /\b(out of stock|sold out|in stock|épuisé|ausverkauft|agotado|esaurito|esgotado|uitverkocht)\b/i.test(
        text,
      )
    ) {
      buy = true;
    } else {
      const parsed = parsePrice(text);
      if (parsed && (parsed.currency || parsed.symbol)) price = true;
    }
    if (price && buy) return true;
  }
  return false;
}

/** Whether `url` is a site's home, about, contact, company or team page (the site speaking of itself). */
export function isEntryPath(url: string): boolean {
  try {
    const path = new URL(url).pathname.toLowerCase();
    return (
      path === '/' ||
      path === '' ||
      /\b(about|about-us|contact|contact-us|company|impressum|imprint|who-we-are|qui-sommes-nous|a-propos|ueber-uns|uber-uns|chi-siamo|quienes-somos|sobre|over-ons)\b/.test(
        path,
      )
    );
  } catch {
    return false;
  }
}

/**
 * Decides what a page is about, strongest evidence first: declared schema.org types (Product,
 * then Article, then Person/ProfilePage), OpenGraph `og:type`, an Organization declared on a
 * home/about/contact page, then the page itself (a price with a buy button; a long main text),
 * then any Organization or Person declaration. `other` when nothing fits.
 */
export function detectPageType(context: PageContext): PageType {
  const data = context.data;
  const { types, pageTypes } = declaredTypes(data.nodes);
  const has = (family: { has(type: string): boolean }) => types.some((t) => family.has(t));
  if (has(PRODUCT_TYPES)) return 'product';
  if (has(ARTICLE_TYPES)) return 'article';
  if (pageTypes.includes('ProfilePage') || has(PERSON_TYPES)) return 'person';

  const ogType = metaContent(data, 'og:type')?.toLowerCase();
  if (ogType) {
    if (/^(og:)?product(\.item|\.group)?$/.test(ogType)) return 'product';
    if (/^(article|blog|news|newsarticle)/.test(ogType)) return 'article';
    if (ogType === 'profile') return 'person';
  }
  const organization =
    has(ORGANIZATION_TYPES) || pageTypes.includes('AboutPage') || pageTypes.includes('ContactPage');
  if (isTeamPage(context)) return 'team';
  if (organization && isEntryPath(context.page.url)) return 'organization';
  if (looksLikeListing(context, pageTypes, types)) return 'listing';
  if (looksLikeProduct(context)) return 'product';
  const paragraphChars = context.content().paragraphChars;
  if (paragraphChars >= ARTICLE_TEXT_CHARS) return 'article';
  if (paragraphChars >= ARTICLE_TEXT_CHARS_WITH_BYLINE && hasArticleMarkers(context)) return 'article';
  if (organization) return 'organization';
  // A short page under a heading whose own content gives a phone or an e-mail: a company's page
  // in a directory, a shop's contact page (the site's footer contacts do not count).
  if (pageHeading(context) && hasOwnContacts(context)) return 'organization';
  return 'other';
}

/** The page's main heading (its first `<h1>`), when it is short enough to be a name. */
export function pageHeading(context: PageContext): string | undefined {
  const h1 = findFirst(context.page.document, (el) => el.name === 'h1');
  const text = h1 ? inlineText(h1) : '';
  return text && text.length <= 120 ? text : undefined;
}

/** Whether the page's own content (not its site chrome) gives a phone number or an e-mail. */
function hasOwnContacts(context: PageContext): boolean {
  const facts = collectContactFacts(context.page);
  return facts.phoneNumbers.length > 0 || facts.emailAddresses.length > 0;
}
