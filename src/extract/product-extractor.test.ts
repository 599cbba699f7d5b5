import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PageContext } from './page-context.ts';
import { extractProduct } from './product-extractor.ts';

const PAGES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pages');
function page(file: string, url: string): PageContext {
  return PageContext.fromHtml(fs.readFileSync(path.join(PAGES, file), 'utf8'), url);
}

describe('product extractor', () => {
  test('reads every field from schema.org Product JSON-LD', () => {
    const product = extractProduct(page('product.html', 'https://summit.example/p/trailblazer-2'));
    assert.deepEqual(product, {
      title: 'Trailblazer 2 Hiking Boot',
      text: 'A waterproof full-grain leather hiking boot with a Vibram sole and a padded collar.',
      brand: 'Ridgeline',
      offerPrice: '$129.99',
      offerPriceDetails: { amount: 129.99, text: '$129.99', symbol: '$' },
      currency: 'USD',
      regularPrice: '$159.99',
      regularPriceDetails: { amount: 159.99, text: '$159.99', symbol: '$' },
      availability: true,
      offers: [
        {
          price: 129.99,
          currency: 'USD',
          availability: 'InStock',
          url: 'https://summit.example/p/trailblazer-2',
          seller: 'Summit Outfitters',
        },
      ],
      sku: 'TB2-BRN-42',
      mpn: 'RL-TB2-001',
      gtin: '5012345678900',
      productId: '5012345678900',
      images: [
        { url: 'https://summit.example/img/tb2-side.jpg', primary: true },
        { url: 'https://summit.example/img/tb2-sole.jpg' },
      ],
      siteName: 'Summit Outfitters',
    });
  });

  test('reads the displayed page when there is no structured data', () => {
    const product = extractProduct(page('product-plain.html', 'https://mueller.example/kaffeemuehle'));
    assert.equal(product.title, 'Kaffeemühle Classic');
    assert.equal(product.offerPrice, '24,50 €');
    assert.deepEqual(product.offerPriceDetails, { amount: 24.5, text: '24,50 €', symbol: '€' });
    assert.equal(product.regularPrice, '29,90 €');
    assert.equal(product.currency, 'EUR');
    assert.equal(product.availability, true);
    assert.deepEqual(product.offers, [{ price: 24.5, currency: 'EUR', availability: 'InStock' }]);
    assert.equal(product.sku, 'KM-CL-100');
    assert.deepEqual(product.images, [{ url: 'https://mueller.example/bilder/muehle.jpg', primary: true }]);
    assert.equal(product.siteName, 'Haushaltswaren Müller');
  });

  test('reads microdata offers, aggregate offers and sold-out products', () => {
    const html = `<div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name">Camp Stove</h1>
        <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Flamewise</span></span>
        <div itemprop="offers" itemscope itemtype="https://schema.org/AggregateOffer">
          <meta itemprop="priceCurrency" content="GBP">
          <span itemprop="lowPrice" content="35.00">£35</span> to <span itemprop="highPrice">£49.50</span>
          <link itemprop="availability" href="https://schema.org/OutOfStock">
        </div>
        <span itemprop="sku">CS-1</span>
      </div>`;
    const product = extractProduct(PageContext.fromHtml(html, 'https://shop.example/stove'));
    assert.equal(product.title, 'Camp Stove');
    assert.equal(product.brand, 'Flamewise');
    assert.equal(product.offerPrice, '£35.00');
    assert.equal(product.currency, 'GBP');
    assert.equal(product.availability, false);
    assert.deepEqual(product.offers, [
      { price: 35, currency: 'GBP', availability: 'OutOfStock', highPrice: 49.5 },
    ]);
    assert.equal(product.sku, 'CS-1');
  });

  test('reads OpenGraph product tags', () => {
    const html = `<head><meta property="og:title" content="Mug">
      <meta property="product:price:amount" content="12.00"><meta property="product:price:currency" content="CAD">
      <meta property="product:availability" content="out of stock"><meta property="product:brand" content="Clayworks">
      <meta property="product:retailer_item_id" content="MUG-9"></head><body><h1>Mug</h1></body>`;
    const product = extractProduct(PageContext.fromHtml(html, 'https://clay.example/mug'));
    assert.equal(product.offerPrice, 'CA$12.00');
    assert.equal(product.currency, 'CAD');
    assert.equal(product.availability, false);
    assert.equal(product.brand, 'Clayworks');
    assert.equal(product.sku, 'MUG-9');
  });
});

describe('product brand and rating', () => {
  test('aggregateRating is read; a microdata brand link gives its name, not its URL', () => {
    const html = `<html><body><div itemscope itemtype="https://schema.org/Product">
<h1 itemprop="name">Trail Kettle</h1><a itemprop="brand" href="/brands/fjell">Fjell Outdoor</a>
<div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
<span itemprop="ratingValue">4,6</span> of <span itemprop="bestRating">5</span> (<span itemprop="reviewCount">128</span> reviews)</div>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="EUR"><span itemprop="price">39.90</span></div>
</div></body></html>`;
    const product = extractProduct(PageContext.fromHtml(html, 'https://shop.example/p/kettle'));
    assert.equal(product.brand, 'Fjell Outdoor');
    assert.deepEqual(product.aggregateRating, { ratingValue: 4.6, reviewCount: 128, bestRating: 5 });
  });

  test('a plain page gives its brand from a label and its description from the main content', () => {
    const html = `<html><body><main><h1>Trail Kettle 1.2 L</h1><p class="price">€39.90</p>
<p>Brand: Fjell Outdoor</p><p>A light titanium kettle that boils a litre of water in four minutes on any stove.</p>
<button>Add to cart</button></main></body></html>`;
    const product = extractProduct(PageContext.fromHtml(html, 'https://shop.example/p/kettle'));
    assert.equal(product.brand, 'Fjell Outdoor');
    assert.match(product.text ?? '', /light titanium kettle/);
  });
});
