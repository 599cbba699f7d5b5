/**
 * Batched, backpressure-aware writing to a `Writable`. Writers push small pieces synchronously
 * and await `flush()` when `push` says the batch is full; `flush` waits for `drain` when the
 * destination is saturated, so memory stays bounded however slow the reader is.
 */
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Bytes gathered before a write to the destination (fewer, larger writes are faster). */
const BATCH_BYTES = 64 * 1024;

/** Thrown when the destination goes away (client disconnected, stream destroyed) mid-export. */
export class OutputClosedError extends Error {
  constructor() {
    super('The export output was closed before the export finished');
    this.name = 'OutputClosedError';
  }
}

export class OutputSink {
  readonly #output: Writable;
  #pending: (string | Buffer)[] = [];
  #pendingLength = 0;
  #bytes = 0;

  constructor(output: Writable) {
    this.#output = output;
  }

  /** Bytes handed to the destination so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Bytes (or UTF-16 units for strings) waiting to be flushed. */
  get pendingLength(): number {
    return this.#pendingLength;
  }

  /** Queues `chunk`; returns true when the batch is full and the caller should `await flush()`. */
  push(chunk: string | Buffer): boolean {
    this.#pending.push(chunk);
    this.#pendingLength += chunk.length;
    return this.#pendingLength >= BATCH_BYTES;
  }

  /** Writes what is queued, then waits until the destination can take more. */
  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const chunks = this.#pending;
    const length = this.#pendingLength;
    this.#pending = [];
    this.#pendingLength = 0;
    const data = chunks.length === 1 && Buffer.isBuffer(chunks[0]) ? chunks[0] : encoded(chunks, length);
    this.#bytes += data.length;
    await writeAndDrain(this.#output, data);
  }

  /** Flushes, ends the destination and waits until it has finished writing. */
  async end(): Promise<void> {
    await this.flush();
    this.#output.end();
    await finished(this.#output, { readable: false });
  }
}

/**
 * The chunks as one buffer, each string encoded (UTF-8) straight into it: one copy, where
 * `Buffer.from` of each string then `Buffer.concat` made two. `length` is the chunks' summed
 * `length` (UTF-16 units of strings, bytes of buffers); a unit is at most 3 bytes.
 */
function encoded(chunks: readonly (string | Buffer)[], length: number): Buffer {
  const out = Buffer.allocUnsafe(length * 3);
  let at = 0;
  for (const chunk of chunks) at += typeof chunk === 'string' ? out.write(chunk, at) : chunk.copy(out, at);
  return out.subarray(0, at);
}

/** Writes `data` and, if the destination's buffer is full, waits for `drain`. */
export async function writeAndDrain(output: Writable, data: Buffer | string): Promise<void> {
  if (output.destroyed || output.writableEnded) throw output.errored ?? new OutputClosedError();
  if (output.write(data)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      output.off('drain', onDrain);
      output.off('error', onError);
      output.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(output.errored ?? new OutputClosedError());
    output.on('drain', onDrain);
    output.on('error', onError);
    output.on('close', onClose);
  });
}
