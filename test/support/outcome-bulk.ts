/**
 * A bulk service over a real SQLite store whose records are answered by real worker threads
 * running the outcome fixture worker (`test/fixtures/outcome-worker.ts`: record names that throw
 * registered errors, or hold their thread), for tests of the bulk runner itself.
 */
import { TokenService } from '../../src/accounts/index.ts';
import { BulkService, type BulkServiceDeps, createWebhookPost } from '../../src/bulk/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createFetcher } from '../../src/extract/index.ts';
import { createLogger } from '../../src/logging.ts';
import { openStorage, type Storage, storeLocator } from '../../src/storage/index.ts';
import { WorkerPool } from '../../src/threads/index.ts';
import { tempDir } from './temp-dir.ts';

/** A batch as the runner hands it to its executor. */
export interface OutcomeBatch {
  readonly jobId: string;
  readonly records: readonly { readonly index: number; readonly query: string }[];
}

export interface OutcomeBulkOptions {
  /** The token's credits (`null`: unlimited). */
  readonly credits: number | null;
  readonly batchSize: number;
  /** Worker threads, batches each takes at once (the pool's default unless given), batches in flight. */
  readonly threads: number;
  readonly tasksPerWorker?: number;
  readonly capacity: number;
  readonly metrics?: BulkServiceDeps['metrics'];
  /** Called as each batch is handed to the threads, and with each batch's answer. */
  readonly onRun?: (batch: OutcomeBatch) => void;
  readonly onAnswer?: () => void;
}

export interface OutcomeBulk {
  readonly storage: Storage;
  readonly bulk: BulkService;
  readonly tokenId: string;
  close(): Promise<void>;
}

export async function startOutcomeBulk(options: OutcomeBulkOptions): Promise<OutcomeBulk> {
  const dir = tempDir();
  const fetcher = createFetcher({ allowPrivateNetwork: true });
  const config = loadConfig({}, { dataDir: dir.path });
  const storage = openStorage(storeLocator({ dataDir: dir.path }));
  const tokenId = (await new TokenService(storage.tokens).create({ credits: options.credits })).record.id;
  const bulk = new BulkService({
    store: storage.bulkJobs,
    transaction: (fn) => storage.transaction(fn),
    credits: config.credits,
    limits: config.limits,
    logger: createLogger({ level: 'silent' }),
    webhookPost: createWebhookPost(fetcher),
    batchSize: options.batchSize,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    createExecutor: () => {
      const pool = new WorkerPool<OutcomeBatch, never>({
        size: options.threads,
        ...(options.tasksPerWorker ? { tasksPerWorker: options.tasksPerWorker } : {}),
        script: new URL('../fixtures/outcome-worker.ts', import.meta.url),
      });
      return {
        capacity: options.capacity,
        run(batch: OutcomeBatch) {
          options.onRun?.(batch);
          return pool.run(batch).then((answer) => {
            options.onAnswer?.();
            return answer;
          });
        },
        close: () => pool.close(),
      };
    },
  });
  await bulk.start();
  return {
    storage,
    bulk,
    tokenId,
    async close() {
      await bulk.close();
      await storage.close();
      await fetcher.close();
      dir.remove();
    },
  };
}
