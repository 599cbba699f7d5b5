/**
 * Extraction of fetched pages: the shape of the stored objects, and the extractor that runs the
 * extraction engine in this thread (the worker pool, `extraction-pool.ts`, runs the same code in
 * worker threads).
 */
import type { ExtractedObject, PageExtraction, PageExtractor, PageToExtract } from './dependencies.ts';

/** What the crawler needs of the extraction engine (`extract/`'s `ExtractionService`). */
export interface ExtractionEngine {
  /** Throws `InvalidApiError` for an API that is neither built in nor the token's. */
  checkApi(tokenId: string, api: string): Promise<unknown>;
  extract(request: {
    readonly tokenId: string;
    readonly api: string;
    readonly url: string;
    readonly html: Buffer;
    readonly contentType?: string;
  }): Promise<{ readonly objects: readonly ExtractedObject[] }>;
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

/**
 * The stored form of a page's objects: `type` (the API name when the extractor gives none),
 * `pageUrl` (the submitted URL), `resolvedPageUrl` (the final URL, when redirected),
 * `timestamp` (extraction time, epoch ms), then the extracted fields.
 */
export function documentsOf(
  objects: readonly ExtractedObject[],
  page: Pick<PageToExtract, 'api' | 'pageUrl' | 'finalUrl' | 'timestamp'>,
): PageExtraction {
  const types: string[] = [];
  const documents = objects.map((object) => {
    const { type, pageUrl: _pageUrl, resolvedPageUrl: _resolved, timestamp: _timestamp, ...fields } = object;
    const kind = typeof type === 'string' && type !== '' ? type : page.api;
    types.push(kind);
    return JSON.stringify({
      type: kind,
      pageUrl: page.pageUrl,
      ...(page.finalUrl !== page.pageUrl ? { resolvedPageUrl: page.finalUrl } : {}),
      timestamp: page.timestamp,
      ...fields,
    });
  });
  return { documents, types };
}

/** Extracts in the calling thread (small deployments, `QUARRY_WORKERS=0`). */
export class InlineExtractor implements PageExtractor {
  readonly #engine: ExtractionEngine;

  constructor(engine: ExtractionEngine) {
    this.#engine = engine;
  }

  async checkApi(tokenId: string, api: string): Promise<void> {
    await this.#engine.checkApi(tokenId, api);
  }

  async extract(page: PageToExtract): Promise<PageExtraction> {
    const response = await this.#engine.extract({
      tokenId: page.tokenId,
      api: page.api,
      url: page.finalUrl,
      html: page.body,
      contentType: page.contentType,
    });
    return documentsOf(response.objects, page);
  }

  async close(): Promise<void> {}
}
