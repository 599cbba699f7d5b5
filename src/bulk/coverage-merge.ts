import { once } from 'node:events';
import fs from 'node:fs';
import { createInterface } from 'node:readline';

/** The two files of a coverage report. */
export interface CoverageFiles {
  readonly csv: string;
  readonly json: string;
}

/** Byte length of the first `records` CSV records of `file` (line breaks inside quotes skipped). */
export async function csvRecordsBytes(file: string, records: number): Promise<number> {
  let inQuotes = false;
  let offset = 0;
  let seen = 0;
  if (records === 0) return 0;
  for await (const chunk of fs.createReadStream(file, {
    highWaterMark: 64 * 1024,
  }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      // RFC 4180: a quote toggles quoting; an escaped quote ("") toggles twice.
      if (byte === 0x22) inQuotes = !inQuotes;
      else if (byte === 0x0a && !inQuotes && ++seen === records) return offset + i + 1;
    }
    offset += chunk.length;
  }
  return offset;
}

async function write(out: fs.WriteStream, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function copyFrom(out: fs.WriteStream, file: string, start: number): Promise<void> {
  for await (const chunk of fs.createReadStream(file, { start, highWaterMark: 1024 * 1024 }))
    await write(out, chunk);
}

async function finish(out: fs.WriteStream, part: string, target: string): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  fs.renameSync(part, target);
}

/**
 * Merges the coverage reports written for consecutive parts of one export (same plan, records in
 * order) into the report one pass over all records writes, and deletes the parts. It relies on
 * the report format of `export/coverage-report.ts`: CSV = header, fractions, one row per record;
 * JSON = `{"columns":[…],"coverage":{…},"rows":[` then one row per line. Fractions are recomputed
 * from the rows' 1/0 flags with the same rounding (4 decimals), so they are exact, not averaged.
 */
export async function mergeCoverageParts(
  parts: readonly CoverageFiles[],
  target: CoverageFiles,
): Promise<void> {
  let columns: string[] | undefined;
  let counts: number[] = [];
  let records = 0;
  const rowLines: string[][] = [];
  // Pass 1: the JSON parts give columns and per-record flags (one row per line).
  for (const part of parts) {
    const lines: string[] = [];
    const input = createInterface({
      input: fs.createReadStream(part.json),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let first = true;
    for await (const line of input) {
      if (first) {
        first = false;
        const head = JSON.parse(line.endsWith('[]}') ? line : `${line}]}`) as { columns: string[] };
        columns ??= head.columns;
        if (counts.length === 0) counts = head.columns.slice(2).map(() => 0);
        continue;
      }
      if (line === ']}' || line === '') continue;
      const row = line.endsWith(',') ? line.slice(0, -1) : line;
      const flags = JSON.parse(row) as (string | number)[];
      for (let c = 2; c < flags.length; c++) counts[c - 2] += Number(flags[c]);
      records++;
      lines.push(row);
    }
    rowLines.push(lines);
  }
  if (!columns) throw new Error('coverage parts have no header');
  const fractions = counts.map((count) => (records === 0 ? 0 : Math.round((count / records) * 1e4) / 1e4));

  const json = fs.createWriteStream(`${target.json}.part`);
  const coverage: Record<string, number> = {};
  columns.slice(2).forEach((header, c) => {
    coverage[header] = fractions[c];
  });
  await write(json, `{"columns":${JSON.stringify(columns)},"coverage":${JSON.stringify(coverage)},"rows":[`);
  let firstRow = true;
  for (const lines of rowLines) {
    for (const line of lines) {
      await write(json, firstRow ? `\n${line}` : `,\n${line}`);
      firstRow = false;
    }
  }
  await write(json, firstRow ? ']}\n' : '\n]}\n');
  await finish(json, `${target.json}.part`, target.json);

  // The CSV: the first part's header, the merged fractions, then every part's rows verbatim.
  const out = fs.createWriteStream(`${target.csv}.part`);
  const headerBytes = await csvRecordsBytes(parts[0].csv, 1);
  const header = Buffer.alloc(headerBytes);
  const fd = fs.openSync(parts[0].csv, 'r');
  fs.readSync(fd, header, 0, headerBytes, 0);
  fs.closeSync(fd);
  await write(out, header);
  await write(out, `,,${fractions.join(',')}\r\n`);
  for (const part of parts) await copyFrom(out, part.csv, await csvRecordsBytes(part.csv, 2));
  await finish(out, `${target.csv}.part`, target.csv);
  for (const part of parts) {
    fs.rmSync(part.csv, { force: true });
    fs.rmSync(part.json, { force: true });
  }
}
