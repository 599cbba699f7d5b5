/**
 * Splits a streamed JSON array into the JSON texts of its elements, without ever holding the
 * whole array: a bulk submission may be 200 MiB (docs/api.md#limits). Only the array's own syntax
 * (brackets, commas, string boundaries) is checked here; each element's text is complete JSON
 * for `JSON.parse`, which validates the rest. Native `JSON.parse` per element is several times
 * faster than a JavaScript token-level streaming parser, and the scan jumps from quote to quote
 * with `indexOf`, so splitting costs little next to parsing.
 */

/** The body is not a JSON array, or its structure is broken at `offset` (bytes). */
export class JsonArraySyntaxError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} (at byte ${offset})`);
    this.offset = offset;
  }
}

/** One element is larger than `maxElementBytes`. */
export class JsonElementTooLargeError extends Error {
  readonly index: number;
  constructor(index: number, limit: number) {
    super(`record ${index} is larger than ${limit} bytes`);
    this.index = index;
  }
}

/** One element nests arrays/objects deeper than `maxDepth`. */
export class JsonElementTooDeepError extends Error {
  readonly index: number;
  constructor(index: number, limit: number) {
    super(`record ${index} nests deeper than ${limit} levels`);
    this.index = index;
  }
}

/** The body is larger than `maxBytes`. */
export class JsonBodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`the body is larger than ${limit} bytes`);
  }
}

export interface JsonArraySplitOptions {
  /** Most bytes accepted in total; more throws `JsonBodyTooLargeError`. */
  readonly maxBytes?: number;
  /** Most bytes of one element; more throws `JsonElementTooLargeError`. */
  readonly maxElementBytes?: number;
  /** Deepest nesting of one element; more throws `JsonElementTooDeepError`. */
  readonly maxDepth?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

const S = {
  beforeArray: 0,
  beforeFirst: 1,
  beforeElement: 2,
  inElement: 3,
  afterElement: 4,
  done: 5,
} as const;
type State = (typeof S)[keyof typeof S];

/**
 * Yields the elements of the JSON array read from `chunks`, as JSON texts, in order and in
 * groups (one group per input chunk that completes at least one element). Throws
 * `JsonArraySyntaxError` when the input is not a single JSON array.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one byte loop of a state machine whose state lives in locals: every byte of a submission (up to 200 MiB) passes through it, and the states read best side by side in one switch
export async function* splitJsonArray(
  chunks: AsyncIterable<Uint8Array | string>,
  options: JsonArraySplitOptions = {},
): AsyncGenerator<string[]> {
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const maxElementBytes = options.maxElementBytes ?? Number.POSITIVE_INFINITY;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  let state: State = S.beforeArray;
  let offset = 0; // bytes consumed before the current chunk
  let depth = 0;
  let inString = false;
  let primitive = false; // the element is a number, literal or string at depth 0
  let pending: Buffer[] = []; // bytes of the current element from earlier chunks
  let pendingBytes = 0;
  let index = 0;
  let first = true;

  for await (const raw of chunks) {
    const chunk =
      typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (offset + chunk.length > maxBytes) throw new JsonBodyTooLargeError(maxBytes);
    const out: string[] = [];
    let i = 0;
    // A UTF-8 byte-order mark is tolerated at the very start.
    if (first) {
      first = false;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let start = state === S.inElement ? 0 : -1; // start of the element within this chunk
    const finish = (end: number) => {
      const part = chunk.subarray(start, end);
      const text =
        pending.length === 0 ? part.toString('utf8') : Buffer.concat([...pending, part]).toString('utf8');
      if (pendingBytes + part.length > maxElementBytes)
        throw new JsonElementTooLargeError(index, maxElementBytes);
      pending = [];
      pendingBytes = 0;
      out.push(text);
      index++;
      start = -1;
      state = S.afterElement;
    };

    while (i < chunk.length) {
      const byte = chunk[i];
      switch (state as State) {
        case S.beforeArray:
          if (isWhitespace(byte)) break;
          if (byte !== OPEN_BRACKET)
            throw new JsonArraySyntaxError('the body must be a JSON array', offset + i);
          state = S.beforeFirst;
          break;
        case S.beforeFirst:
        case S.beforeElement:
          if (isWhitespace(byte)) break;
          if (byte === CLOSE_BRACKET) {
            if (state === S.beforeElement) {
              throw new JsonArraySyntaxError('a comma is followed by the end of the array', offset + i);
            }
            state = S.done;
            break;
          }
          if (byte === COMMA) throw new JsonArraySyntaxError('unexpected comma', offset + i);
          state = S.inElement;
          start = i;
          depth = 0;
          inString = false;
          primitive = byte !== OPEN_BRACE && byte !== OPEN_BRACKET;
          if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth = 1;
          else if (byte === QUOTE) inString = true;
          break;
        case S.inElement:
          if (inString) {
            // Jump to the next quote; it closes the string unless escaped by an odd run of '\'.
            const quote = chunk.indexOf(QUOTE, i);
            if (quote === -1) {
              i = chunk.length;
              continue;
            }
            let backslashes = 0;
            for (let j = quote - 1; j >= start && chunk[j] === BACKSLASH; j--) backslashes++;
            if (quote - backslashes === 0 && start <= 0 && pending.length > 0 && backslashes === quote) {
              // The run of backslashes reaches the chunk start: count the ones carried over.
              backslashes += trailingBackslashes(pending);
            }
            i = quote + 1;
            if (backslashes % 2 === 0) {
              inString = false;
              if (primitive && depth === 0) finish(i);
            }
            continue;
          }
          if (byte === QUOTE) inString = true;
          else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
            if (++depth > maxDepth) throw new JsonElementTooDeepError(index, maxDepth);
          } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
            if (primitive && depth === 0) {
              // `]` ends a top-level number or literal, and the array.
              finish(i);
              continue;
            }
            depth--;
            if (depth === 0) finish(i + 1);
          } else if (primitive && depth === 0 && (byte === COMMA || isWhitespace(byte))) {
            finish(i);
            continue;
          }
          break;
        case S.afterElement:
          if (isWhitespace(byte)) break;
          if (byte === COMMA) state = S.beforeElement;
          else if (byte === CLOSE_BRACKET) state = S.done;
          else throw new JsonArraySyntaxError('expected a comma or the end of the array', offset + i);
          break;
        case S.done:
          if (!isWhitespace(byte)) {
            throw new JsonArraySyntaxError('unexpected data after the end of the array', offset + i);
          }
          break;
      }
      i++;
    }
    if ((state as State) === S.inElement && start >= 0) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > maxElementBytes) throw new JsonElementTooLargeError(index, maxElementBytes);
      // Copy: the caller may reuse the chunk's memory.
      pending.push(Buffer.from(rest));
    }
    offset += chunk.length;
    if (out.length > 0) yield out;
  }
  if (state === S.beforeArray) throw new JsonArraySyntaxError('the body is empty', offset);
  if (state !== S.done) throw new JsonArraySyntaxError('the array is not closed', offset);
}

function trailingBackslashes(parts: readonly Buffer[]): number {
  let count = 0;
  for (let p = parts.length - 1; p >= 0; p--) {
    const part = parts[p];
    for (let j = part.length - 1; j >= 0; j--) {
      if (part[j] !== BACKSLASH) return count;
      count++;
    }
  }
  return count;
}
