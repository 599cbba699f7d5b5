import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logging.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.ts';
import { tempDir } from './temp-dir.ts';
import { testDatabase } from './temp-postgres.ts';

/**
 * A whole Quarry over a real SQLite file in a temporary directory (or, with
 * `QUARRY_TEST_STORE=postgres`, a PostgreSQL database of its own), not listening.
 */
export interface TestRuntime {
  readonly runtime: Runtime;
  readonly dataDir: string;
  /** Creates a token and returns its secret. */
  token(credits?: number | null): Promise<string>;
  close(): Promise<void>;
}

export async function startTestRuntime(
  overrides: Partial<Config> = {},
  options: RuntimeOptions = {},
): Promise<TestRuntime> {
  const dir = tempDir();
  const database = await testDatabase();
  const config = loadConfig(
    { QUARRY_ALLOW_PRIVATE_NETWORK: '1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' },
    {
      dataDir: dir.path,
      port: 0,
      host: '127.0.0.1',
      workerThreads: 1,
      ...(database ? { databaseUrl: database.url } : {}),
      ...overrides,
    },
  );
  const runtime = await createRuntime(
    config,
    createLogger({ level: config.logLevel, destination: 'stderr' }),
    options,
  );
  return {
    runtime,
    dataDir: dir.path,
    token: async (credits = null) => (await runtime.services.tokens.create({ credits })).secret,
    async close() {
      await runtime.close();
      await database?.drop();
      dir.remove();
    },
  };
}
