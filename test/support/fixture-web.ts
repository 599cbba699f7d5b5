/**
 * A local fixture web for refresh and search tests and benchmarks: pages that describe
 * organizations and people the way company sites do (schema.org JSON-LD, visible contact
 * details, footer noise), and a search engine that answers in SearXNG's JSON format
 * (`GET /search?q=…&format=json` → `{"query", "results": [{url, title, content}]}`), ranking
 * the pages it was given by the words of the query they contain — irrelevant pages included, as
 * real engines do — with hostile results mixed in on request. Real HTTP servers, nothing mocked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What an organization's page states. */
export interface OrganizationFacts {
  readonly name: string;
  /** The organization's site (`https://…`), as its JSON-LD `url`. */
  readonly url?: string;
  readonly phone?: string;
  readonly email?: string;
  readonly employees?: number;
  readonly street?: string;
  readonly city?: string;
  readonly postalCode?: string;
  readonly country?: string;
  readonly description?: string;
  readonly foundingDate?: string;
}

/** What a person's page states. */
export interface PersonFacts {
  readonly name: string;
  readonly jobTitle?: string;
  readonly employer?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly city?: string;
  readonly country?: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function jsonLd(value: object): string {
  return `<script type="application/ld+json">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
}

/** A company page: JSON-LD Organization, the facts in the visible text, a footer. */
export function organizationPage(facts: OrganizationFacts, extraBody = ''): string {
  const address =
    facts.city || facts.country || facts.street
      ? {
          '@type': 'PostalAddress',
          ...(facts.street ? { streetAddress: facts.street } : {}),
          ...(facts.city ? { addressLocality: facts.city } : {}),
          ...(facts.postalCode ? { postalCode: facts.postalCode } : {}),
          ...(facts.country ? { addressCountry: facts.country } : {}),
        }
      : undefined;
  const data = {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: facts.name,
    ...(facts.url ? { url: facts.url } : {}),
    ...(facts.phone ? { telephone: facts.phone } : {}),
    ...(facts.email ? { email: facts.email } : {}),
    ...(facts.employees !== undefined
      ? { numberOfEmployees: { '@type': 'QuantitativeValue', value: facts.employees } }
      : {}),
    ...(address ? { address } : {}),
    ...(facts.description ? { description: facts.description } : {}),
    ...(facts.foundingDate ? { foundingDate: facts.foundingDate } : {}),
  };
  const place = [facts.street, facts.city, facts.country].filter(Boolean).join(', ');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(facts.name)}</title>
${jsonLd(data)}</head><body>
<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<main><h1>${escapeHtml(facts.name)}</h1>
<p>${escapeHtml(facts.description ?? `${facts.name} is a company.`)}</p>
${place ? `<p>Visit us in ${escapeHtml(place)}.</p>` : ''}
${extraBody}</main>
<footer><p>© ${escapeHtml(facts.name)}. All rights reserved.</p></footer>
</body></html>`;
}

/** A profile page: JSON-LD Person. */
export function personPage(facts: PersonFacts, extraBody = ''): string {
  const data = {
    '@context': 'https://schema.org',
    '@type': 'Person',
    name: facts.name,
    ...(facts.jobTitle ? { jobTitle: facts.jobTitle } : {}),
    ...(facts.employer ? { worksFor: { '@type': 'Organization', name: facts.employer } } : {}),
    ...(facts.email ? { email: facts.email } : {}),
    ...(facts.phone ? { telephone: facts.phone } : {}),
    ...(facts.city || facts.country
      ? {
          address: {
            '@type': 'PostalAddress',
            ...(facts.city ? { addressLocality: facts.city } : {}),
            ...(facts.country ? { addressCountry: facts.country } : {}),
          },
        }
      : {}),
  };
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(facts.name)}</title>
${jsonLd(data)}</head><body><main><h1>${escapeHtml(facts.name)}</h1>
<p>${escapeHtml([facts.jobTitle, facts.employer].filter(Boolean).join(' at '))}</p>${extraBody}</main></body></html>`;
}

/** A page the search engine knows. */
export interface IndexedPage {
  readonly url: string;
  readonly title: string;
  /** The text it is found by (and shows as `content`). */
  readonly text: string;
}

/** A result the engine returns whatever the query (hostile results). */
export interface InjectedResult {
  readonly url: string;
  readonly title: string;
  readonly content: string;
}

export interface SearchEngine {
  /** The SearXNG-compatible endpoint: `<origin>/search`. */
  readonly url: string;
  /** Makes a page findable. */
  index(page: IndexedPage): void;
  /** Results returned for every query (at the top, as spam often is). */
  inject(result: InjectedResult): void;
  /** The queries received, oldest first. */
  queries(): string[];
  clearLog(): void;
  close(): Promise<void>;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/**
 * Starts the search engine on 127.0.0.1. Pages are ranked by how many distinct words of the
 * query they contain (at least one), at most `maxResults`; injected results come first.
 */
export async function startSearchEngine(options: { maxResults?: number } = {}): Promise<SearchEngine> {
  const pages: { page: IndexedPage; words: Set<string> }[] = [];
  const injected: InjectedResult[] = [];
  const log: string[] = [];
  const maxResults = options.maxResults ?? 8;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/search') {
      response.writeHead(404).end();
      return;
    }
    const q = url.searchParams.get('q') ?? '';
    log.push(q);
    if (url.searchParams.get('format') !== 'json') {
      response.writeHead(403, { 'content-type': 'text/html' }).end('<p>format not allowed</p>');
      return;
    }
    const wanted = new Set(words(q));
    const ranked = pages
      .map((entry) => ({ entry, hits: [...wanted].filter((w) => entry.words.has(w)).length }))
      .filter((r) => r.hits > 0)
      .sort((a, b) => b.hits - a.hits)
      .slice(0, maxResults)
      .map(({ entry }) => ({
        url: entry.page.url,
        title: entry.page.title,
        content: entry.page.text.slice(0, 300),
        engine: 'fixture',
      }));
    const results = [...injected.map((r) => ({ ...r, engine: 'fixture' })), ...ranked];
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ query: q, number_of_results: results.length, results }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/search`,
    index(page) {
      pages.push({ page, words: new Set(words(`${page.title} ${page.text} ${page.url}`)) });
    },
    inject(result) {
      injected.push(result);
    },
    queries: () => [...log],
    clearLog: () => {
      log.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
