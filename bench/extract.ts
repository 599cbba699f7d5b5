/**
 * Extraction throughput on ~100 KB pages, single thread: a bare parse, the built-in extractor,
 * and the built-in extractor plus a 10-rule Custom API rule set, beside each other.
 *
 *   npx node bench/extract.ts [--pages 40] [--seconds 3] [--kb 100]
 *
 * Pages are generated deterministically (fixed seed): news articles with navigation, JSON-LD,
 * figures, sidebars, comments and a large footer, like real pages. Figures are pages per
 * second of wall time and per CPU-second (the per-core rate, robust to a busy machine).
 * Benchmarks never fail on timing.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runBuiltInApi } from '../src/extract/built-in-apis.ts';
import { CustomApiService, ExtractionService, type Fetcher } from '../src/extract/index.ts';
import { parseHtml } from '../src/extract/html-document.ts';
import { PageContext } from '../src/extract/page-context.ts';
import { applyRulesets, removePrefiltered } from '../src/extract/rule-engine.ts';
import { parseRuleset } from '../src/extract/ruleset.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { seededRandom } from './support/queries.ts';
import { printTarget } from './support/targets.ts';

const { values: args } = parseArgs({
  options: {
    pages: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '3' },
    kb: { type: 'string', default: '100' },
  },
});
const PAGE_COUNT = Number(args.pages);
const SECONDS = Number(args.seconds);
const TARGET_BYTES = Number(args.kb) * 1024;

const WORDS = (
  'quarry lake water council restoration engineer shore reed heron summer swimmer silt wall basin ' +
  'agency sample standard lifeguard morning evening family jetty beach village river bridge road ' +
  'market school budget report season weather storm harvest field farm stone path hill valley town ' +
  'museum library station train bus street garden park festival music theatre artist painter writer ' +
  'teacher student doctor nurse hospital clinic company worker factory office manager director price'
).split(' ');

function generatePage(seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const sentence = (): string => {
    const words = Array.from({ length: 8 + Math.floor(random() * 14) }, () => pick(WORDS));
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}${random() < 0.3 ? ', and more' : ''}.`;
  };
  const paragraph = (): string =>
    `<p>${Array.from({ length: 3 + Math.floor(random() * 3) }, sentence).join(' ')}</p>`;
  const links = (n: number, prefix: string): string =>
    Array.from(
      { length: n },
      (_, i) => `<li><a href="/${prefix}/${i}-${pick(WORDS)}">${pick(WORDS)} ${pick(WORDS)}</a></li>`,
    ).join('');
  const title = `${sentence().slice(0, 60)} ${seed}`;
  const head = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title} | Valley Herald</title>
<meta property="og:type" content="article"><meta property="og:site_name" content="Valley Herald">
<meta property="og:image" content="https://cdn.example/img/${seed}.jpg"><meta name="description" content="${sentence()}">
<script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    headline: title,
    datePublished: `2024-0${1 + (seed % 9)}-1${seed % 10}T08:00:00Z`,
    author: { '@type': 'Person', name: `${pick(WORDS)} ${pick(WORDS)}` },
    publisher: { '@type': 'Organization', name: 'Valley Herald' },
  })}</script><style>.x{color:red}</style></head>`;
  const nav = `<header class="site-header"><img class="logo" src="/logo.png" alt="logo"><nav><ul>${links(30, 'section')}</ul></nav></header>`;
  let body = '';
  const sections: string[] = [];
  while (head.length + nav.length + body.length < TARGET_BYTES * 0.55) {
    if (random() < 0.12) sections.push(`<h2>${sentence().slice(0, 40)}</h2>`);
    if (random() < 0.06) {
      sections.push(
        `<figure><img src="/img/${seed}-${sections.length}.jpg" alt="${pick(WORDS)}" width="640" height="360"><figcaption>${sentence()}</figcaption></figure>`,
      );
    }
    sections.push(paragraph());
    body = sections.join('\n');
  }
  const article = `<main><article class="story"><h1>${title}</h1>
<p class="byline">By <a rel="author" href="/authors/${seed}">${pick(WORDS)} ${pick(WORDS)}</a>
<time datetime="2024-03-0${1 + (seed % 9)}">March</time></p><div class="story-body">${body}
<ul class="related-links">${links(8, 'related')}</ul></div></article>`;
  const sidebar = `<aside class="sidebar"><h3>Most read</h3><ol>${links(15, 'popular')}</ol>
<div class="ad">${sentence()} ${sentence()}</div></aside></main>`;
  let comments = '<section class="comments"><h3>Comments</h3>';
  let footer = `<footer><ul>${links(60, 'footer')}</ul><p>Contact us at news@valley.example or +1 415 555 0100.</p></footer>`;
  while (
    head.length + nav.length + article.length + sidebar.length + comments.length + footer.length <
    TARGET_BYTES
  ) {
    comments += `<div class="comment"><span class="who">${pick(WORDS)}</span><p>${sentence()} ${sentence()}</p></div>`;
  }
  comments += '</section>';
  footer += '<script>window.analytics = { page: "article", id: 12345 };</script></body></html>';
  return `${head}<body>${nav}${article}${sidebar}${comments}${footer}`;
}

const RULESET = parseRuleset({
  api: '/api/article',
  urlPattern: 'valley\\.example/news/',
  prefilters: ['.ad'],
  rules: [
    { name: 'headline', selector: 'article h1' },
    {
      name: 'authorLink',
      selector: 'p.byline a[rel=author]',
      filters: [{ type: 'attribute', args: ['href'] }],
    },
    { name: 'published', selector: 'p.byline time', filters: [{ type: 'attribute', args: ['datetime'] }] },
    {
      name: 'byline',
      selector: 'p.byline',
      filters: [
        { type: 'exclude', args: ['time'] },
        { type: 'replace', args: ['^By\\s+', ''] },
      ],
    },
    { name: 'lead', selector: '.story-body > p:eq(0)' },
    { name: 'subheadings', selector: '.story-body h2:matches(\\w+)' },
    {
      name: 'related',
      selector: 'ul.related-links li',
      rules: [
        { name: 'title', selector: 'a' },
        { name: 'url', selector: 'a', filters: [{ type: 'attribute', args: ['href'] }] },
      ],
    },
    { name: 'commentCount', selector: 'section.comments h3:containsOwn(comments)' },
    {
      name: 'heroImage',
      selector: 'meta[property~=^og:image$]',
      filters: [{ type: 'attribute', args: ['content'] }],
    },
    { name: 'edition', value: 'online' },
  ],
});

interface Figure {
  readonly pagesPerSecond: number;
  readonly pagesPerCpuSecond: number;
  readonly pages: number;
}

function measure(
  label: string,
  pages: readonly string[],
  run: (html: string, index: number) => void,
): Figure {
  for (let i = 0; i < Math.min(20, pages.length); i++) run(pages[i], i); // warm-up
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < SECONDS * 1000) {
    run(pages[count % pages.length], count);
    count++;
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const figure = { pagesPerSecond: count / seconds, pagesPerCpuSecond: count / cpuSeconds, pages: count };
  console.log(
    `${label.padEnd(58)} ${figure.pagesPerSecond.toFixed(0).padStart(6)} pages/s   ${figure.pagesPerCpuSecond
      .toFixed(0)
      .padStart(6)} pages/CPU-s   (${count} pages in ${seconds.toFixed(1)} s)`,
  );
  return figure;
}

const pages = Array.from({ length: PAGE_COUNT }, (_, i) => generatePage(i + 1));
const urls = pages.map((_, i) => `https://valley.example/news/${i + 1}`);
const averageKb = pages.reduce((sum, p) => sum + Buffer.byteLength(p), 0) / pages.length / 1024;
console.log('bench/extract: extraction throughput, one thread');
console.log(
  `command: npx node bench/extract.ts --pages ${PAGE_COUNT} --seconds ${SECONDS} --kb ${args.kb}   ` +
    `(node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg()[0].toFixed(2)})`,
);
console.log(
  `pages: ${pages.length} generated articles, average ${averageKb.toFixed(1)} KB; rule set: 10 rules + 1 prefilter`,
);
console.log('');

const bare = measure('bare parse (htmlparser2)', pages, (html, i) => {
  parseHtml(html, urls[i % urls.length]);
});
measure('parse + article extractor', pages, (html, i) => {
  runBuiltInApi('article', PageContext.fromHtml(html, urls[i % urls.length]));
});
const full = measure('parse + article extractor + 10-rule rule set', pages, (html, i) => {
  const context = PageContext.fromHtml(html, urls[i % urls.length]);
  removePrefiltered(context.page.document, [RULESET]);
  const fields = runBuiltInApi('article', context).objects[0]?.fields;
  const custom = applyRulesets([RULESET], context.page.document, context.baseUrl);
  if (!fields?.title || custom.edition !== 'online') throw new Error('extraction produced nothing');
});
measure('parse + analyze (type detection + extractor) + rule set', pages, (html, i) => {
  const context = PageContext.fromHtml(html, urls[i % urls.length]);
  removePrefiltered(context.page.document, [RULESET]);
  runBuiltInApi('analyze', context);
  applyRulesets([RULESET], context.page.document, context.baseUrl);
});

// The whole service path (as POST /v3/article with the HTML as the body): rule-set lookup in
// SQLite, compilation cache, extraction, response assembly.
const storage = openSqliteStorage(':memory:');
await storage.tokens.create({ id: 'tok_bench', secretHash: 'bench', credits: null });
const customApis = new CustomApiService(storage.customApis);
customApis.save('tok_bench', RULESET.definition);
const noFetch: Fetcher = {
  fetch: () => Promise.reject(new Error('the benchmark posts HTML; nothing is fetched')),
  close: async () => undefined,
};
const service = new ExtractionService({ fetcher: noFetch, customApis });
const servicePages: Figure = await (async () => {
  const run = (html: string, i: number) =>
    service.extract({ tokenId: 'tok_bench', api: 'article', url: urls[i % urls.length], html });
  for (let i = 0; i < 20; i++) await run(pages[i % pages.length], i);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < SECONDS * 1000) {
    const response = await run(pages[count % pages.length], count);
    if (response.objects[0]?.edition !== 'online') throw new Error('rule set not applied');
    count++;
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const figure = {
    pagesPerSecond: count / seconds,
    pagesPerCpuSecond: count / ((cpu.user + cpu.system) / 1e6),
    pages: count,
  };
  console.log(
    `${'ExtractionService.extract (html given, rules from SQLite)'.padEnd(58)} ${figure.pagesPerSecond
      .toFixed(0)
      .padStart(
        6,
      )} pages/s   ${figure.pagesPerCpuSecond.toFixed(0).padStart(6)} pages/CPU-s   (${count} pages in ${seconds.toFixed(1)} s)`,
  );
  return figure;
})();
storage.close();

console.log('');
console.log(
  `extract.full_pages_per_cpu_second=${full.pagesPerCpuSecond.toFixed(0)} (target >= 300 per core; bare parse ${bare.pagesPerCpuSecond.toFixed(0)}; ` +
    `service ${servicePages.pagesPerCpuSecond.toFixed(0)})`,
);
printTarget({
  name: 'extraction pages per CPU-second (issue 4)',
  value: full.pagesPerCpuSecond,
  bound: 'min',
  limit: 300,
  unit: 'pages/CPU-s',
});
