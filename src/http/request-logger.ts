import diagnostics from 'node:diagnostics_channel';
import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** A logger's level methods, callable with the arguments they were given. */
type LevelMethods = { readonly [L in Level]: (...args: unknown[]) => void };

/**
 * A request's logger (`request.log`) that makes its pino child only when something logs
 * through it: an error, a stalled body. Most requests log nothing but their request line, which
 * the `onResponse` hook (`app.ts`) writes through the server's logger with the request id as
 * the line's first field: the bytes the child would write. Measured (bench/NOTES.md, issue
 * 30): a pino child per request cost the main thread ~0.3-1 µs and ~5% of the bytes its
 * scavenges promote under the enhance load.
 */
export class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The pino child, made at the first use: the same bindings and options Fastify gave. */
  #logger(): FastifyBaseLogger & LevelMethods {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child as FastifyBaseLogger & LevelMethods;
  }

  get level(): string {
    return this.#logger().level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  fatal(...args: unknown[]): void {
    this.#logger().fatal(...args);
  }
  error(...args: unknown[]): void {
    this.#logger().error(...args);
  }
  warn(...args: unknown[]): void {
    this.#logger().warn(...args);
  }
  info(...args: unknown[]): void {
    this.#logger().info(...args);
  }
  debug(...args: unknown[]): void {
    this.#logger().debug(...args);
  }
  trace(...args: unknown[]): void {
    this.#logger().trace(...args);
  }
  silent(...args: unknown[]): void {
    this.#logger().silent(...args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a `RequestLogger` in place of a pino child per request. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}

/** Random request ids per millisecond: six base-36 digits. */
const ID_SPACE = 36 ** 6;
let idMillisecond = 0;
let idPrefix = '';

/**
 * A new request id, `req-<milliseconds since 1970, base 36>-<six random base-36 digits>` (the
 * request's log lines carry it as `reqId`). The prefix is built once per millisecond and the
 * digits come from a random integer: `Math.random().toString(36)` (a fraction in base 36) and
 * the time's conversion at every request cost the main thread ~0.9-1.5 µs per request against
 * 0.2-0.5 (bench/NOTES.md, issue 30).
 */
export function newRequestId(): string {
  const now = Date.now();
  if (now !== idMillisecond) {
    idMillisecond = now;
    idPrefix = `req-${now.toString(36)}-`;
  }
  return (
    idPrefix +
    Math.floor(Math.random() * ID_SPACE)
      .toString(36)
      .padStart(6, '0')
  );
}

/** The fields of a request's line, in the order they are written. */
export interface RequestLine {
  readonly reqId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ms: number;
}

/** Writes one request line; see `requestLineWriter`. */
export type RequestLineWriter = (line: RequestLine) => void;

/** The pino internals the direct path reads (`pino.symbols`, exported for extenders). */
type PinoInternals = Record<symbol, unknown> & {
  levelVal?: number;
  levels?: { values?: Record<string, number> };
};

const INFO = 30;
const KEYS = ['reqId', 'method', 'url', 'status', 'ms'] as const;
/** Subscribers to pino's `asJson` tracing channel see every line it formats: they keep pino's path. */
const asJsonChannel = diagnostics.tracingChannel('pino_asJson');

/**
 * pino's string quoting (`asString` in pino/lib/tools.js, Node < 25): `"` and `\` escaped, a
 * string with a control character or over 100 characters through `JSON.stringify`.
 */
function quoted(text: string): string {
  if (text.length > 100) return JSON.stringify(text);
  let out = '';
  let last = 0;
  let found = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32) return JSON.stringify(text);
    if (code === 34 || code === 92) {
      out += `${text.slice(last, i)}\\`;
      last = i;
      found = true;
    }
  }
  return `"${found ? out + text.slice(last) : text}"`;
}

/** A number as pino writes a property's value: as it prints, `null` when not finite. */
const numberText = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

/** Whether `logger` is a pino logger whose `info(line, 'request')` is only the plain formatting. */
function plainPino(logger: PinoInternals): boolean {
  const s = pino.symbols;
  const serializers = (logger[s.serializersSym] ?? {}) as Record<string, unknown>;
  const stringifiers = (logger[s.stringifiersSym] ?? {}) as Record<string | symbol, unknown>;
  const formatters = (logger[s.formattersSym] ?? {}) as { log?: unknown };
  const hooks = (logger[s.hooksSym] ?? {}) as { logMethod?: unknown };
  return (
    typeof logger[s.asJsonSym] === 'function' &&
    typeof logger[s.timeSym] === 'function' &&
    typeof logger[s.streamSym] === 'object' &&
    logger.levels?.values?.info === INFO &&
    !logger[s.mixinSym] &&
    !logger[s.nestedKeySym] &&
    typeof logger[(s as unknown as Record<string, symbol>).msgPrefixSym] !== 'string' &&
    formatters.log === undefined &&
    hooks.logMethod === undefined &&
    stringifiers[s.wildcardFirstSym] === undefined &&
    [...KEYS, logger[s.messageKeySym] as string].every((key) => !serializers[key] && !stringifiers[key])
  );
}

/**
 * A writer of the request line `logger.info({ reqId, method, url, status, ms }, 'request')`
 * writes, byte for byte (the time aside, which is the moment of writing), built in one
 * expression instead of pino's general path (its key loop, a megamorphic load and a quoting
 * call per field, the message formatting): ~19 k instructions per request on the main thread
 * for the line (bench/NOTES.md, issue 30). A logger that is not plain pino (a mixin, formatters,
 * serializers or redaction of these keys, a metadata stream, a nested key or message prefix,
 * a subscriber to pino's `asJson` channel) keeps pino's own path.
 */
export function requestLineWriter(logger: FastifyBaseLogger): RequestLineWriter {
  const internals = logger as unknown as PinoInternals;
  const viaPino: RequestLineWriter = ({ reqId, method, url, status, ms }) =>
    logger.info({ reqId, method, url, status, ms }, 'request');
  if (!plainPino(internals)) return viaPino;
  const s = pino.symbols;
  const stream = internals[s.streamSym] as { write(line: string): void; [key: symbol]: unknown };
  if (stream[s.needsMetadataGsym] === true) return viaPino;
  const levelPrefix = (internals[s.lsCacheSym] as Record<number, string>)[INFO];
  const time = internals[s.timeSym] as () => string;
  const message = `,"${internals[s.messageKeySym] as string}":${quoted('request')}`;
  const end = internals[s.endSym] as string;
  const streamWrite = ((internals[s.hooksSym] ?? {}) as { streamWrite?: (line: string) => string })
    .streamWrite;
  return (line) => {
    if ((internals.levelVal ?? INFO) > INFO) return;
    if (asJsonChannel.hasSubscribers) {
      viaPino(line);
      return;
    }
    const text =
      levelPrefix +
      time.call(internals) +
      (internals[s.chindingsSym] as string) +
      `,"reqId":${quoted(line.reqId)},"method":${quoted(line.method)},"url":${quoted(line.url)}` +
      `,"status":${numberText(line.status)},"ms":${numberText(line.ms)}${message}${end}`;
    stream.write(streamWrite ? streamWrite(text) : text);
  };
}
