/**
 * Import of a Wikidata JSON dump (`latest-all.json`, `.gz` or `.bz2`) into the entity store, in
 * three passes, memory flat in the dump's size:
 *
 * 1. Selection: the dump is read line by line; a line is selected by its P31 (instance of) values
 *    alone (humans, organization classes: `selection.ts`), read as bytes without parsing the rest
 *    of it. Selected lines are parsed and mapped on a worker thread (`entity-mapper.ts`); their
 *    statements go to a work file on disk, with placeholders for the items they refer to, whose
 *    numbers are kept in a bit set.
 * 2. Labels: the dump is read again; the lines of items referred to (countries, employers,
 *    occupations, …) give their labels, and whether they are imported themselves. This is the
 *    second pass that resolves linked entities: a label may come after its first mention.
 * 3. Import: the work file, placeholders resolved (`linked-items.ts`), goes through the existing
 *    JSON Lines import (`importEntities`: validation, fact ledger, batches, retrieval keys), so a
 *    newer dump updates the same entities (ids are Wikidata's) and keeps other sources' facts.
 *
 * Rejected lines are reported with their dump line number and reason: a line that is not a JSON
 * object, selected lines that are not valid JSON or have no item id, lines over the length cap,
 * and (pass 3) statements the store refuses (an entity stored with another type).
 * A dump that breaks off (a truncated or corrupt archive) is imported up to where it broke, and
 * the import then fails with the reason.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityType } from '../../kg/index.ts';
import type { EntityStore } from '../../storage/index.ts';
import { WorkerPool } from '../../threads/index.ts';
import type { ImportCounts } from '../import-session.ts';
import { importEntities } from '../import-entities.ts';
import type { Rejection } from '../record-preparer.ts';
import {
  classesOf,
  DEFAULT_MAX_DUMP_LINE_BYTES,
  DumpLineReader,
  entityNumberOf,
  labelsOf,
  looksLikeObject,
} from './dump-lines.ts';
import { type Compression, DumpInputError, openDump } from './dump-input.ts';
import { DEFAULT_LANGUAGES, type MapOptions, preferredLabel } from './entity-mapper.ts';
import { ItemSet, LinkedItems } from './linked-items.ts';
import { type MapJob, type MapResult, mapJob } from './map-job.ts';
import { EntitySelector, shippedOrganizationClasses } from './selection.ts';

export interface WikidataImportOptions {
  /** Languages of names and descriptions, in order of preference, then any (default en, mul). */
  readonly languages?: readonly string[];
  /** Organization classes (item numbers); default the shipped list (`organization-classes.json`). */
  readonly organizationClasses?: readonly number[];
  /** Where the work files go (about a third of the selected lines' size); default the OS temp dir. */
  readonly workDir?: string;
  /** Source label of the statements; default each entity's Wikidata page (its origin). */
  readonly source?: string;
  /** Longest dump line read, in bytes (default 64 MiB); longer ones are rejected unread. */
  readonly maxLineBytes?: number;
  /** Worker threads mapping selected lines and preparing statements (default: 1 on 2+ cores, else 0). */
  readonly workers?: number;
  /** Entities per transaction of the import pass (see `SessionOptions.batchSize`). */
  readonly batchSize?: number;
  /** How many rejections the summary keeps (default 20); `onReject` sees all of them. */
  readonly keepRejects?: number;
  readonly onReject?: (rejection: Rejection) => void;
  /** Called as the passes go (about every MiB read, and at each pass's end). */
  readonly onProgress?: (progress: WikidataProgress) => void;
  /** Index retrieval keys at the end (default true); see `ImportOptions.indexKeys`. */
  readonly indexKeys?: boolean;
  /** Name of the input in reports; default the file's base name. */
  readonly fileName?: string;
}

export type WikidataPhase = 'select' | 'labels' | 'import' | 'index';

export interface WikidataProgress {
  readonly phase: WikidataPhase;
  /** Bytes of the pass's input read (the dump file's, compressed; the work file's in `import`). */
  readonly bytes: number;
  readonly totalBytes: number;
  /** Dump lines read in this pass (work-file lines in `import`). */
  readonly lines: number;
  /** Entities selected so far (pass 1), or in all (later passes). */
  readonly selected: number;
}

export interface WikidataImportSummary extends ImportCounts {
  readonly file: string;
  readonly format: 'wikidata';
  readonly compression: Compression;
  readonly fileBytes: number;
  readonly selectedPersons: number;
  readonly selectedOrganizations: number;
  /** Items the selected entities refer to, and how many of them had a label. */
  readonly referenced: number;
  readonly labelled: number;
  readonly selectMs: number;
  readonly labelsMs: number;
  readonly importMs: number;
  readonly keyIndexMs: number;
  readonly elapsedMs: number;
  /** Dump lines read per second by the selection pass. */
  readonly linesPerSecond: number;
  /** Entities written (created + updated + unchanged) per second of the import pass. */
  readonly entitiesPerSecond: number;
  /** The first rejections (`keepRejects`), in line order. */
  readonly rejects: readonly Rejection[];
  /** Set when the dump broke off: what was read before was imported. */
  readonly readError?: string;
}

/** Selected lines per mapping job (or bytes, whichever comes first): enough to amortise the messaging. */
const JOB_LINES = 500;
const JOB_BYTES = 8 << 20;

function defaultWorkers(): number {
  return os.availableParallelism() > 1 ? 1 : 0;
}

/** Keeps the first rejections of the passes, and counts them. */
class Rejections {
  readonly kept: Rejection[] = [];
  count = 0;
  readonly #keep: number;
  readonly #onReject: ((rejection: Rejection) => void) | undefined;

  constructor(keep: number, onReject: ((rejection: Rejection) => void) | undefined) {
    this.#keep = keep;
    this.#onReject = onReject;
  }

  add(rejection: Rejection): void {
    this.count++;
    this.kept.push(rejection);
    // Kept in line order: a later pass can reject an earlier line.
    if (this.kept.length > this.#keep) {
      this.kept.sort((a, b) => a.line - b.line);
      this.kept.length = this.#keep;
    }
    this.#onReject?.(rejection);
  }
}

/**
 * Imports the Wikidata dump `file` into `store`. Resolves with the summary; rejects with
 * `DumpInputError` only when the file cannot be read at all (nothing written). Work files are
 * removed at the end, whatever happens.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the import's three passes and their work directory, set up and torn down in one try/finally so every pass's files are removed whatever happens
export async function importWikidataDump(
  store: EntityStore,
  file: string,
  options: WikidataImportOptions = {},
): Promise<WikidataImportSummary> {
  const started = performance.now();
  const fileName = options.fileName ?? path.basename(file);
  const mapOptions: MapOptions = { languages: options.languages ?? DEFAULT_LANGUAGES };
  const selector = new EntitySelector(options.organizationClasses ?? shippedOrganizationClasses());
  const rejections = new Rejections(options.keepRejects ?? 20, options.onReject);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_DUMP_LINE_BYTES;
  const workDir = fs.mkdtempSync(path.join(options.workDir ?? os.tmpdir(), 'quarry-wikidata-'));
  try {
    const selection = await selectPass(file, {
      selector,
      mapOptions,
      maxLineBytes,
      workDir,
      workers: options.workers ?? defaultWorkers(),
      rejections,
      onProgress: options.onProgress,
    });
    const labelsStarted = performance.now();
    const linked = new LinkedItems();
    const referenced = selection.refs.size;
    if (referenced > 0) {
      await labelPass(file, selection, {
        selector,
        mapOptions,
        maxLineBytes,
        linked,
        onProgress: options.onProgress,
      });
    }
    const labelsMs = performance.now() - labelsStarted;

    const importStarted = performance.now();
    const lineNumbers = fs.openSync(selection.numbersFile, 'r');
    let spillBytes = 0;
    let spillLines = 0;
    const spillSize = fs.statSync(selection.spillFile).size;
    const selected = selection.persons + selection.organizations;
    const resolved = resolvedLines(selection.spillFile, linked, (bytes, lines) => {
      spillBytes = bytes;
      spillLines = lines;
    });
    let summary: Awaited<ReturnType<typeof importEntities>>;
    try {
      summary = await importEntities(store, resolved, {
        format: 'jsonl',
        fileName,
        statedNonCanonicalFacts: true,
        maxLineBytes: 256 * 1024 * 1024,
        keepRejects: 0,
        ...(options.source !== undefined ? { source: options.source } : {}),
        ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
        ...(options.workers !== undefined ? { workers: options.workers } : {}),
        ...(options.indexKeys !== undefined ? { indexKeys: options.indexKeys } : {}),
        // A statement the store refuses is reported at its line in the dump.
        onReject: (rejection) =>
          rejections.add({ line: dumpLine(lineNumbers, rejection.line), reason: rejection.reason }),
        onProgress: () =>
          options.onProgress?.({
            phase: 'import',
            bytes: spillBytes,
            totalBytes: spillSize,
            lines: spillLines,
            selected,
          }),
        onIndexing: () =>
          options.onProgress?.({
            phase: 'index',
            bytes: spillSize,
            totalBytes: spillSize,
            lines: spillLines,
            selected,
          }),
      });
    } finally {
      fs.closeSync(lineNumbers);
    }
    const importMs = performance.now() - importStarted;
    const elapsedMs = performance.now() - started;
    const written = summary.created + summary.updated + summary.unchanged;
    return {
      file: fileName,
      format: 'wikidata',
      compression: selection.compression,
      fileBytes: selection.fileBytes,
      linesRead: selection.lines,
      created: summary.created,
      updated: summary.updated,
      unchanged: summary.unchanged,
      rejected: rejections.count,
      selectedPersons: selection.persons,
      selectedOrganizations: selection.organizations,
      referenced,
      labelled: linked.labels.size,
      selectMs: selection.elapsedMs,
      labelsMs,
      importMs,
      keyIndexMs: summary.keyIndexMs,
      elapsedMs,
      linesPerSecond: selection.elapsedMs > 0 ? selection.lines / (selection.elapsedMs / 1000) : 0,
      entitiesPerSecond: importMs > 0 ? written / (importMs / 1000) : 0,
      rejects: [...rejections.kept].sort((a, b) => a.line - b.line),
      ...(selection.readError !== undefined ? { readError: selection.readError } : {}),
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** The dump line of work-file line `line` (1-based), from the file of line numbers (u32 each). */
function dumpLine(numbers: number, line: number): number {
  const buffer = Buffer.alloc(4);
  return fs.readSync(numbers, buffer, 0, 4, (line - 1) * 4) === 4 ? buffer.readUInt32LE(0) : 0;
}

interface SelectionResult {
  readonly compression: Compression;
  readonly fileBytes: number;
  readonly lines: number;
  readonly persons: number;
  readonly organizations: number;
  readonly refs: ItemSet;
  readonly spillFile: string;
  readonly numbersFile: string;
  readonly elapsedMs: number;
  readonly readError?: string;
  /** Dump bytes (decompressed) read before the read error, if any: the label pass stops there. */
  readonly bytesRead: number;
}

interface SelectContext {
  readonly selector: EntitySelector;
  readonly mapOptions: MapOptions;
  readonly maxLineBytes: number;
  readonly workDir: string;
  readonly workers: number;
  readonly rejections: Rejections;
  readonly onProgress: ((progress: WikidataProgress) => void) | undefined;
}

/** A job being filled: selected lines (views of the chunks read), and the rejections of the lines it spans. */
interface PendingJob {
  readonly numbers: number[];
  readonly types: EntityType[];
  readonly lines: Buffer[];
  bytes: number;
  readonly rejects: Rejection[];
}

function emptyJob(): PendingJob {
  return { numbers: [], types: [], lines: [], bytes: 0, rejects: [] };
}

/** The job to post: the lines' bytes copied into one block. */
function toMapJob(pending: PendingJob): MapJob {
  const ends: number[] = [];
  let end = 0;
  for (const line of pending.lines) {
    end += line.length;
    ends.push(end);
  }
  return { numbers: pending.numbers, types: pending.types, bytes: Buffer.concat(pending.lines, end), ends };
}

/** Pass 1: selection and mapping, statements to the work file. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a pipeline (dump reader, mapping threads, in-order writer) whose stages share the streams, the in-flight queue and the counters opened here and closed in its finally; split, each stage would take all of them
async function selectPass(file: string, context: SelectContext): Promise<SelectionResult> {
  const started = performance.now();
  const input = openDump(file);
  const spillFile = path.join(context.workDir, 'statements.jsonl');
  const numbersFile = path.join(context.workDir, 'line-numbers.u32');
  const spill = fs.createWriteStream(spillFile, { highWaterMark: 1 << 20 });
  const numbers = fs.createWriteStream(numbersFile, { highWaterMark: 1 << 16 });
  const refs = new ItemSet();
  let persons = 0;
  let organizations = 0;
  let current = emptyJob();
  const { selector, maxLineBytes, rejections } = context;
  const reader = new DumpLineReader(
    (line, number) => {
      if (!looksLikeObject(line)) {
        current.rejects.push({ line: number, reason: 'not a JSON object (a malformed or truncated line)' });
        return;
      }
      const read = classesOf(line);
      if (read.kind === 'none') return;
      if (read.kind === 'malformed') {
        current.rejects.push({ line: number, reason: 'its P31 (instance of) statements are not valid JSON' });
        return;
      }
      const type = selector.typeOf(read.classes);
      if (type === undefined) return;
      if (type === 'Person') persons++;
      else organizations++;
      current.numbers.push(number);
      current.types.push(type);
      // A view: the chunk it points into stays alive until the job is posted.
      current.lines.push(line);
      current.bytes += line.length;
    },
    {
      maxLineBytes,
      onOversized: (number, bytes) =>
        current.rejects.push({
          line: number,
          reason: `the line is ${bytes} bytes long, more than the ${maxLineBytes} read (--max-line-bytes): skipped unread`,
        }),
    },
  );
  const pool =
    context.workers > 0
      ? new WorkerPool<MapJob, MapResult>({
          size: context.workers,
          script: new URL('./mapper-worker.ts', import.meta.url),
          workerData: context.mapOptions,
        })
      : undefined;
  // Jobs in flight, in dump order: their results are written in that order.
  const inFlight: { result: Promise<MapResult>; rejects: Rejection[] }[] = [];
  const maxInFlight = 2 * Math.max(1, context.workers) + 1;
  const write = async (done: { result: Promise<MapResult>; rejects: Rejection[] }) => {
    const result = await done.result;
    // The job's own rejections and the worker's, in line order.
    const rejects = [...done.rejects, ...result.rejects].sort((a, b) => a.line - b.line);
    for (const rejection of rejects) rejections.add(rejection);
    for (const n of result.refs) refs.add(n);
    if (result.json.length === 0) return;
    const lineNumbers = Buffer.alloc(4 * result.numbers.length);
    for (let i = 0; i < result.numbers.length; i++) lineNumbers.writeUInt32LE(result.numbers[i], 4 * i);
    const more = spill.write(`${result.json.join('\n')}\n`);
    const moreNumbers = numbers.write(lineNumbers);
    if (!more) await new Promise<void>((resolve) => spill.once('drain', resolve));
    if (!moreNumbers) await new Promise<void>((resolve) => numbers.once('drain', resolve));
  };
  const submit = async (force: boolean) => {
    if (!force && current.numbers.length < JOB_LINES && current.bytes < JOB_BYTES) return;
    if (current.numbers.length === 0 && current.rejects.length === 0) return;
    const pending = current;
    current = emptyJob();
    const job = toMapJob(pending);
    const result = pool ? pool.run(job) : Promise.resolve(mapJob(job, context.mapOptions));
    inFlight.push({ result, rejects: pending.rejects });
    while (inFlight.length >= maxInFlight) await write(inFlight.shift()!);
  };
  let decompressed = 0;
  let readError: string | undefined;
  let lastProgress = 0;
  const progress = () =>
    context.onProgress?.({
      phase: 'select',
      bytes: input.fileBytesRead(),
      totalBytes: input.fileBytes,
      lines: reader.lines,
      selected: persons + organizations,
    });
  try {
    try {
      for await (const chunk of input.chunks) {
        decompressed += chunk.length;
        reader.push(chunk);
        await submit(false);
        if (decompressed - lastProgress >= 1 << 20) {
          lastProgress = decompressed;
          progress();
        }
      }
      reader.end();
    } catch (error) {
      if (!(error instanceof DumpInputError)) throw error;
      // What was read before the break is imported; the line it broke in is not.
      readError = error.message;
    }
    await submit(true);
    while (inFlight.length > 0) await write(inFlight.shift()!);
  } finally {
    input.close();
    await pool?.close();
    await Promise.all([
      new Promise<void>((resolve) => spill.end(resolve)),
      new Promise<void>((resolve) => numbers.end(resolve)),
    ]);
  }
  progress();
  if (readError !== undefined && reader.lines === 0) throw new DumpInputError(readError);
  return {
    compression: input.compression,
    fileBytes: input.fileBytes,
    lines: reader.lines,
    persons,
    organizations,
    refs,
    spillFile,
    numbersFile,
    elapsedMs: performance.now() - started,
    bytesRead: decompressed,
    ...(readError !== undefined ? { readError } : {}),
  };
}

interface LabelContext {
  readonly selector: EntitySelector;
  readonly mapOptions: MapOptions;
  readonly maxLineBytes: number;
  readonly linked: LinkedItems;
  readonly onProgress: ((progress: WikidataProgress) => void) | undefined;
}

/** Pass 2: the labels (and types) of the items the selected entities refer to. */
async function labelPass(file: string, selection: SelectionResult, context: LabelContext): Promise<void> {
  const input = openDump(file);
  const { refs } = selection;
  const { selector, linked, mapOptions } = context;
  const reader = new DumpLineReader(
    (line) => {
      if (!looksLikeObject(line)) return;
      const n = entityNumberOf(line);
      if (n === undefined || !refs.has(n)) return;
      const label = preferredLabel(labelsOf(line), mapOptions.languages);
      const read = classesOf(line);
      linked.learn(n, label, read.kind === 'classes' ? selector.typeOf(read.classes) : undefined);
    },
    { maxLineBytes: context.maxLineBytes },
  );
  let decompressed = 0;
  let lastProgress = 0;
  const progress = () =>
    context.onProgress?.({
      phase: 'labels',
      bytes: input.fileBytesRead(),
      totalBytes: input.fileBytes,
      lines: reader.lines,
      selected: selection.persons + selection.organizations,
    });
  try {
    for await (const chunk of input.chunks) {
      // A dump that broke off in the first pass is read up to the same point.
      const room = selection.bytesRead - decompressed;
      if (selection.readError !== undefined && room <= 0) break;
      reader.push(selection.readError !== undefined && chunk.length > room ? chunk.subarray(0, room) : chunk);
      decompressed += chunk.length;
      if (decompressed - lastProgress >= 1 << 20) {
        lastProgress = decompressed;
        progress();
      }
    }
    if (selection.readError === undefined) reader.end();
  } catch (error) {
    if (!(error instanceof DumpInputError) || selection.readError === undefined) throw error;
  } finally {
    input.close();
  }
  progress();
}

/**
 * The work file's statements, placeholders resolved, as chunks of JSON Lines; `onRead` is told
 * the work-file bytes and lines read so far.
 */
async function* resolvedLines(
  spillFile: string,
  linked: LinkedItems,
  onRead: (bytes: number, lines: number) => void,
): AsyncIterable<string> {
  let bytes = 0;
  let lines = 0;
  let rest = '';
  for await (const chunk of fs.createReadStream(spillFile, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    bytes += Buffer.byteLength(chunk as string);
    const text = rest + (chunk as string);
    const last = text.lastIndexOf('\n');
    if (last === -1) {
      rest = text;
      continue;
    }
    rest = text.slice(last + 1);
    const complete = text.slice(0, last);
    const out = complete.split('\n');
    lines += out.length;
    for (let i = 0; i < out.length; i++) out[i] = linked.substitute(out[i]);
    onRead(bytes, lines);
    yield `${out.join('\n')}\n`;
  }
  if (rest !== '') {
    lines++;
    onRead(bytes, lines);
    yield `${linked.substitute(rest)}\n`;
  }
}
