import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { MAINTENANCE_POLL_MS, MAINTENANCE_SWITCH, maintenanceIsOn } from '../crawl/index.ts';
import { configuredStore } from '../runtime.ts';
import { openStorage } from '../storage/index.ts';

/**
 * `quarry maintenance on|off|status [--data DIR]`: the operator switch that holds every bulk
 * extract job. The switch lives in the store under the data directory; a running server looks
 * at it twice a second, so within a second every job in progress (or waiting for its next
 * round) shows status 8 and gets no new fetch; `off` gives each job back the status it had.
 * With no server running, the switch applies when the server starts.
 */
export function registerMaintenance(program: Command): void {
  program
    .command('maintenance')
    .description('hold (on) or release (off) every bulk extract job; status shows the switch')
    .argument('<state>', 'on, off or status')
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .action(async (state: string, options: { data?: string }) => {
      if (state !== 'on' && state !== 'off' && state !== 'status') {
        throw new Error(`maintenance: expected on, off or status, got "${state}"`);
      }
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const storage = openStorage(configuredStore(config));
      try {
        if (state !== 'status') await storage.crawlJobs.setSwitch(MAINTENANCE_SWITCH, state, Date.now());
        const on = await maintenanceIsOn(storage.crawlJobs);
        process.stdout.write(`maintenance ${on ? 'on' : 'off'}\n`);
        if (state !== 'status') {
          process.stderr.write(
            on
              ? `every bulk extract job in progress is held (status 8) within ${MAINTENANCE_POLL_MS * 2} ms by a running server\n`
              : `held bulk extract jobs get their previous status back within ${MAINTENANCE_POLL_MS * 2} ms\n`,
          );
        }
      } finally {
        await storage.close();
      }
    });
}
