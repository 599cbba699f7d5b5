import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { type ImportSummary, importEntities, type Rejection } from '../import/index.ts';
import { openServices } from '../runtime.ts';
import { secondsSince, withElapsed } from './elapsed.ts';

interface ImportCliOptions {
  format?: 'jsonl' | 'csv';
  type?: 'Organization' | 'Person';
  map?: string;
  source?: string;
  rejects?: string;
  maxLineBytes?: number;
  data?: string;
}

/** Rejections printed per file; `--rejects FILE` gets all of them. */
const SHOWN_REJECTS = 10;

function parseFormat(value: string): 'jsonl' | 'csv' {
  if (value !== 'jsonl' && value !== 'csv') throw new InvalidArgumentError('must be jsonl or csv');
  return value;
}

function parseType(value: string): 'Organization' | 'Person' {
  if (value !== 'Organization' && value !== 'Person')
    throw new InvalidArgumentError('must be Organization or Person');
  return value;
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** The summary line of one file; `keysLater` when its keys are indexed after the last file. */
function formatSummary(summary: ImportSummary, keysLater: boolean): string {
  const seconds = (summary.elapsedMs / 1000).toFixed(1);
  const keys = keysLater
    ? 'keys indexed after the last file'
    : `keys indexed in ${(summary.keyIndexMs / 1000).toFixed(1)} s of it`;
  const rate = Math.round(summary.entitiesPerSecond).toLocaleString('en-US');
  return (
    `${summary.file}: ${summary.linesRead} lines read, ${summary.created} created, ${summary.updated} updated, ` +
    `${summary.unchanged} unchanged, ${summary.rejected} rejected (${seconds} s, ${rate} entities/s; ${keys})`
  );
}

/**
 * `quarry import FILE… [--format jsonl|csv] [--type T] [--map SPEC] [--source LABEL]
 * [--rejects FILE] [--max-line-bytes N] [--data DIR]`. `-` reads stdin. Progress bar and summary
 * on stderr, nothing on stdout. Exit code: 0 when the inputs were imported (some lines may have
 * been rejected), 1 when a file cannot be read or imported (the other files still are), 2 when
 * every line of the inputs was rejected.
 */
export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import entities from JSON Lines or CSV files into the knowledge graph')
    .argument('<files...>', 'files to import (- for stdin)')
    .option('--format <format>', 'jsonl or csv (default: from the file extension, else jsonl)', parseFormat)
    .option('--type <type>', 'CSV: type of rows without a type column (Organization or Person)', parseType)
    .option(
      '--map <spec>',
      'CSV: column mapping "Header=path,…", e.g. "Company=name,City=location.city.name"',
    )
    .option(
      '--source <label>',
      'source of the statements (default: each record’s origins, else import:<file>)',
    )
    .option('--rejects <file>', 'write every rejected line as JSON Lines {file, line, reason}')
    .option('--max-line-bytes <n>', 'longest accepted line in bytes (default 1048576)', parsePositiveInt)
    .option('--data <dir>', 'data directory (default: $QUARRY_DATA_DIR or ./data)')
    .addHelpText(
      'after',
      `
CSV: the header row names the columns; a column's path is its header unless --map gives one.
Cells of list fields (allNames, allUris, industries, phoneNumbers, emailAddresses, employments.title,
…) hold several values separated by ";". Empty cells state nothing.

Exit codes: 0 imported (possibly with rejected lines), 1 a file could not be read or imported,
2 every line was rejected.`,
    )
    .action(async (files: string[], options: ImportCliOptions) => {
      const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
      const rejectsOut = options.rejects ? fs.createWriteStream(options.rejects) : undefined;
      const { storage } = openServices(config);
      let failed = false;
      let accepted = 0;
      let rejected = 0;
      // Several files: their keys are indexed once, after the last (one pass instead of a pass
      // per file, each merging into the whole key index).
      const keysLater = files.length > 1;
      try {
        for (const file of files) {
          const fileName = file === '-' ? 'stdin' : path.basename(file);
          let input: AsyncIterable<Uint8Array>;
          let total = 0;
          if (file === '-') {
            input = process.stdin;
          } else {
            try {
              total = fs.statSync(file).size;
              input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
            } catch (error) {
              process.stderr.write(`${file}: cannot read: ${(error as Error).message}\n`);
              failed = true;
              continue;
            }
          }
          const bar = new cliProgress.SingleBar(
            {
              format: `${fileName} [{bar}] {percentage}% | {value}/{total} bytes | ETA {eta}s{phase}`,
              stream: process.stderr,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, 0, { phase: '' });
          let indexing: NodeJS.Timeout | undefined;
          try {
            const summary = await importEntities(storage.entities, input, {
              fileName,
              ...(options.format ? { format: options.format } : {}),
              ...(options.type ? { type: options.type } : {}),
              ...(options.map !== undefined ? { map: options.map } : {}),
              ...(options.source !== undefined ? { source: options.source } : {}),
              ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
              keepRejects: SHOWN_REJECTS,
              indexKeys: !keysLater,
              onProgress: (bytes) => bar.update(total > 0 ? Math.min(bytes, total) : bytes),
              // The last pass has no progress of its own: the bar says what runs and for how
              // long (it runs off this thread, so the bar keeps redrawing, on a terminal only).
              onIndexing: () => {
                const started = performance.now();
                const show = () =>
                  bar.update({ phase: ` | indexing retrieval keys… ${secondsSince(started)} s` });
                show();
                indexing = setInterval(show, 1000);
              },
              onReject: (rejection: Rejection) =>
                rejectsOut?.write(`${JSON.stringify({ file: fileName, ...rejection })}\n`),
            });
            bar.stop();
            accepted += summary.created + summary.updated + summary.unchanged;
            rejected += summary.rejected;
            process.stderr.write(`${formatSummary(summary, keysLater)}\n`);
            for (const rejection of summary.rejects) {
              process.stderr.write(`  line ${rejection.line}: ${rejection.reason}\n`);
            }
            if (summary.rejected > summary.rejects.length) {
              const more = summary.rejected - summary.rejects.length;
              process.stderr.write(
                `  … and ${more} more rejected line(s)${options.rejects ? ` (all in ${options.rejects})` : ' (--rejects FILE lists them all)'}\n`,
              );
            }
          } catch (error) {
            bar.stop();
            process.stderr.write(`${file}: import stopped: ${(error as Error).message}\n`);
            failed = true;
          } finally {
            clearInterval(indexing);
          }
        }
        if (keysLater) {
          process.stderr.write('indexing the retrieval keys of every file…\n');
          const started = performance.now();
          try {
            await withElapsed('indexing…', () => storage.entities.indexPendingKeysOffThread());
            process.stderr.write(`keys indexed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
          } catch (error) {
            // What was written stays; `quarry index-keys` (or the next import) indexes the rest.
            process.stderr.write(
              `indexing keys stopped: ${(error as Error).message}; \`quarry index-keys\` indexes the rest\n`,
            );
            failed = true;
          }
        }
      } finally {
        await storage.close();
        if (rejectsOut) await new Promise<void>((resolve) => rejectsOut.end(resolve));
      }
      if (files.length > 1) {
        process.stderr.write(`total: ${accepted} lines imported, ${rejected} rejected\n`);
      }
      if (failed) process.exitCode = 1;
      else if (accepted === 0 && rejected > 0) process.exitCode = 2;
    });
}
