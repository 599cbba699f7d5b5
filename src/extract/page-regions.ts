/**
 * The parts of a page that belong to the site rather than to what the page is about: the
 * masthead, navigation, footer, cookie banners, newsletter boxes, sidebars, comments and
 * "related" blocks. Their contacts (the newsroom's phone, the shop's e-mail, the footer's social
 * links) are the site's: crediting them to each person or company the site describes is what
 * made crawled people merge (issue 24 §1). Pure function of the DOM.
 */
import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { elementIndex } from './element-index.ts';
import type { HtmlPage } from './html-document.ts';

/** Tags whose element is site chrome wherever it stands (HTML's navigation and sidebar). */
const CHROME_TAGS = new Set(['nav', 'aside', 'dialog']);
/** Roles of site chrome (WAI-ARIA landmarks of the site, not of the content). */
const CHROME_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'dialog',
  'alertdialog',
]);
/** Class or id names of site chrome. */
const CHROME_NAMES =
  /(^|[\s_-])(site-?footer|footer|site-?header|masthead|navbar|nav|menu|breadcrumbs?|cookies?|consent|gdpr|newsletter|subscribe|sidebar|comments?|disqus|related|recommended|more-stories|share|social-share|social-links|promo|advert|ads?)($|[\s_-])/i;
/** Sectioning content: a header or footer inside one belongs to it, not to the site (HTML §4.3). */
const SECTIONING = new Set(['article', 'section', 'main', 'aside', 'nav']);

function isWithinSectioning(el: Element): boolean {
  for (let node = el.parent; node && isTag(node); node = node.parent) {
    if (SECTIONING.has(node.name)) return true;
  }
  return false;
}

/** Whether `el` itself starts a block of site chrome. */
export function isChromeElement(el: Element): boolean {
  if (CHROME_TAGS.has(el.name)) return true;
  if (el.name === 'header' || el.name === 'footer') return !isWithinSectioning(el);
  if (el.name === 'body' || el.name === 'html' || el.name === 'main' || el.name === 'article') return false;
  const role = el.attribs.role;
  if (role !== undefined && CHROME_ROLES.has(role)) return true;
  const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
  return names.trim() !== '' && CHROME_NAMES.test(names);
}

/** The page's site chrome: the outermost chrome elements (their subtrees are chrome too). */
export function siteChrome(page: HtmlPage): ReadonlySet<Element> {
  const chrome = new Set<Element>();
  for (const el of elementIndex(page.document).elements) {
    if (!isChromeElement(el)) continue;
    if (!insideAny(el, chrome)) chrome.add(el);
  }
  return chrome;
}

/** Whether `node` is one of `roots` or inside one of them. */
export function insideAny(node: AnyNode, roots: ReadonlySet<AnyNode>): boolean {
  if (roots.size === 0) return false;
  for (let current: AnyNode | null = node; current; current = current.parent) {
    if (roots.has(current)) return true;
  }
  return false;
}
