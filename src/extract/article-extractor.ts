import type { Element } from 'domhandler';
import {
  collapseWhitespace,
  documentLanguage,
  findAllElements,
  findFirst,
  inlineText,
  resolveUrl,
  textOf,
} from './html-document.ts';
import type { PageContext } from './page-context.ts';
import { ARTICLE_TYPES } from './schema-types.ts';
import {
  dereference,
  metaContent,
  propertiesOf,
  type StructuredData,
  textValue,
  urlValue,
  values,
} from './structured-data.ts';
import { formatHttpDate, parseDate } from './value-normalizers.ts';

/** An image of an extracted object (the reference API's image record, reduced). */
export interface ExtractedImage {
  url: string;
  primary?: boolean;
  caption?: string;
  title?: string;
}

/** Fields of an `article` object (absent facts are omitted). */
export interface ArticleFields {
  title?: string;
  author?: string;
  authorUrl?: string;
  /** Publication date, RFC 7231 form ("Sun, 03 Mar 2024 09:30:00 GMT"). */
  date?: string;
  /** Last modification date, same form. */
  dateModified?: string;
  text?: string;
  html?: string;
  images?: ExtractedImage[];
  siteName?: string;
  humanLanguage?: string;
  tags?: { label: string }[];
  /** Lead/summary, from the page's description. */
  description?: string;
}

/** Removes a trailing or leading " | Site Name" / " - Site Name" from a `<title>`. */
export function stripSiteName(title: string, siteName: string | undefined): string {
  const separators = /\s+[|\-–—:·»]\s+/;
  const parts = title.split(separators);
  if (parts.length < 2) return title;
  if (siteName) {
    const site = siteName.toLowerCase();
    const kept = parts.filter((part) => part.toLowerCase() !== site);
    if (kept.length < parts.length) return kept.join(' - ');
  }
  // Without a known site name, keep the longest segment (the headline, rarely the site).
  return parts.reduce((a, b) => (b.length > a.length ? b : a));
}

/** The site name: og:site_name, the publisher, application-name, else the host without www. */
export function siteNameOf(context: PageContext, publisher?: unknown): string | undefined {
  const data = context.data;
  const fromMeta = metaContent(data, 'og:site_name', 'application-name', 'apple-mobile-web-app-title');
  if (fromMeta) return fromMeta;
  const fromPublisher = textValue(dereference(publisher, data));
  if (fromPublisher) return fromPublisher;
  // "Headline - Site Name": the part of <title> that is not the page's heading.
  const h1 = findFirst(context.page.document, (el) => el.name === 'h1');
  const heading = h1 ? inlineText(h1).toLowerCase() : undefined;
  const parts = data.title?.split(/\s+[|\-–—:·»]\s+/) ?? [];
  if (heading && parts.length === 2) {
    const other = parts.find((part) => part.toLowerCase() !== heading);
    if (other && other.length < parts.join('').length && parts.some((part) => part.toLowerCase() === heading))
      return other;
  }
  try {
    return new URL(context.page.url).hostname.replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
}

/** The page title: the structured headline, og/twitter title, the first h1, then `<title>`. */
export function pageTitle(context: PageContext, headline?: unknown, siteName?: string): string | undefined {
  const data = context.data;
  const structured = textValue(headline);
  if (structured) return structured;
  const meta = metaContent(data, 'og:title', 'twitter:title');
  if (meta) return stripSiteName(meta, siteName);
  const h1 = findFirst(context.page.document, (el) => el.name === 'h1');
  const h1Text = h1 ? inlineText(h1) : '';
  if (h1Text && h1Text.length <= 200) return h1Text;
  return data.title ? stripSiteName(data.title, siteName) : undefined;
}

function authorNames(value: unknown, data: StructuredData, base: string): { name?: string; url?: string } {
  const names: string[] = [];
  let url: string | undefined;
  for (const item of values(value)) {
    const resolved = dereference(item, data);
    const name = textValue(resolved);
    // Some sites put the author's profile URL where the name belongs.
    if (name && !/^https?:\/\//i.test(name)) names.push(name);
    url ??= urlValue(propertiesOf(resolved)?.url, base);
  }
  return { name: names.length > 0 ? [...new Set(names)].join(', ') : undefined, url };
}

const BYLINE = /\b(byline|author|writer|contributor)\b/i;

/** "By", "Par", "Von", "Por", "Di", "Door" … before a byline's name (en, fr, de, es, it, pt, nl). */
const BYLINE_PREFIX =
  /^(?:(?:written|reported|texte?|text|testo|tekst)\s*(?:by|par|von|por|di|door|de)?\s*:?|by|par|von|por|di|da|door|de)\s+/i;
/** Where a byline's name ends: a dash or bar before a date or place, a date, "on"/"le"/"am" + date. */
const BYLINE_END = /\s+[—–|·•]\s+|\s*,\s*(?=\d)|\s+(?:on|le|am|el|il|em|op)\s+(?=\d)|\s+(?=\d{1,2}[./ ])/;

/**
 * The name in a byline as pages write it: "Par Hélène Lefèvre — 12 mars 2024" → "Hélène
 * Lefèvre", "By Jane Doe | Updated March 3" → "Jane Doe", "Von Max Müller, 12.03.2024" → "Max
 * Müller".
 */
export function cleanByline(text: string): string {
  const trimmed = text.trim();
  const stripped = trimmed.replace(BYLINE_PREFIX, '');
  // "Di Maria" and "Von Trier" are names: a prefix goes only when two words remain.
  const withoutPrefix = /\S\s+\S/.test(stripped) ? stripped : trimmed;
  const end = BYLINE_END.exec(withoutPrefix);
  return (end ? withoutPrefix.slice(0, end.index) : withoutPrefix).replace(/[,;:|—–-]+$/, '').trim();
}

/** Labels before a publication date in page text (en, fr, de, es, it, pt, nl). */
const PUBLISHED_LABEL =
  /\b(?:published|posted|publi[ée]e?|veröffentlicht|publicado|pubblicato|gepubliceerd|date)(?:\s+(?:on|le|am|el|em|il|op))?\s*:?\s*([^\n]{6,40})/i;

function authorFromPage(context: PageContext): { name?: string; url?: string } {
  const data = context.data;
  const meta = metaContent(
    data,
    'author',
    'article:author',
    'dc.creator',
    'parsely-author',
    'sailthru.author',
  );
  if (meta && !/^https?:\/\//i.test(meta)) return { name: meta };
  const relAuthor = findFirst(
    context.page.document,
    (el) => (el.name === 'a' || el.name === 'link') && /\bauthor\b/i.test(el.attribs.rel ?? ''),
  );
  if (relAuthor?.name === 'a') {
    const name = inlineText(relAuthor);
    if (name) return { name, url: resolveUrl(relAuthor.attribs.href, context.baseUrl) };
  }
  const byline = findFirst(
    context.page.document,
    (el) =>
      el.attribs.itemprop === 'author' ||
      el.attribs.rel === 'author' ||
      BYLINE.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`),
  );
  if (byline) {
    const text = cleanByline(inlineText(byline));
    if (text && text.length <= 100) {
      const link = findFirst(byline, (el) => el.name === 'a');
      return { name: text, url: link ? resolveUrl(link.attribs.href, context.baseUrl) : undefined };
    }
  }
  return {};
}

function dateFromPage(context: PageContext, kind: 'published' | 'modified'): number | undefined {
  const data = context.data;
  const keys =
    kind === 'published'
      ? [
          'article:published_time',
          'og:published_time',
          'date',
          'dc.date',
          'dc.date.issued',
          'dcterms.created',
          'pubdate',
          'publish-date',
          'publishdate',
          'sailthru.date',
          'parsely-pub-date',
          'datepublished',
        ]
      : ['article:modified_time', 'og:updated_time', 'dcterms.modified', 'last-modified', 'datemodified'];
  const meta = parseDate(metaContent(data, ...keys));
  if (meta !== undefined || kind === 'modified') return meta;
  const time = findFirst(
    context.page.document,
    (el) => el.name === 'time' && (el.attribs.datetime !== undefined || el.attribs.pubdate !== undefined),
  );
  if (time) return parseDate(time.attribs.datetime ?? inlineText(time));
  // "Published: 2024-11-22", "Publié le 12 mars 2024" in the byline or the text near the top.
  const byline = findFirst(
    context.page.document,
    (el) =>
      BYLINE.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`) ||
      /\b(date|meta|dateline|published)\b/i.test(el.attribs.class ?? ''),
  );
  const bylineText = byline ? inlineText(byline) : '';
  for (const text of [bylineText, textOf(context.page.document).slice(0, 5_000)]) {
    const label = PUBLISHED_LABEL.exec(text);
    const date = label ? parseDate(label[1]) : undefined;
    if (date !== undefined) return date;
  }
  // A byline's own date: "Par Hélène Lefèvre — 12 mars 2024".
  return bylineText.length <= 120 ? parseDate(bylineText) : undefined;
}

/** Images of the page: declared ones (structured data, og:image) first, then content images. */
export function collectImages(
  context: PageContext,
  declared: unknown,
  contentImages: readonly { url: string; caption?: string; title?: string }[],
): ExtractedImage[] {
  const images: ExtractedImage[] = [];
  const seen = new Set<string>();
  const add = (image: ExtractedImage): void => {
    if (seen.has(image.url)) {
      const existing = images.find((i) => i.url === image.url);
      if (existing && image.caption && !existing.caption) existing.caption = image.caption;
      return;
    }
    seen.add(image.url);
    images.push(image);
  };
  for (const item of values(declared)) {
    const url = urlValue(item, context.baseUrl);
    const caption = textValue(propertiesOf(item)?.caption);
    if (url) add({ url, ...(caption ? { caption } : {}) });
  }
  for (const og of context.data.meta.get('og:image') ?? context.data.meta.get('og:image:url') ?? []) {
    const url = resolveUrl(og, context.baseUrl);
    if (url) add({ url });
  }
  const twitter = resolveUrl(
    metaContent(context.data, 'twitter:image', 'twitter:image:src'),
    context.baseUrl,
  );
  if (images.length === 0 && twitter) add({ url: twitter });
  for (const image of contentImages) add({ ...image });
  if (images.length > 0) images[0].primary = true;
  return images;
}

function tagsOf(context: PageContext, keywords: unknown): { label: string }[] {
  const labels = new Set<string>();
  for (const item of values(keywords)) {
    const text = textValue(item);
    if (text) for (const part of text.split(',')) if (part.trim()) labels.add(part.trim());
  }
  for (const tag of context.data.meta.get('article:tag') ?? []) if (tag) labels.add(tag);
  if (labels.size === 0) {
    for (const part of (metaContent(context.data, 'keywords', 'news_keywords') ?? '').split(',')) {
      if (part.trim()) labels.add(part.trim());
    }
  }
  return [...labels].slice(0, 20).map((label) => ({ label }));
}

/**
 * The `article` extractor: title, author, date, text, HTML, images, site name, language and
 * tags, from schema.org Article data when present, OpenGraph/meta next, and the page's main
 * content block for text, HTML and inline images.
 */
export function extractArticle(context: PageContext): ArticleFields {
  const data = context.data;
  const node = context.mainNode(ARTICLE_TYPES);
  const props = node?.properties ?? {};
  const siteName = siteNameOf(context, props.publisher);
  const title = pageTitle(context, props.headline ?? props.name, siteName);
  const content = context.content();
  const structuredAuthor = authorNames(props.author ?? props.creator, data, context.baseUrl);
  const pageAuthor = structuredAuthor.name ? {} : authorFromPage(context);
  const author = structuredAuthor.name ?? pageAuthor.name;
  const authorUrl = structuredAuthor.name ? structuredAuthor.url : pageAuthor.url;
  const published =
    parseDate(textValue(props.datePublished ?? props.dateCreated)) ?? dateFromPage(context, 'published');
  const modified = parseDate(textValue(props.dateModified)) ?? dateFromPage(context, 'modified');
  const text = content.text || textValue(props.articleBody) || '';
  const description =
    textValue(props.description) ?? metaContent(data, 'og:description', 'description', 'twitter:description');
  const language =
    documentLanguage(context.page) ??
    textValue(props.inLanguage)?.split(/[-_]/)[0]?.toLowerCase() ??
    metaContent(data, 'og:locale')?.split(/[-_]/)[0]?.toLowerCase();
  const images = collectImages(context, props.image, content.images);
  const tags = tagsOf(context, props.keywords);
  const fields: ArticleFields = {};
  if (title) fields.title = title;
  if (author) fields.author = author;
  if (authorUrl) fields.authorUrl = authorUrl;
  if (published !== undefined) fields.date = formatHttpDate(published);
  if (modified !== undefined) fields.dateModified = formatHttpDate(modified);
  if (text) fields.text = text;
  if (content.html) fields.html = content.html;
  if (images.length > 0) fields.images = images;
  if (siteName) fields.siteName = siteName;
  if (language) fields.humanLanguage = language;
  if (tags.length > 0) fields.tags = tags;
  if (description) fields.description = collapseWhitespace(description);
  return fields;
}

/** Whether any element in the page looks like a byline (used by page-type detection). */
export function hasByline(context: PageContext): boolean {
  return (
    findAllElements(context.page.document, (el: Element) => BYLINE.test(el.attribs.class ?? '')).length > 0 ||
    metaContent(context.data, 'author', 'article:author') !== undefined
  );
}

/** The page's publication date (structured data, meta, `<time>`, a labelled or byline date), epoch ms. */
export function extractArticleDate(context: PageContext): number | undefined {
  const props = context.mainNode(ARTICLE_TYPES)?.properties ?? {};
  return parseDate(textValue(props.datePublished ?? props.dateCreated)) ?? dateFromPage(context, 'published');
}
