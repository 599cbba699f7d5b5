/**
 * Opens a dump file as a stream of decompressed bytes, whatever its compression: by its first
 * bytes, not its name — gzip (`1f 8b`), bzip2 (`BZh`), else plain.
 *
 * bzip2 goes through the system `bzip2` program, in a process of its own (a pipe each way): on
 * this project's 2-core machine it decompressed the demo graph's 111 MB at 2.4–4.0 CPU seconds
 * where the pure-JavaScript `unbzip2-stream` took 7.5 (and far longer in wall time, through its
 * small chunks); `lbzip2` took 6–7.7 on the same single-stream file. Running in its own process it
 * also leaves the import's thread to the selection. gzip runs on Node's zlib (its thread pool).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';

export type Compression = 'plain' | 'gzip' | 'bzip2';

/**
 * The dump cannot be read at all (missing file, no bzip2 program, a corrupt archive). CLI only,
 * not in the error registry: `quarry import --format wikidata` prints it and stops.
 */
export class DumpInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DumpInputError';
  }
}

/** An open dump: its bytes, and how far into the file (compressed bytes) reading has come. */
export interface DumpInput {
  readonly compression: Compression;
  /** Size of the file in bytes (compressed). */
  readonly fileBytes: number;
  /** Decompressed chunks; throws `DumpInputError` when the file or its decompression fails. */
  readonly chunks: AsyncIterable<Buffer>;
  /** File bytes read so far. */
  fileBytesRead(): number;
  /** Stops reading (the decompressor, if any, is ended). */
  close(): void;
}

/** The compression of a file by its first bytes. */
export function compressionOf(file: string): Compression {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(3);
    const n = fs.readSync(fd, head, 0, 3, 0);
    if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
    if (n === 3 && head.toString('latin1') === 'BZh') return 'bzip2';
    return 'plain';
  } finally {
    fs.closeSync(fd);
  }
}

const CHUNK = 1 << 20;

/** Opens `file` (throws `DumpInputError` when it cannot be read). */
export function openDump(file: string): DumpInput {
  let fileBytes: number;
  let compression: Compression;
  try {
    fileBytes = fs.statSync(file).size;
    compression = compressionOf(file);
  } catch (error) {
    throw new DumpInputError(`${file}: cannot read: ${(error as Error).message}`);
  }
  let read = 0;
  const raw = fs.createReadStream(file, { highWaterMark: CHUNK });
  raw.on('data', (chunk) => {
    read += chunk.length;
  });
  if (compression === 'plain') {
    return {
      compression,
      fileBytes,
      chunks: guarded(raw as AsyncIterable<Buffer>, file),
      fileBytesRead: () => read,
      close: () => raw.destroy(),
    };
  }
  if (compression === 'gzip') {
    // Several gzip members one after another (a dump recompressed in parts) read as one stream.
    const gunzip = zlib.createGunzip({ chunkSize: CHUNK });
    raw.on('error', (error) => gunzip.destroy(error));
    raw.pipe(gunzip);
    return {
      compression,
      fileBytes,
      chunks: guarded(gunzip as AsyncIterable<Buffer>, file),
      fileBytesRead: () => read,
      close: () => {
        raw.destroy();
        gunzip.destroy();
      },
    };
  }
  const child = spawn('bzip2', ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] });
  raw.pipe(child.stdin);
  // bzip2 exits early on a corrupt file: the pipe breaks, which is reported through its status.
  child.stdin.on('error', () => {});
  raw.on('error', () => child.kill());
  return {
    compression,
    fileBytes,
    chunks: fromChild(child, file),
    fileBytesRead: () => read,
    close: () => {
      raw.destroy();
      child.kill();
    },
  };
}

async function* guarded(stream: AsyncIterable<Buffer>, file: string): AsyncIterable<Buffer> {
  try {
    for await (const chunk of stream) yield chunk;
  } catch (error) {
    throw new DumpInputError(`${file}: ${(error as Error).message}`);
  }
}

async function* fromChild(child: ChildProcess, file: string): AsyncIterable<Buffer> {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 2000) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    throw new DumpInputError(`${file}: ${(error as Error).message}`);
  }
  const { code, error } = await exited;
  if (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new DumpInputError(
      missing
        ? `${file} is bzip2-compressed and the bzip2 program is not installed (apt-get install bzip2)`
        : `${file}: bzip2 failed: ${error.message}`,
    );
  }
  if (code !== 0) {
    throw new DumpInputError(`${file}: bzip2 stopped (exit code ${code}): ${stderr.trim() || 'no message'}`);
  }
}
