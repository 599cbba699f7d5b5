import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { heapTrimAvailable } from '../threads/index.ts';
import { loadDemoGraph } from '../import/index.ts';
import { DEFAULT_DEMO_SIZES, demoExamples } from '../kg/index.ts';
import { createLogger } from '../logging.ts';
import { createRuntime } from '../runtime.ts';
import { ensureDemoToken } from './demo-token.ts';
import { parsePort } from './options.ts';
import { runUntilStopped } from './run-until-stopped.ts';

/** `quarry serve [--port N] [--data DIR] [--demo]`: runs the HTTP service until SIGINT/SIGTERM. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service')
    .option('--port <n>', 'port to listen on (default: $PORT or 8080)', parsePort)
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .option('--demo', 'on an empty store, load the demo knowledge graph and print a demo token')
    .action(async (options: { port?: number; data?: string; demo?: boolean }) => {
      const config = loadConfig(process.env, {
        ...(options.port !== undefined ? { port: options.port } : {}),
        ...(options.data !== undefined ? { dataDir: options.data } : {}),
      });
      const logger = createLogger({ level: config.logLevel });
      const runtime = await createRuntime(config, logger);
      let demoToken: string | undefined;
      if (options.demo) {
        const { organizations, persons } = runtime.storage.entities.counts();
        if (organizations + persons === 0) {
          const summary = loadDemoGraph(runtime.storage.entities, DEFAULT_DEMO_SIZES);
          logger.info(
            { ...DEFAULT_DEMO_SIZES, ms: Math.round(summary.elapsedMs) },
            'loaded the synthetic demo graph',
          );
        }
        demoToken = await ensureDemoToken(config.dataDir, runtime.services.tokens);
      }
      const pending = runtime.storage.entities.pendingKeyCount();
      if (pending > 0) {
        // Served as they are (by id, not by enhance): indexing blocks the store for minutes, so
        // the operator chooses when (`quarry index-keys`, or the next import).
        logger.warn(
          { entities: pending },
          'entities an import stopped before indexing are not found by enhance yet: run `quarry index-keys`',
        );
      }
      const address = await runtime.listen();
      logger.info({ address, dataDir: config.dataDir }, 'quarry listening');
      if (demoToken) printDemoBanner(config.port, demoToken);
      if (!heapTrimAvailable()) {
        logger.warn('heap trimming is off: start Node with --expose-gc (npm start and bin/quarry.mjs do)');
      }
      runUntilStopped(runtime, logger);
    });
}

function printDemoBanner(port: number, token: string): void {
  const base = `http://localhost:${port}`;
  const { organization, person, employer } = demoExamples();
  const org = new URLSearchParams({ type: 'Organization', name: organization.name ?? '', token });
  // A name alone is shared by several demo people (their scores split, no hit): the employer
  // tells them apart.
  const who = new URLSearchParams({
    type: 'Person',
    name: person.name ?? '',
    employer: employer.name ?? '',
    token,
  });
  process.stdout.write(
    [
      '',
      `Quarry is ready on ${base} (API docs: ${base}/docs)`,
      `Demo token: ${token}`,
      'The demo knowledge graph is synthetic. Try:',
      `  curl '${base}/kg/v3/enhance?${org}'`,
      `  curl '${base}/kg/v3/enhance/combine?${who}'`,
      '',
    ].join('\n'),
  );
}
