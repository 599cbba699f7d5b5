import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import {
  ClassListError,
  DumpInputError,
  type ImportFormat,
  type ImportSummary,
  importEntities,
  importWikidataDump,
  loadOrganizationClasses,
  type Rejection,
  type WikidataImportSummary,
  type WikidataProgress,
} from '../import/index.ts';
import type { EntityStore } from '../storage/index.ts';
import { openServices } from '../runtime.ts';
import { secondsSince, withElapsed } from './elapsed.ts';

type CliFormat = 'jsonl' | 'csv' | 'wikidata';

interface ImportCliOptions {
  format?: CliFormat;
  type?: 'Organization' | 'Person';
  map?: string;
  source?: string;
  rejects?: string;
  maxLineBytes?: number;
  data?: string;
  languages?: string[];
  orgClasses?: string;
  workDir?: string;
}

/** Rejections printed per file; `--rejects FILE` gets all of them. */
const SHOWN_REJECTS = 10;

function parseFormat(value: string): CliFormat {
  if (value !== 'jsonl' && value !== 'csv' && value !== 'wikidata') {
    throw new InvalidArgumentError('must be jsonl, csv or wikidata');
  }
  return value;
}

function parseLanguages(value: string): string[] {
  const languages = value
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (languages.length === 0 || languages.some((l) => !/^[a-z]{2,3}(-[a-z0-9-]+)?$/i.test(l))) {
    throw new InvalidArgumentError('must be language codes separated by commas, e.g. en,mul,de');
  }
  return languages;
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
    .description('import entities from JSON Lines or CSV files, or a Wikidata dump, into the knowledge graph')
    .argument('<files...>', 'files to import (- for stdin)')
    .option(
      '--format <format>',
      'jsonl, csv or wikidata (default: from the file extension, else jsonl)',
      parseFormat,
    )
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
    .option(
      '--languages <list>',
      'wikidata: languages of names and descriptions, by preference, then any (default en,mul)',
      parseLanguages,
    )
    .option(
      '--org-classes <file>',
      'wikidata: the classes (Q-ids) whose instances are Organizations, replacing the shipped list',
    )
    .option('--work-dir <dir>', 'wikidata: where the work files go (default: the data directory)')
    .addHelpText(
      'after',
      `
CSV: the header row names the columns; a column's path is its header unless --map gives one.
Cells of list fields (allNames, allUris, industries, phoneNumbers, emailAddresses, employments.title,
…) hold several values separated by ";". Empty cells state nothing.

Wikidata: a JSON dump (latest-all.json, plain, .gz or .bz2; .bz2 needs the bzip2 program) is
read twice (selection, then the labels of the items it refers to), then imported: humans as
Persons, instances of the organization classes as Organizations (docs/wikidata-import.md).

Exit codes: 0 imported (possibly with rejected lines), 1 a file could not be read or imported,
2 every line was rejected.`,
    )
    .action((files: string[], options: ImportCliOptions) => runImport(files, options));
}

/** The options of a JSON Lines or CSV import (`--format wikidata` goes its own way). */
type LineFileOptions = Omit<ImportCliOptions, 'format'> & { readonly format?: ImportFormat };

/** Counts of one imported file, for the total line and the exit code. */
interface FileCounts {
  readonly accepted: number;
  readonly rejected: number;
}

/** The import command: every file in turn, then (several files) one pass over their keys. */
async function runImport(files: string[], options: ImportCliOptions): Promise<void> {
  const config = loadConfig(process.env, options.data ? { dataDir: options.data } : {});
  if (options.format === 'wikidata') {
    await importWikidataFiles(files, options, config.dataDir);
    return;
  }
  const lineOptions: LineFileOptions = { ...options, format: options.format };
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
      const counts = await importOneFile(storage.entities, file, lineOptions, { rejectsOut, keysLater });
      if (counts === undefined) {
        failed = true;
        continue;
      }
      accepted += counts.accepted;
      rejected += counts.rejected;
    }
    if (keysLater && !(await indexKeysOfEveryFile(storage.entities))) failed = true;
  } finally {
    await storage.close();
    if (rejectsOut) await new Promise<void>((resolve) => rejectsOut.end(resolve));
  }
  if (files.length > 1) {
    process.stderr.write(`total: ${accepted} lines imported, ${rejected} rejected\n`);
  }
  if (failed) process.exitCode = 1;
  else if (accepted === 0 && rejected > 0) process.exitCode = 2;
}

/** The bytes of `file` (`-`: stdin) and their total; undefined (reported) when unreadable. */
function openInput(file: string): { input: AsyncIterable<Uint8Array>; total: number } | undefined {
  if (file === '-') return { input: process.stdin, total: 0 };
  try {
    const total = fs.statSync(file).size;
    return { input: fs.createReadStream(file, { highWaterMark: 1 << 20 }), total };
  } catch (error) {
    process.stderr.write(`${file}: cannot read: ${(error as Error).message}\n`);
    return undefined;
  }
}

/** One JSON Lines or CSV file with its progress bar; undefined (reported) when it failed. */
async function importOneFile(
  store: EntityStore,
  file: string,
  options: LineFileOptions,
  run: { readonly rejectsOut: fs.WriteStream | undefined; readonly keysLater: boolean },
): Promise<FileCounts | undefined> {
  const fileName = file === '-' ? 'stdin' : path.basename(file);
  const opened = openInput(file);
  if (opened === undefined) return undefined;
  const { input, total } = opened;
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
    const summary = await importEntities(store, input, {
      fileName,
      ...(options.format ? { format: options.format } : {}),
      ...(options.type ? { type: options.type } : {}),
      ...(options.map !== undefined ? { map: options.map } : {}),
      ...(options.source !== undefined ? { source: options.source } : {}),
      ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
      keepRejects: SHOWN_REJECTS,
      indexKeys: !run.keysLater,
      onProgress: (bytes) => bar.update(total > 0 ? Math.min(bytes, total) : bytes),
      // The last pass has no progress of its own: the bar says what runs and for how
      // long (it runs off this thread, so the bar keeps redrawing, on a terminal only).
      onIndexing: () => {
        const started = performance.now();
        const show = () => bar.update({ phase: ` | indexing retrieval keys… ${secondsSince(started)} s` });
        show();
        indexing = setInterval(show, 1000);
      },
      onReject: (rejection: Rejection) =>
        run.rejectsOut?.write(`${JSON.stringify({ file: fileName, ...rejection })}\n`),
    });
    bar.stop();
    process.stderr.write(`${formatSummary(summary, run.keysLater)}\n`);
    printRejects(summary, options.rejects);
    return { accepted: summary.created + summary.updated + summary.unchanged, rejected: summary.rejected };
  } catch (error) {
    bar.stop();
    process.stderr.write(`${file}: import stopped: ${(error as Error).message}\n`);
    return undefined;
  } finally {
    clearInterval(indexing);
  }
}

/** The rejections kept for the terminal, and how many more `--rejects FILE` holds. */
function printRejects(
  summary: { readonly rejected: number; readonly rejects: readonly Rejection[] },
  rejectsFile: string | undefined,
): void {
  for (const rejection of summary.rejects) {
    process.stderr.write(`  line ${rejection.line}: ${rejection.reason}\n`);
  }
  if (summary.rejected > summary.rejects.length) {
    const more = summary.rejected - summary.rejects.length;
    process.stderr.write(
      `  … and ${more} more rejected line(s)${rejectsFile ? ` (all in ${rejectsFile})` : ' (--rejects FILE lists them all)'}\n`,
    );
  }
}

/** The key pass after the last of several files; false (reported) when it stopped. */
async function indexKeysOfEveryFile(store: EntityStore): Promise<boolean> {
  process.stderr.write('indexing the retrieval keys of every file…\n');
  const started = performance.now();
  try {
    await withElapsed('indexing…', () => store.indexPendingKeysOffThread());
    process.stderr.write(`keys indexed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return true;
  } catch (error) {
    // What was written stays; `quarry index-keys` (or the next import) indexes the rest.
    process.stderr.write(
      `indexing keys stopped: ${(error as Error).message}; \`quarry index-keys\` indexes the rest\n`,
    );
    return false;
  }
}

/** The summary line of one Wikidata dump. */
function formatWikidataSummary(summary: WikidataImportSummary): string {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return (
    `${summary.file}: ${n(summary.linesRead)} lines read, ${n(summary.selectedPersons)} persons and ` +
    `${n(summary.selectedOrganizations)} organizations selected, ${summary.created} created, ` +
    `${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.rejected} rejected ` +
    `(${s(summary.elapsedMs)} s: selection ${s(summary.selectMs)} s at ${n(summary.linesPerSecond)} lines/s, ` +
    `labels of ${n(summary.referenced)} linked items ${s(summary.labelsMs)} s, import ${s(summary.importMs)} s ` +
    `at ${n(summary.entitiesPerSecond)} entities/s, keys indexed in ${s(summary.keyIndexMs)} s of it)`
  );
}

const PHASES: Readonly<Record<WikidataProgress['phase'], string>> = {
  select: 'selection',
  labels: 'labels',
  import: 'import',
  index: 'indexing keys',
};

/** `import --format wikidata FILE…`: each dump in turn, with a progress bar of its passes. */
async function importWikidataFiles(
  files: string[],
  options: ImportCliOptions,
  dataDir: string,
): Promise<void> {
  if (files.includes('-')) {
    process.stderr.write('--format wikidata reads its dump twice: give a file, not - (stdin)\n');
    process.exitCode = 1;
    return;
  }
  for (const unsupported of ['type', 'map'] as const) {
    if (options[unsupported] !== undefined) {
      process.stderr.write(`--${unsupported} applies to CSV, not to --format wikidata\n`);
      process.exitCode = 1;
      return;
    }
  }
  let organizationClasses: number[];
  try {
    organizationClasses = loadOrganizationClasses(options.orgClasses);
  } catch (error) {
    if (!(error instanceof ClassListError)) throw error;
    process.stderr.write(`--org-classes ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  const config = loadConfig(process.env, { dataDir });
  const rejectsOut = options.rejects ? fs.createWriteStream(options.rejects) : undefined;
  const { storage } = openServices(config);
  let failed = false;
  let accepted = 0;
  let rejected = 0;
  try {
    for (const file of files) {
      const fileName = path.basename(file);
      const summary = await importOneDump(storage.entities, file, fileName, {
        organizationClasses,
        workDir: options.workDir ?? config.dataDir,
        ...(options.languages ? { languages: options.languages } : {}),
        ...(options.source !== undefined ? { source: options.source } : {}),
        ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
        onReject: (rejection: Rejection) =>
          rejectsOut?.write(`${JSON.stringify({ file: fileName, ...rejection })}\n`),
      });
      if (summary === undefined) {
        failed = true;
        continue;
      }
      accepted += summary.created + summary.updated + summary.unchanged;
      rejected += summary.rejected;
      process.stderr.write(`${formatWikidataSummary(summary)}\n`);
      printRejects(summary, options.rejects);
      if (summary.readError !== undefined) {
        process.stderr.write(
          `${file}: the dump broke off, what came before was imported: ${summary.readError}\n`,
        );
        failed = true;
      }
    }
  } finally {
    storage.close();
    if (rejectsOut) await new Promise<void>((resolve) => rejectsOut.end(resolve));
  }
  if (failed) process.exitCode = 1;
  else if (accepted === 0 && rejected > 0) process.exitCode = 2;
}

/** One dump with its progress bar; undefined (reported) when it cannot be read. */
async function importOneDump(
  store: EntityStore,
  file: string,
  fileName: string,
  options: Parameters<typeof importWikidataDump>[2],
): Promise<WikidataImportSummary | undefined> {
  const bar = new cliProgress.SingleBar(
    {
      format: `${fileName} {phase} [{bar}] {percentage}% | {value}/{total} bytes | {lines} lines, {selected} selected`,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  let phase: WikidataProgress['phase'] | undefined;
  try {
    const summary = await importWikidataDump(store, file, {
      ...options,
      fileName,
      keepRejects: SHOWN_REJECTS,
      onProgress: (progress) => {
        const payload = {
          phase: PHASES[progress.phase],
          lines: progress.lines.toLocaleString('en-US'),
          selected: progress.selected.toLocaleString('en-US'),
        };
        if (progress.phase !== phase) {
          if (phase !== undefined) bar.stop();
          phase = progress.phase;
          bar.start(progress.totalBytes, Math.min(progress.bytes, progress.totalBytes), payload);
        } else {
          bar.update(Math.min(progress.bytes, progress.totalBytes), payload);
        }
      },
    });
    bar.stop();
    return summary;
  } catch (error) {
    bar.stop();
    if (!(error instanceof DumpInputError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return undefined;
  }
}
