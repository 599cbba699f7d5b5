import type { AnyNode, Element, ParentNode } from 'domhandler';
import { hasChildren, isTag, isText } from 'domhandler';
import { type HtmlPage, findFirst, inlineText, resolveUrl, serializeHtml, textOf } from './html-document.ts';

/**
 * The main content of a page, found with a Readability-style score: paragraphs vote for their
 * ancestors by length and commas, class/id names push candidates up or down, link-heavy blocks
 * are penalised. Pure function of the DOM; the DOM is not modified.
 */
export interface ContentBlock {
  /** The element(s) holding the content, in document order; empty when no text was found. */
  readonly nodes: readonly Element[];
  /** Plain text: one paragraph per line. */
  readonly text: string;
  /** Cleaned HTML: structural tags only, links and images absolute. */
  readonly html: string;
  /** Images inside the content, in order, with their figure captions. */
  readonly images: readonly { url: string; caption?: string; title?: string }[];
  /** Number of characters of paragraph text scored (a measure of how article-like the page is). */
  readonly paragraphChars: number;
}

/** Never content, whatever their text. */
const SKIP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'aside',
  'footer',
  'form',
  'iframe',
  'svg',
  'button',
  'select',
  'input',
  'textarea',
  'object',
  'embed',
  'menu',
  'dialog',
  'head',
]);
const UNLIKELY =
  /banner|breadcrumb|combx|comment|community|cookie|consent|disqus|extra|foot|header|legend|menu|modal|newsletter|pager|pagination|popup|promo|related|remark|replies|rss|share|shoutbox|sidebar|skyscraper|social|sponsor|subscribe|tags|tool|widget|^ad-|-ad$|\bads?\b|advert/i;
const LIKELY = /and|article|body|column|content|main|shadow|story|entry|post|text/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE =
  /hidden|^hid$|hid$|hid |^hid |banner|combx|comment|com-|contact|foot|footer|footnote|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tool|widget/i;
/** Bylines, datelines and similar metadata blocks inside the content. */
const METADATA = /(^|[\s_-])(meta|byline|dateline|author|date|timestamp|posted|published)([\s_-]|$)/i;
/** Elements whose text votes for their ancestors. */
const PARAGRAPH_TAGS = new Set(['p', 'pre', 'blockquote', 'td', 'li', 'dd']);
/** Tags kept in the cleaned HTML; anything else is unwrapped (its children kept). */
const KEPT_TAGS = new Set([
  'p',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'code',
  'a',
  'strong',
  'b',
  'em',
  'i',
  'u',
  'br',
  'figure',
  'img',
  'figcaption',
  'table',
  'thead',
  'tbody',
  'tr',
  'td',
  'th',
  'dl',
  'dt',
  'dd',
  'sub',
  'sup',
  'hr',
]);
const KEPT_ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'colspan', 'rowspan']);

function classAndId(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

/** Whether an element (and its subtree) is boilerplate by tag, role or class/id name. */
export function isBoilerplate(el: Element): boolean {
  if (SKIP_TAGS.has(el.name)) return true;
  const role = el.attribs.role;
  if (role === 'navigation' || role === 'complementary' || role === 'contentinfo' || role === 'banner')
    return true;
  if (el.attribs.hidden !== undefined || /display:\s*none/i.test(el.attribs.style ?? '')) return true;
  if (el.name === 'body' || el.name === 'article' || el.name === 'main' || el.name === 'html') return false;
  const names = classAndId(el);
  return names.trim() !== '' && UNLIKELY.test(names) && !LIKELY.test(names);
}

function classWeight(el: Element): number {
  const names = classAndId(el);
  let weight = 0;
  if (NEGATIVE.test(el.attribs.class ?? '')) weight -= 25;
  if (POSITIVE.test(el.attribs.class ?? '')) weight += 25;
  if (NEGATIVE.test(el.attribs.id ?? '')) weight -= 25;
  if (POSITIVE.test(el.attribs.id ?? '')) weight += 25;
  return names.trim() === '' ? 0 : weight;
}

function tagWeight(el: Element): number {
  switch (el.name) {
    case 'article':
      return 15;
    case 'main':
    case 'div':
      return 5;
    case 'section':
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
      return -3;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      return -5;
    default:
      return 0;
  }
}

interface Lengths {
  text: number;
  link: number;
  /** Commas (Latin and CJK) in the text: a cheap sign of prose. */
  commas: number;
}

/** Commas (Latin and CJK) in `text`; native substring search beats a loop over every character. */
function countCommas(text: string): number {
  let commas = 0;
  for (const comma of COMMAS) {
    for (let at = text.indexOf(comma); at >= 0; at = text.indexOf(comma, at + 1)) commas++;
  }
  return commas;
}
const COMMAS = [',', '\uff0c', '\u3001'];

/** Finds the main content of `page`. Its `<h1>` (the page title) is left out of text and HTML. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one readability pass whose phases (measure, score, pick, gather siblings, clean) share the lengths, scores and skipped-node maps its first walk builds; split, each phase would take all of them
export function findContentBlock(page: HtmlPage): ContentBlock {
  const body = findFirst(page.document, (el) => el.name === 'body') ?? page.document;
  const skipped = new Set<AnyNode>();
  const lengths = new Map<AnyNode, Lengths>();
  const paragraphs: Element[] = [];

  // One post-order pass: text and link-text lengths of every element, boilerplate subtrees
  // marked, paragraph-like elements collected. Text children are added in place (most nodes
  // are text; no record per text node).
  const measure = (node: ParentNode, inLink: boolean): Lengths => {
    const link = inLink || (isTag(node) && node.name === 'a');
    const total = { text: 0, link: 0, commas: 0 };
    for (const child of node.children) {
      if (isText(child)) {
        const length = child.data.trim().length;
        if (length === 0) continue;
        total.text += length;
        if (link) total.link += length;
        total.commas += countCommas(child.data);
        continue;
      }
      if (!hasChildren(child)) continue;
      if (isTag(child) && isBoilerplate(child)) {
        skipped.add(child);
        continue;
      }
      const sub = measure(child, link);
      total.text += sub.text;
      total.link += sub.link;
      total.commas += sub.commas;
    }
    if (isTag(node)) {
      lengths.set(node, total);
      if (PARAGRAPH_TAGS.has(node.name) || (node.name === 'div' && hasDirectText(node)))
        paragraphs.push(node);
    }
    return total;
  };
  measure(body, false);

  const scores = new Map<Element, number>();
  const initial = (el: Element): number => {
    let score = scores.get(el);
    if (score === undefined) {
      score = tagWeight(el) + classWeight(el);
      scores.set(el, score);
    }
    return score;
  };
  let paragraphChars = 0;
  for (const paragraph of paragraphs) {
    const measured = lengths.get(paragraph);
    const length = measured?.text ?? 0;
    if (length < 25) continue;
    const commas = measured?.commas ?? 0;
    const score = 1 + commas + Math.min(3, Math.floor(length / 100));
    paragraphChars += length;
    let ancestor = paragraph.parent;
    for (let level = 0; level < 3 && ancestor && isTag(ancestor); level++) {
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      scores.set(ancestor, initial(ancestor) + score / divider);
      ancestor = ancestor.parent;
    }
  }

  let top: Element | undefined;
  let topScore = 0;
  for (const [candidate, score] of scores) {
    const measured = lengths.get(candidate);
    if (!measured || measured.text === 0) continue;
    const final = score * (1 - measured.link / measured.text);
    scores.set(candidate, final);
    if (final > topScore) {
      topScore = final;
      top = candidate;
    }
  }
  if (!top) return { nodes: [], text: '', html: '', images: [], paragraphChars };

  // Siblings that score well (or are substantial, link-poor paragraphs) belong to the content.
  const nodes: Element[] = [];
  const parent = top.parent;
  if (parent && isTag(parent)) {
    const threshold = Math.max(10, topScore * 0.2);
    for (const sibling of parent.children) {
      if (!isTag(sibling) || skipped.has(sibling)) continue;
      if (sibling === top) {
        nodes.push(sibling);
        continue;
      }
      const measured = lengths.get(sibling);
      const score = scores.get(sibling) ?? 0;
      const linkDensity = measured && measured.text > 0 ? measured.link / measured.text : 1;
      if (score >= threshold || (sibling.name === 'p' && (measured?.text ?? 0) > 80 && linkDensity < 0.25)) {
        nodes.push(sibling);
      }
    }
  } else {
    nodes.push(top);
  }

  // Inside the content: drop boilerplate, link lists and the title heading.
  const exclude = new Set<AnyNode>(skipped);
  const images: { url: string; caption?: string; title?: string }[] = [];
  const seenImages = new Set<string>();
  // Each <img> is looked at twice (collected here, kept or dropped in the HTML below).
  const imageOf = new Map<Element, ReturnType<typeof contentImage>>();
  const image = (img: Element): ReturnType<typeof contentImage> => {
    if (!imageOf.has(img)) imageOf.set(img, contentImage(img, page));
    return imageOf.get(img);
  };
  const inspect = (node: AnyNode): void => {
    if (!isTag(node) || exclude.has(node)) return;
    const measured = lengths.get(node);
    if (
      (node.name === 'ul' || node.name === 'ol' || node.name === 'div') &&
      measured &&
      measured.text > 0 &&
      measured.link / measured.text > 0.5 &&
      measured.text < 1000
    ) {
      exclude.add(node);
      return;
    }
    // A real heading is short; an "h1" holding the page (unclosed in broken markup) is not one.
    if ((node.name === 'h1' || METADATA.test(classAndId(node))) && (measured?.text ?? 0) < 200) {
      exclude.add(node);
      return;
    }
    if (node.name === 'figcaption') exclude.add(node);
    if (node.name === 'img') {
      const found = image(node);
      if (found && !seenImages.has(found.url)) {
        seenImages.add(found.url);
        images.push(found);
      }
    }
    for (const child of node.children) inspect(child);
  };
  for (const node of nodes) inspect(node);

  const text = nodes
    .map((node) => textOf(node, { exclude }))
    .filter(Boolean)
    .join('\n');
  const rewriteAttribute = (name: string, value: string): string | undefined =>
    name === 'href' || name === 'src' ? resolveUrl(value, page.baseUrl) : value;
  const html = nodes
    .map((node) =>
      serializeHtml(
        node,
        {
          exclude: new Set([...exclude].filter((n) => !(isTag(n) && n.name === 'figcaption'))),
          keepAttributes: KEPT_ATTRIBUTES,
          rewriteAttribute,
          unwrapElement: (el) => !KEPT_TAGS.has(el.name),
          dropElement: (el) => el.name === 'img' && image(el) === undefined,
        },
        true,
      ),
    )
    .join('');
  return { nodes, text, html: collapseBlankLines(html).trim(), images, paragraphChars };
}

/**
 * `text.replace(/\n\s*\n/g, '\n')`: a newline followed by whitespace holding more newlines
 * becomes one newline (whatever follows the last of them stays). Newlines are found with
 * indexOf, which on a page of markup is several times faster than the regular expression's
 * scan of every character.
 */
export function collapseBlankLines(text: string): string {
  let out = '';
  let copied = 0;
  let newline = text.indexOf('\n');
  while (newline >= 0) {
    let end = newline + 1;
    while (end < text.length && WHITESPACE.test(text[end])) end++;
    const last = text.lastIndexOf('\n', end - 1);
    if (last > newline) {
      out += `${text.slice(copied, newline)}\n`;
      copied = last + 1;
    }
    newline = text.indexOf('\n', last + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}
const WHITESPACE = /\s/;

function hasDirectText(el: Element): boolean {
  let length = 0;
  for (const child of el.children) if (isText(child)) length += child.data.trim().length;
  return length >= 25;
}

/** An `<img>` as a content image: absolute URL (lazy-load attributes too), figure caption, alt. */
function contentImage(
  img: Element,
  page: HtmlPage,
): { url: string; caption?: string; title?: string } | undefined {
  const raw =
    img.attribs.src && !img.attribs.src.startsWith('data:')
      ? img.attribs.src
      : (img.attribs['data-src'] ?? img.attribs['data-lazy-src'] ?? img.attribs.srcset?.split(/\s+/)[0]);
  const url = resolveUrl(raw, page.baseUrl);
  if (!url || url.startsWith('data:')) return undefined;
  // Tracking pixels and spacers.
  if (Number(img.attribs.width) <= 2 || Number(img.attribs.height) <= 2) return undefined;
  let figure: AnyNode | null = img.parent;
  for (let depth = 0; figure && depth < 3 && !(isTag(figure) && figure.name === 'figure'); depth++) {
    figure = figure.parent;
  }
  const captionEl = figure && isTag(figure) ? findFirst(figure, (el) => el.name === 'figcaption') : undefined;
  const caption = captionEl ? inlineText(captionEl) : undefined;
  const title = (img.attribs.alt ?? img.attribs.title)?.trim();
  return { url, ...(caption ? { caption } : {}), ...(title ? { title } : {}) };
}
