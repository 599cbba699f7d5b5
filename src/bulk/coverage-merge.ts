import { once } from 'node:events';
import fs from 'node:fs';
import {
  type CoverageCounts,
  coverageCsvHead,
  coverageFractions,
  coverageJsonEnd,
  coverageJsonHead,
} from '../export/index.ts';

/** The two files of a coverage report. */
export interface CoverageFiles {
  readonly csv: string;
  readonly json: string;
}

async function write(out: fs.WriteStream, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Copies `file` to `out`. */
async function copy(out: fs.WriteStream, file: string): Promise<void> {
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }))
    await write(out, chunk);
}

async function finish(out: fs.WriteStream, part: string, target: string): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  fs.renameSync(part, target);
}

/** A part's coverage report: its rows (`CoverageReport.saveRows`) and what it counted. */
export interface CoveragePart {
  readonly files: CoverageFiles;
  readonly counts: CoverageCounts;
}

/**
 * Merges the coverage reports written for consecutive parts of one export (same plan, records in
 * order; each part's rows alone, `CoverageReport.saveRows`) into the report one pass over all
 * records writes, and deletes the parts. Fractions come from the parts' summed counts with the
 * report's own rounding, so they are exact, not averaged; rows are copied as bytes, never parsed
 * (parsing them on the main thread took ~0.3 s of a 200,000-row download). The two forms are
 * written at once: the copies, not the main thread, are what a 1M-row download waits for.
 */
export async function mergeCoverageParts(
  parts: readonly CoveragePart[],
  headers: readonly string[],
  target: CoverageFiles,
): Promise<void> {
  if (parts.length === 0) throw new Error('no coverage parts to merge');
  const records = parts.reduce((sum, part) => sum + part.counts.records, 0);
  const counts = parts[0].counts.counts.map((_, c) =>
    parts.reduce((sum, part) => sum + part.counts.counts[c], 0),
  );
  const fractions = coverageFractions({ records, counts });
  const filled = parts.filter((part) => part.counts.records > 0);
  // Each part's JSON rows start with a line break; parts after the first are joined by `,`.
  const json = filled.flatMap((part, i) =>
    i === 0 ? [{ file: part.files.json }] : [',', { file: part.files.json }],
  );
  const written = await Promise.allSettled([
    writeJoined(target.csv, [
      coverageCsvHead(headers, fractions),
      ...filled.map((part) => ({ file: part.files.csv })),
    ]),
    writeJoined(target.json, [coverageJsonHead(headers, fractions), ...json, coverageJsonEnd(records)]),
  ]);
  for (const result of written) if (result.status === 'rejected') throw result.reason;
  for (const part of parts) {
    fs.rmSync(part.files.csv, { force: true });
    fs.rmSync(part.files.json, { force: true });
  }
}

/** Writes texts and whole files, in order, to `target` through `<target>.part`, renamed when complete. */
async function writeJoined(
  target: string,
  pieces: readonly (string | { readonly file: string })[],
): Promise<void> {
  const part = `${target}.part`;
  const out = fs.createWriteStream(part);
  for (const piece of pieces) {
    if (typeof piece === 'string') await write(out, piece);
    else await copy(out, piece.file);
  }
  await finish(out, part, target);
}
