/**
 * Reading a Wikidata JSON dump line by line without decoding it: the dump is one JSON array with
 * one entity per line (`[`, `{…},` lines, `]`), and most lines are skipped, so each line is
 * looked at as bytes (a view into the chunk read, copied only when it spans two chunks) and only
 * the few parts the selection needs are decoded (the P31 statements, the id, the labels).
 *
 * Measured on a 203 MB synthetic dump of 73,415 lines (test/support/wikidata-dump.ts), one
 * thread, on the project's shared 2-core machine under load: splitting the lines and reading
 * their P31 classes this way ran at 290–1,100 MB/s; parsing every line's P31 group as JSON took
 * 450–590 ms against 170–290 ms for reading it from the bytes (`classesOf`).
 */

const NEWLINE = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BOM = [0xef, 0xbb, 0xbf];

/** Default cap on one dump line: 64 MiB (the largest Wikidata entities are a few MiB of JSON). */
export const DEFAULT_MAX_DUMP_LINE_BYTES = 64 * 1024 * 1024;

/** What a reader does with each entity line: the line's bytes (a view, valid during the call) and number. */
export type LineVisitor = (line: Buffer, number: number) => void;

export interface DumpLineReaderOptions {
  readonly maxLineBytes?: number;
  /** Called for a line longer than `maxLineBytes`: its bytes are dropped unread. */
  readonly onOversized?: (number: number, bytes: number) => void;
}

/**
 * Splits a dump into entity lines: trailing `,`, `\r` and blanks are cut, and the array's own
 * `[` and `]` lines and blank lines are not visited (they still count in line numbers). A UTF-8
 * byte order mark at the start is removed.
 */
export class DumpLineReader {
  readonly #visit: LineVisitor;
  readonly #maxBytes: number;
  readonly #onOversized: ((number: number, bytes: number) => void) | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes of the current over-long line seen so far, or -1 when not skipping. */
  #skipped = -1;
  #lines = 0;
  #started = false;
  /** The first bytes, while fewer than a byte order mark's three. */
  #head: Buffer | undefined;

  constructor(visit: LineVisitor, options: DumpLineReaderOptions = {}) {
    this.#visit = visit;
    this.#maxBytes = options.maxLineBytes ?? DEFAULT_MAX_DUMP_LINE_BYTES;
    this.#onOversized = options.onOversized;
  }

  /** Physical lines read so far. */
  get lines(): number {
    return this.#lines;
  }

  push(chunk: Uint8Array): void {
    let buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.#started) {
      // The first three bytes decide whether there is a byte order mark, whatever the chunking.
      const head = this.#head === undefined ? buffer : Buffer.concat([this.#head, buffer]);
      if (head.length < 3 && head.every((byte, i) => byte === BOM[i])) {
        this.#head = head;
        return;
      }
      this.#started = true;
      this.#head = undefined;
      const bom = head.length >= 3 && head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
      buffer = bom ? head.subarray(3) : head;
    }
    let start = 0;
    for (;;) {
      const newline = buffer.indexOf(NEWLINE, start);
      if (newline === -1) break;
      this.#lines++;
      if (this.#skipped >= 0) {
        this.#onOversized?.(this.#lines, this.#skipped + newline - start);
        this.#skipped = -1;
      } else if (this.#pendingBytes > 0) {
        if (this.#pendingBytes + newline - start > this.#maxBytes) {
          this.#onOversized?.(this.#lines, this.#pendingBytes + newline - start);
        } else {
          this.#pending.push(buffer.subarray(start, newline));
          this.#line(Buffer.concat(this.#pending, this.#pendingBytes + newline - start));
        }
        this.#pending = [];
        this.#pendingBytes = 0;
      } else if (newline - start > this.#maxBytes) {
        this.#onOversized?.(this.#lines, newline - start);
      } else {
        this.#line(buffer.subarray(start, newline));
      }
      start = newline + 1;
    }
    if (start >= buffer.length) return;
    const rest = buffer.length - start;
    if (this.#skipped >= 0) {
      this.#skipped += rest;
    } else if (this.#pendingBytes + rest > this.#maxBytes) {
      this.#skipped = this.#pendingBytes + rest;
      this.#pending = [];
      this.#pendingBytes = 0;
    } else {
      // The chunk is reused by nobody (streams hand out fresh buffers), so a view is enough.
      this.#pending.push(buffer.subarray(start));
      this.#pendingBytes += rest;
    }
  }

  /** Ends the input: a last line without a newline is visited. */
  end(): void {
    if (this.#head !== undefined) {
      // Fewer than three bytes in all, each a byte order mark's: a (broken) line of its own.
      const head = this.#head;
      this.#head = undefined;
      this.#started = true;
      this.push(head);
    }
    if (this.#skipped >= 0) {
      this.#lines++;
      this.#onOversized?.(this.#lines, this.#skipped);
      this.#skipped = -1;
    } else if (this.#pendingBytes > 0) {
      this.#lines++;
      this.#line(Buffer.concat(this.#pending, this.#pendingBytes));
    }
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #line(line: Buffer): void {
    let end = line.length;
    for (;;) {
      const c = line[end - 1];
      if (end > 0 && (c === COMMA || c === CR || c === SPACE || c === TAB)) end--;
      else break;
    }
    let start = 0;
    while (start < end && (line[start] === SPACE || line[start] === TAB)) start++;
    if (start === end) return;
    if (end - start === 1 && (line[start] === OPEN_BRACKET || line[start] === CLOSE_BRACKET)) return;
    this.#visit(start === 0 && end === line.length ? line : line.subarray(start, end), this.#lines);
  }
}

/** Whether a line is shaped like one JSON object (`{` … `}`); anything else is malformed. */
export function looksLikeObject(line: Buffer): boolean {
  return line.length >= 2 && line[0] === OPEN_BRACE && line[line.length - 1] === CLOSE_BRACE;
}

/**
 * The index just past the value that opens at `open` (`{` or `[`), strings and escapes
 * respected; -1 when the line ends first.
 */
export function closingIndex(line: Buffer, open: number): number {
  let depth = 0;
  let i = open;
  const end = line.length;
  while (i < end) {
    const c = line[i];
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped.
      i++;
      while (i < end) {
        const s = line[i];
        if (s === BACKSLASH) i += 2;
        else if (s === QUOTE) break;
        else i++;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Decodes and parses the JSON value that opens at `open`; undefined when it is not valid JSON. */
export function parseValueAt(line: Buffer, open: number): unknown {
  const close = closingIndex(line, open);
  if (close === -1) return undefined;
  try {
    return JSON.parse(line.toString('utf8', open, close));
  } catch {
    return undefined;
  }
}

// A statement group of the claims starts `"P31":[{"mainsnak"`: the dumps write statements with
// `mainsnak` first, whereas qualifier and reference snak lists start `[{"snaktype"`. A P31 list
// whose first key is another one is told apart by that key (`statementGroupAt`).
const P31_LIST = Buffer.from('"P31":[{"');
const P31_PREFIX = '"P31":'.length;
const MAINSNAK_KEY = Buffer.from('mainsnak"');
/** The keys a snak starts with (qualifiers and references hold lists of snaks, not statements). */
const SNAK_KEYS = ['snaktype"', 'property"', 'hash"', 'datavalue"', 'datatype"'].map((k) => Buffer.from(k));

function startsWithAt(line: Buffer, at: number, prefix: Buffer): boolean {
  return (
    line.length >= at + prefix.length && line.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0
  );
}

/**
 * Where the entity's P31 statements start (the `"P31":` key) and whether they are in the dumps'
 * key order (mainsnak first); undefined when the entity has no P31 statements.
 */
function statementGroupAt(line: Buffer): { at: number; usual: boolean } | undefined {
  let at = line.indexOf(P31_LIST);
  while (at !== -1) {
    const key = at + P31_LIST.length;
    if (startsWithAt(line, key, MAINSNAK_KEY)) return { at, usual: true };
    if (!SNAK_KEYS.some((snakKey) => startsWithAt(line, key, snakKey))) return { at, usual: false };
    at = line.indexOf(P31_LIST, key);
  }
  return undefined;
}
const LABELS = Buffer.from('"labels":{');
const LABELS_PREFIX = '"labels":'.length;

/** What the P31 statements of a line say. */
export type ClassesRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'classes'; readonly classes: number[] };

const NONE: ClassesRead = { kind: 'none' };
const MALFORMED: ClassesRead = { kind: 'malformed' };

// The start of any claim group (`"P279":[{"mainsnak"`): the P31 group ends before the next one.
const GROUP_START = Buffer.from('":[{"mainsnak"');
const STATEMENT = Buffer.from('{"mainsnak":{"snaktype":"');
const RANK = Buffer.from('"rank":"');
const ITEM_VALUE = Buffer.from('"datavalue":{"value":{"entity-type":"item","numeric-id":');
const VALUE_SNAK = 0x76; // v(alue), as opposed to n(ovalue) and s(omevalue)
const DEPRECATED = 0x64; // d(eprecated)

/**
 * The classes an entity is an instance of (P31 values, deprecated statements and novalue /
 * somevalue snaks left out), read from its line without parsing the rest of it.
 *
 * Read from the bytes: each statement starts `{"mainsnak":{"snaktype":"`, its value is the first
 * item value after that, its rank the first `"rank":"` (statements list mainsnak, type,
 * qualifiers, id, rank, references, in that order; snaks have no rank). A group in any other shape
 * is parsed as JSON instead. Parsing every group took a third of the selection pass's main-thread
 * time on the bench's synthetic dump (the groups carry their references).
 */
export function classesOf(line: Buffer): ClassesRead {
  const group = statementGroupAt(line);
  if (group === undefined) return NONE;
  const at = group.at;
  if (!group.usual) return parsedClassesOf(line, at);
  const next = line.indexOf(GROUP_START, at + P31_LIST.length);
  const end = next === -1 ? line.length : next;
  const classes: number[] = [];
  let statement = line.indexOf(STATEMENT, at);
  // A group whose statements do not start as expected (another key order) is parsed.
  if (statement === -1 || statement >= end) return parsedClassesOf(line, at);
  while (statement !== -1 && statement < end) {
    const kind = statement + STATEMENT.length;
    const following = line.indexOf(STATEMENT, kind);
    const statementEnd = following === -1 || following > end ? end : following;
    const rank = line.indexOf(RANK, kind);
    if (rank === -1 || rank >= statementEnd) return parsedClassesOf(line, at);
    if (line[rank + RANK.length] !== DEPRECATED && line[kind] === VALUE_SNAK) {
      const value = line.indexOf(ITEM_VALUE, kind);
      if (value === -1 || value >= rank) return parsedClassesOf(line, at);
      const n = numberAt(line, value + ITEM_VALUE.length);
      if (n === undefined) return parsedClassesOf(line, at);
      classes.push(n);
    }
    statement = following === -1 || following >= end ? -1 : following;
  }
  return { kind: 'classes', classes };
}

/** A positive integer written at `start` (digits up to a non-digit); undefined if none. */
function numberAt(line: Buffer, start: number): number | undefined {
  let n = 0;
  let i = start;
  for (; i < line.length; i++) {
    const digit = line[i] - 48;
    if (digit < 0 || digit > 9) break;
    n = n * 10 + digit;
  }
  return i > start && n > 0 ? n : undefined;
}

/** `classesOf` by parsing the P31 group that starts at `at` (the `"P31":` key). */
function parsedClassesOf(line: Buffer, at: number): ClassesRead {
  const statements = parseValueAt(line, at + P31_PREFIX);
  if (!Array.isArray(statements)) return MALFORMED;
  const classes: number[] = [];
  for (const statement of statements) {
    if (statement?.rank === 'deprecated') continue;
    const snak = statement?.mainsnak;
    if (snak?.snaktype !== 'value') continue;
    const value = snak.datavalue?.value;
    const n = value?.['numeric-id'];
    if (typeof n === 'number' && value['entity-type'] === 'item') classes.push(n);
    else if (typeof value?.id === 'string' && /^Q[1-9]\d*$/.test(value.id))
      classes.push(Number(value.id.slice(1)));
  }
  return { kind: 'classes', classes };
}

// The dumps start every entity `{"type":"item","id":"Q…"` (older ones `{"id":"Q…"`).
const ITEM_PREFIX = Buffer.from('{"type":"item","id":"Q');
const ID_PREFIX = Buffer.from('{"id":"Q');

function digitsAt(line: Buffer, start: number): number | undefined {
  let n = 0;
  let i = start;
  for (; i < line.length; i++) {
    const digit = line[i] - 48;
    if (digit < 0 || digit > 9) break;
    n = n * 10 + digit;
  }
  return i > start && line[i] === QUOTE && n > 0 ? n : undefined;
}

/**
 * The item number of a line's entity (`Q42` → 42); undefined for other entities (properties,
 * lexemes) and for lines that are not valid JSON objects. Lines in another key order are parsed.
 */
export function entityNumberOf(line: Buffer): number | undefined {
  if (
    line.length > ITEM_PREFIX.length &&
    line.compare(ITEM_PREFIX, 0, ITEM_PREFIX.length, 0, ITEM_PREFIX.length) === 0
  ) {
    return digitsAt(line, ITEM_PREFIX.length);
  }
  if (
    line.length > ID_PREFIX.length &&
    line.compare(ID_PREFIX, 0, ID_PREFIX.length, 0, ID_PREFIX.length) === 0
  ) {
    return digitsAt(line, ID_PREFIX.length);
  }
  let entity: unknown;
  try {
    entity = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  const id = (entity as { id?: unknown } | null)?.id;
  return typeof id === 'string' && /^Q[1-9]\d*$/.test(id) ? Number(id.slice(1)) : undefined;
}

/** The labels of a line's entity (`{en: {language, value}, …}`), parsed alone; undefined if none. */
export function labelsOf(line: Buffer): Record<string, { value?: unknown }> | undefined {
  const at = line.indexOf(LABELS);
  if (at === -1) return undefined;
  const labels = parseValueAt(line, at + LABELS_PREFIX);
  return labels !== null && typeof labels === 'object' && !Array.isArray(labels)
    ? (labels as Record<string, { value?: unknown }>)
    : undefined;
}
