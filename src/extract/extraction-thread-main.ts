/**
 * An extraction thread (`ExtractionThreads`): answers one page at a time with `extractPage`,
 * as the API response or as a crawled page's stored documents. Holds no store connection: the
 * rule sets come with the page.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../threads/index.ts';
import { extractPage, storedDocuments } from './extract-page.ts';
import type { ExtractionThreadReply, ExtractionThreadRequest } from './extraction-threads.ts';

/** Nice value of an extraction thread: below the main thread, above bulk enhance threads (15). */
const EXTRACTION_NICENESS = 5;

// On a machine whose cores heavy pages saturate, the main thread (every other request, /healthz)
// is served first: a page is only ever waited for by its own request or crawl.
lowerThreadPriority(EXTRACTION_NICENESS);

parentPort!.on('message', ({ id, job }: ExtractionThreadRequest) => {
  parentPort!.postMessage({ id, started: true } satisfies ExtractionThreadReply);
  let reply: ExtractionThreadReply;
  try {
    const response = extractPage(job.input);
    reply = {
      id,
      result: job.documents
        ? storedDocuments(response.objects, {
            api: job.input.api,
            url: job.input.url,
            finalUrl: job.input.finalUrl,
            timestamp: job.documents.timestamp,
          })
        : response,
    };
  } catch (error) {
    const failure = error as Error & { code?: unknown; status?: unknown; parameter?: unknown };
    reply = {
      id,
      error: {
        message: failure.message ?? String(error),
        name: failure.name,
        code: typeof failure.code === 'string' ? failure.code : undefined,
        status: typeof failure.status === 'number' ? failure.status : undefined,
        parameter: typeof failure.parameter === 'string' ? failure.parameter : undefined,
      },
    };
  }
  parentPort!.postMessage(reply);
});
