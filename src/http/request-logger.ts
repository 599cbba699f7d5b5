import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

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
