/**
 * Worker thread of `ExtractionPool`: builds an extraction engine over a read-only connection to
 * the store and answers one page at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CustomApiService, createFetcher, ExtractionService } from '../extract/index.ts';
import { openStorage } from '../storage/index.ts';
import type {
  ExtractionWorkerData,
  ExtractionWorkerRequest,
  ExtractionWorkerResponse,
} from './extraction-pool.ts';
import { documentsOf } from './page-extraction.ts';

const data = workerData as ExtractionWorkerData;
const storage = openStorage(data.store, { readOnly: true, cacheMiB: 8 });
// The engine never fetches here (pages come with their body), but it is built with a fetcher.
const engine = new ExtractionService({
  fetcher: createFetcher({ allowPrivateNetwork: data.allowPrivateNetwork }),
  customApis: new CustomApiService(storage.customApis),
});

parentPort!.on('message', async (request: ExtractionWorkerRequest) => {
  const { page } = request;
  let response: ExtractionWorkerResponse;
  try {
    const extracted = await engine.extract({
      tokenId: page.tokenId,
      api: page.api,
      url: page.finalUrl,
      html: Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength),
      contentType: page.contentType,
    });
    response = { id: request.id, result: documentsOf(extracted.objects, page) };
  } catch (error) {
    const failure = error as Error & { code?: unknown };
    response = {
      id: request.id,
      error: {
        message: failure.message ?? String(error),
        code: typeof failure.code === 'string' ? failure.code : undefined,
      },
    };
  }
  parentPort!.postMessage(response);
});
