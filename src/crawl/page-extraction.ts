/**
 * Extraction of fetched pages for the crawler: which bodies are worth extracting, and the
 * `PageExtractor` that hands pages to the extraction service (its threads, with their per-page
 * time budget, at background priority).
 */
import type { FetchedPageToExtract, StoredDocuments } from '../extract/index.ts';
import type { PageExtraction, PageExtractor, PageToExtract } from './dependencies.ts';

/** What the crawler needs of the extraction service (`extract/`'s `ExtractionService`). */
export interface ExtractionEngine {
  /** Throws `InvalidApiError` for an API that is neither built in nor the token's. */
  checkApi(tokenId: string, api: string): Promise<unknown>;
  extractFetched(page: FetchedPageToExtract): Promise<StoredDocuments>;
}

/** Content types extraction reads as markup (as the extraction endpoint does). */
const MARKUP_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/xml',
  'application/xml',
]);

/** Whether a body is markup worth extracting: by its type, or by its first bytes when untyped. */
export function isMarkup(contentType: string | undefined, body: Buffer): boolean {
  if (contentType !== undefined) return MARKUP_TYPES.has(contentType);
  const head = body
    .subarray(0, 512)
    .toString('latin1')
    .replace(/^\uFEFF|^ï»¿/, '');
  return /^\s*</.test(head);
}

/** Extracts crawled pages through the extraction service. */
export class ServicePageExtractor implements PageExtractor {
  readonly #engine: ExtractionEngine;

  constructor(engine: ExtractionEngine) {
    this.#engine = engine;
  }

  async checkApi(tokenId: string, api: string): Promise<void> {
    await this.#engine.checkApi(tokenId, api);
  }

  extract(page: PageToExtract): Promise<PageExtraction> {
    return this.#engine.extractFetched({
      tokenId: page.tokenId,
      api: page.api,
      url: page.pageUrl,
      finalUrl: page.finalUrl,
      body: page.body,
      contentType: page.contentType,
      timestamp: page.timestamp,
    });
  }

  async close(): Promise<void> {}
}
