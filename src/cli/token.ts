import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { openServices } from '../runtime.ts';
import { parseNonNegativeInt } from './options.ts';

/** `quarry token create [--credits N|--unlimited] [--label L]`: prints only the token on stdout. */
export function registerToken(program: Command): void {
  const token = program.command('token').description('manage API tokens');
  token
    .command('create')
    .description('create a token and print it (only the token) on stdout')
    .option('--credits <n>', 'credit balance of the token', parseNonNegativeInt)
    .option('--unlimited', 'the token never runs out of credits')
    .option('--label <text>', 'a note to recognise the token by')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (options: { credits?: number; unlimited?: boolean; label?: string; data?: string }) => {
      if (options.unlimited && options.credits !== undefined) {
        throw new InvalidArgumentError('--credits and --unlimited are mutually exclusive');
      }
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const { storage, services } = openServices(config);
      try {
        // Without either flag a token is unlimited: the operator creating it is trusted.
        const credits = options.credits ?? null;
        const { secret, record } = await services.tokens.create({ credits, label: options.label });
        process.stdout.write(`${secret}\n`);
        process.stderr.write(
          `created ${record.id} (${credits === null ? 'unlimited credits' : `${credits} credits`})\n`,
        );
      } finally {
        await storage.close();
      }
    });
}
