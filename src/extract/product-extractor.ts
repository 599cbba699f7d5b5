import type { Element } from 'domhandler';
import { type ExtractedImage, collectImages, pageTitle, siteNameOf } from './article-extractor.ts';
import {
  collapseWhitespace,
  findAllElements,
  findFirst,
  inlineText,
  resolveUrl,
  textOf,
} from './html-document.ts';
import type { PageContext } from './page-context.ts';
import { PRODUCT_TYPES } from './schema-types.ts';
import {
  dereference,
  metaContent,
  propertiesOf,
  type StructuredData,
  textValue,
  typesOfValue,
  values,
} from './structured-data.ts';
import { normalizeAvailability, type Price, parsePrice } from './value-normalizers.ts';

/** A price as the reference API details it. */
export interface PriceDetails {
  amount: number;
  text: string;
  symbol?: string;
}

/** One offer of a product. */
export interface ProductOffer {
  price: number;
  currency?: string;
  /** schema.org availability name (`InStock`, `OutOfStock`, ...). */
  availability?: string;
  url?: string;
  sku?: string;
  seller?: string;
  priceValidUntil?: string;
  /** For aggregate offers: the highest price. */
  highPrice?: number;
}

/** Fields of a `product` object (absent facts are omitted). */
export interface ProductFields {
  title?: string;
  text?: string;
  brand?: string;
  /** The price to pay, as displayed ("$19.99"). */
  offerPrice?: string;
  offerPriceDetails?: PriceDetails;
  /** The price before a discount, when the page shows one. */
  regularPrice?: string;
  regularPriceDetails?: PriceDetails;
  /** ISO 4217 code of the offer price. */
  currency?: string;
  /** True when the product can be bought now (in stock, pre-order, ...). */
  availability?: boolean;
  offers?: ProductOffer[];
  sku?: string;
  mpn?: string;
  gtin?: string;
  productId?: string;
  images?: ExtractedImage[];
  siteName?: string;
  /** schema.org AggregateRating: the average, how many ratings or reviews, the scale's top. */
  aggregateRating?: { ratingValue: number; ratingCount?: number; reviewCount?: number; bestRating?: number };
}

function formatPrice(amount: number, currency: string | undefined): string {
  if (currency) {
    try {
      return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
    } catch {
      // Unknown code: fall through to the bare number.
    }
  }
  return String(amount);
}

function details(price: Price): PriceDetails {
  return { amount: price.amount, text: price.text, ...(price.symbol ? { symbol: price.symbol } : {}) };
}

/** A price from a structured value (number, "19.99", "$19.99"), with the declared currency. */
function structuredPrice(raw: unknown, currency: string | undefined): Price | undefined {
  const text = typeof raw === 'number' ? String(raw) : textValue(raw);
  if (!text) return undefined;
  const parsed = parsePrice(text, currency);
  if (!parsed) return undefined;
  const code = currency?.toUpperCase() ?? parsed.currency;
  const written = /[^\d.,\s]/.test(text) ? parsed.text : formatPrice(parsed.amount, code);
  const symbol = parsed.symbol ?? (code ? written.replace(/[\d.,\s]/g, '') || undefined : undefined);
  return {
    amount: parsed.amount,
    text: written,
    ...(symbol ? { symbol } : {}),
    ...(code ? { currency: code } : {}),
  };
}

const LIST_PRICE_TYPES = /ListPrice|StrikethroughPrice|MSRP|SRP/i;

function readOffers(
  raw: unknown,
  into: ProductOffer[],
  listPrices: Price[],
  context: { base: string; data: StructuredData },
  depth = 0,
): void {
  if (depth > 3) return;
  for (const offer of values(raw)) {
    const props = propertiesOf(offer);
    if (!props) continue;
    const types = typesOfValue(offer);
    const specs = values(props.priceSpecification).map(propertiesOf).filter(Boolean) as Record<
      string,
      unknown
    >[];
    const mainSpec =
      specs.find((spec) => !LIST_PRICE_TYPES.test(textValue(spec.priceType) ?? '')) ?? specs[0];
    for (const spec of specs) {
      if (!LIST_PRICE_TYPES.test(textValue(spec.priceType) ?? '')) continue;
      const list = structuredPrice(
        spec.price,
        textValue(spec.priceCurrency) ?? textValue(props.priceCurrency),
      );
      if (list) listPrices.push(list);
    }
    const currency = textValue(props.priceCurrency) ?? textValue(mainSpec?.priceCurrency);
    const aggregate = types.includes('AggregateOffer');
    const price = structuredPrice(
      aggregate ? (props.lowPrice ?? props.price) : (props.price ?? mainSpec?.price ?? props.lowPrice),
      currency,
    );
    if (price) {
      const availability = normalizeAvailability(textValue(props.availability));
      const high = aggregate ? structuredPrice(props.highPrice, currency) : undefined;
      const url = typeof props.url === 'string' ? resolveUrl(props.url, context.base) : undefined;
      const seller = textValue(dereference(props.seller, context.data));
      const sku = textValue(props.sku);
      const validUntil = textValue(props.priceValidUntil);
      into.push({
        price: price.amount,
        ...(price.currency ? { currency: price.currency } : {}),
        ...(availability ? { availability: availability.status } : {}),
        ...(url ? { url } : {}),
        ...(sku ? { sku } : {}),
        ...(seller ? { seller } : {}),
        ...(validUntil ? { priceValidUntil: validUntil } : {}),
        ...(high && high.amount !== price.amount ? { highPrice: high.amount } : {}),
      });
    }
    if (props.offers) readOffers(props.offers, into, listPrices, context, depth + 1);
  }
}

const PRICE_NAME = /price/i;
const REGULAR_PRICE_NAME =
  /(was|old|regular|list|compare|strike|original|before|rrp|msrp)[-_ ]?price|price[-_ ]?(was|old|regular|list|before|compare|original)/i;

function classAndId(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

function insideStrike(el: Element): boolean {
  for (let node: Element | null = el; node; node = node.parent as Element | null) {
    if (node.type !== 'tag') return false;
    if (node.name === 'del' || node.name === 's' || node.name === 'strike') return true;
    if (REGULAR_PRICE_NAME.test(classAndId(node))) return true;
  }
  return false;
}

/** Prices displayed on the page, for pages without structured prices. */
function displayedPrices(context: PageContext): { offer?: Price; regular?: Price } {
  const candidates = findAllElements(
    context.page.document,
    (el) =>
      PRICE_NAME.test(classAndId(el)) ||
      el.name === 'del' ||
      el.name === 's' ||
      el.attribs.itemprop === 'price',
  );
  let offer: Price | undefined;
  let regular: Price | undefined;
  for (const el of candidates) {
    const text = inlineText(el);
    if (!text || text.length > 40 || !/\d/.test(text)) continue;
    // A container of several prices (".price-box") is read through its children.
    if (
      findFirst(
        el,
        (child) => PRICE_NAME.test(classAndId(child)) || child.name === 'del' || child.name === 's',
      )
    )
      continue;
    const price = parsePrice(text);
    if (!price || (!price.currency && !price.symbol)) continue;
    if (insideStrike(el)) regular ??= price;
    else offer ??= price;
    if (offer && regular) break;
  }
  return { offer, regular };
}

const BUY_BUTTON = /\b(add to (cart|basket|bag|trolley)|buy (it )?now|in den warenkorb|ajouter au panier)\b/i;
const SOLD_OUT = /\b(out of stock|sold out|currently unavailable|no longer available)\b/i;

function displayedAvailability(context: PageContext): boolean | undefined {
  const buttons = findAllElements(
    context.page.document,
    (el) => el.name === 'button' || (el.name === 'input' && el.attribs.type === 'submit') || el.name === 'a',
  );
  let canBuy = false;
  for (const button of buttons) {
    const label = button.name === 'input' ? (button.attribs.value ?? '') : inlineText(button);
    if (label.length > 60) continue;
    if (SOLD_OUT.test(label)) return false;
    if (BUY_BUTTON.test(label) && button.attribs.disabled === undefined) canBuy = true;
  }
  const status = findFirst(
    context.page.document,
    (el) => /availability|stock/i.test(classAndId(el)) && inlineText(el).length < 80,
  );
  if (status && SOLD_OUT.test(inlineText(status))) return false;
  return canBuy ? true : undefined;
}

function skuFromText(context: PageContext): string | undefined {
  const labelled = findFirst(context.page.document, (el) => /\bsku\b/i.test(classAndId(el)));
  const text = labelled ? inlineText(labelled) : textOf(context.page.document).slice(0, 20_000);
  const match = /\bSKU\s*(?:#|no\.?|number)?\s*[:#]?\s*([A-Z0-9][A-Z0-9._-]{2,40})/i.exec(text);
  if (match) return match[1];
  return labelled && /^[A-Z0-9][A-Z0-9._-]{2,40}$/i.test(inlineText(labelled))
    ? inlineText(labelled)
    : undefined;
}

/**
 * Whether the product is available (`fields.availability`), from the offers, the product or its
 * OpenGraph tags, else from the page's display; offers that do not say take that status.
 */
function applyAvailability(
  context: PageContext,
  props: Record<string, unknown>,
  offers: ProductOffer[],
  fields: ProductFields,
): void {
  const data = context.data;
  const declaredAvailability =
    offers.map((o) => o.availability).find(Boolean) ??
    textValue(props.availability) ??
    metaContent(data, 'product:availability', 'og:availability');
  const availability = normalizeAvailability(declaredAvailability);
  if (availability) {
    fields.availability = availability.available;
    for (const offer of offers) offer.availability ??= availability.status;
  } else {
    const shown = displayedAvailability(context);
    if (shown !== undefined) {
      fields.availability = shown;
      for (const offer of offers) offer.availability ??= shown ? 'InStock' : 'OutOfStock';
    }
  }
}

/** The product's SKU, MPN, GTIN (or ISBN) and product id, from its data, an offer or the page. */
function applyIdentifiers(
  context: PageContext,
  props: Record<string, unknown>,
  offers: readonly ProductOffer[],
  fields: ProductFields,
): void {
  const sku =
    textValue(props.sku) ??
    metaContent(context.data, 'product:retailer_item_id') ??
    offers.find((o) => o.sku)?.sku ??
    skuFromText(context);
  if (sku) fields.sku = sku;
  const mpn = textValue(props.mpn);
  if (mpn) fields.mpn = mpn;
  const gtin = textValue(
    props.gtin13 ?? props.gtin12 ?? props.gtin14 ?? props.gtin8 ?? props.gtin ?? props.isbn,
  );
  if (gtin) fields.gtin = gtin;
  const productId = textValue(props.productID) ?? gtin ?? sku;
  if (productId) fields.productId = productId;
}

/**
 * The `product` extractor: title, description, brand, offers (price, currency, availability),
 * offer and regular price, SKU/MPN/GTIN and images, from schema.org Product data (JSON-LD or
 * microdata) when present, OpenGraph product tags next, and the displayed page otherwise.
 */
export function extractProduct(context: PageContext): ProductFields {
  const data = context.data;
  const node = context.mainNode(PRODUCT_TYPES);
  const props = node?.properties ?? {};
  const siteName = siteNameOf(context);
  const title = pageTitle(context, props.name, siteName);
  const fields: ProductFields = {};
  if (title) fields.title = title;
  const description =
    textValue(props.description) ?? metaContent(data, 'og:description', 'description', 'twitter:description');
  if (description) fields.text = collapseWhitespace(description);
  else {
    // A plain page: the first paragraph of its main content describes the product.
    const lead = context
      .content()
      .text.split('\n')
      .find((line) => line.length >= 40);
    if (lead) fields.text = lead;
  }
  const brand = brandOf(context, props);
  if (brand) fields.brand = brand;
  const rating = ratingOf(props.aggregateRating);
  if (rating) fields.aggregateRating = rating;

  const offers: ProductOffer[] = [];
  const listPrices: Price[] = [];
  readOffers(props.offers, offers, listPrices, { base: context.baseUrl, data });
  let offerPrice: Price | undefined;
  if (offers.length > 0) {
    const first =
      offers.find((o) => o.availability === undefined || normalizeAvailability(o.availability)?.available) ??
      offers[0];
    offerPrice = structuredPrice(first.price, first.currency);
  }
  const metaCurrency = metaContent(data, 'product:price:currency', 'og:price:currency');
  offerPrice ??= structuredPrice(metaContent(data, 'product:price:amount', 'og:price:amount'), metaCurrency);
  const displayed = offerPrice && listPrices.length > 0 ? {} : displayedPrices(context);
  offerPrice ??= displayed.offer;
  let regularPrice: Price | undefined =
    listPrices[0] ??
    structuredPrice(
      metaContent(data, 'product:original_price:amount'),
      metaContent(data, 'product:original_price:currency') ?? metaCurrency,
    ) ??
    displayed.regular;
  if (regularPrice && offerPrice && regularPrice.amount <= offerPrice.amount) regularPrice = undefined;

  if (offerPrice) {
    fields.offerPrice = offerPrice.text;
    fields.offerPriceDetails = details(offerPrice);
    if (offerPrice.currency) fields.currency = offerPrice.currency;
  }
  if (regularPrice) {
    fields.regularPrice = regularPrice.text;
    fields.regularPriceDetails = details(regularPrice);
  }
  if (offers.length === 0 && offerPrice) {
    offers.push({
      price: offerPrice.amount,
      ...(offerPrice.currency ? { currency: offerPrice.currency } : {}),
    });
  }

  applyAvailability(context, props, offers, fields);
  if (offers.length > 0) fields.offers = offers;

  applyIdentifiers(context, props, offers, fields);
  const images = collectImages(context, props.image, []);
  if (images.length === 0) {
    const img = findFirst(
      context.page.document,
      (el) => el.name === 'img' && /product|main|hero|gallery/i.test(classAndId(el)),
    );
    const url = img ? resolveUrl(img.attribs.src, context.baseUrl) : undefined;
    if (url) images.push({ url, primary: true });
  }
  if (images.length > 0) fields.images = images;
  if (siteName) fields.siteName = siteName;
  return fields;
}

const BRAND_LABEL = /\b(?:brand|marque|marke|marca)\s*:\s*([^\n]{2,60})/i;

/**
 * The brand's name: structured data (a microdata brand link gives its text, not its URL), the
 * OpenGraph tags, then a `.brand` element or a "Brand:" label on the page.
 */
function brandOf(context: PageContext, props: Readonly<Record<string, unknown>>): string | undefined {
  const declared = textValue(props.brand) ?? textValue(props.manufacturer);
  if (declared && !/^https?:\/\//i.test(declared)) return declared;
  const element = findFirst(context.page.document, (el) => el.attribs.itemprop === 'brand');
  const named = element ? findFirst(element, (el) => el.attribs.itemprop === 'name') : undefined;
  const written = named ? inlineText(named) : element ? inlineText(element) : '';
  if (written) return written;
  const meta = metaContent(context.data, 'product:brand', 'og:brand');
  if (meta) return meta;
  const labelled = findFirst(context.page.document, (el) =>
    /(^|[\s_-])brand($|[\s_-])/i.test(el.attribs.class ?? ''),
  );
  const text = labelled ? inlineText(labelled).replace(/^(brand|marque|marke|marca)\s*:\s*/i, '') : '';
  if (text && text.length <= 60) return text;
  return BRAND_LABEL.exec(textOf(context.page.document).slice(0, 20_000))?.[1].trim();
}

function ratingOf(value: unknown): ProductFields['aggregateRating'] {
  const props = propertiesOf(value);
  if (!props) return undefined;
  const number = (raw: unknown) => {
    const n = Number(textValue(raw)?.replace(',', '.'));
    return Number.isFinite(n) ? n : undefined;
  };
  const ratingValue = number(props.ratingValue);
  if (ratingValue === undefined) return undefined;
  const ratingCount = number(props.ratingCount);
  const reviewCount = number(props.reviewCount);
  const bestRating = number(props.bestRating);
  return {
    ratingValue,
    ...(ratingCount !== undefined ? { ratingCount } : {}),
    ...(reviewCount !== undefined ? { reviewCount } : {}),
    ...(bestRating !== undefined ? { bestRating } : {}),
  };
}
