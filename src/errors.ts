/**
 * The one registry of errors Quarry reports (`ERROR_CODES`, documented in docs/errors.md). Each
 * class has a stable `code`, an HTTP `status`, for areas B and C the `errorCode` that goes in
 * their `{errorCode, error}` body (docs/api.md#errors), and an `outcome`: what a job does when
 * it meets it — retry later, fail the record (or page) and go on, or stop the job — as Crawlee's
 * error classes say. Mapping to response bodies happens in one place: `http/error-mapping.ts`.
 * Services throw these; anything else that escapes is a bug and becomes a 500.
 */

/** What a job does next when it meets an error (a request is answered with `status` either way). */
export type ErrorOutcome = 'retry' | 'fail-record' | 'stop-job';

/** One registered error code. */
export interface ErrorCodeInfo {
  /** HTTP status of the answer. */
  readonly status: number;
  /** Code in area B/C bodies when it differs from the status. */
  readonly errorCode?: number;
  readonly outcome: ErrorOutcome;
  /** What it means, for docs/errors.md. */
  readonly meaning: string;
}

/**
 * Every error code, once. Codes are stable: clients may match on them (they are logged, and the
 * HTTP status and area B/C `errorCode` follow from them). docs/errors.md lists the same table (a
 * test keeps them equal).
 */
export const ERROR_CODES = {
  invalid_parameter: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'A parameter or body field is missing, malformed or out of range; the message names it.',
  },
  missing_token: { status: 401, outcome: 'stop-job', meaning: 'No token was sent.' },
  invalid_token: { status: 401, outcome: 'stop-job', meaning: 'The token is unknown or revoked.' },
  insufficient_credits: {
    status: 429,
    outcome: 'fail-record',
    meaning: "The token's balance cannot pay for the operation; nothing is charged.",
  },
  not_found: {
    status: 404,
    outcome: 'fail-record',
    meaning: "The object does not exist or is another token's (indistinguishable on purpose).",
  },
  conflict: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'The object conflicts with an existing one (e.g. a bulk extract job name in use).',
  },
  payload_too_large: {
    status: 413,
    outcome: 'fail-record',
    meaning: 'The body (or one bulk record) exceeds its limit.',
  },
  uri_too_long: {
    status: 414,
    outcome: 'fail-record',
    meaning: 'A path parameter is longer than 500 characters.',
  },
  header_too_large: {
    status: 431,
    outcome: 'fail-record',
    meaning: 'The request line and headers exceed 16 KiB.',
  },
  request_timeout: {
    status: 408,
    outcome: 'retry',
    meaning: 'The headers or the body were not received in time; the connection is closed.',
  },
  malformed_request: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'The HTTP request could not be parsed.',
  },
  not_ready: {
    status: 201,
    outcome: 'retry',
    meaning: 'A bulk job, record or export is not ready yet (or the job was stopped); ask again.',
  },
  report_not_ready: { status: 400, outcome: 'retry', meaning: 'A coverage report is still being generated.' },
  invalid_api: {
    status: 404,
    errorCode: 457,
    outcome: 'fail-record',
    meaning: 'The extraction API is neither built in nor a Custom API of the token.',
  },
  invalid_job_name: {
    status: 400,
    errorCode: 505,
    outcome: 'fail-record',
    meaning: 'A bulk extract job name holds characters other than letters, digits, _ and -.',
  },
  insufficient_storage: {
    status: 507,
    outcome: 'retry',
    meaning: 'A file could not be written for lack of disk space; ask again once space is freed.',
  },
  unavailable: {
    status: 503,
    outcome: 'retry',
    meaning: 'The service cannot answer now (shutting down, store unavailable).',
  },
  internal_error: {
    status: 500,
    outcome: 'stop-job',
    meaning: 'A bug: logged with the request id, never detailed in the body.',
  },
  fetch_invalid_url: { status: 400, outcome: 'fail-record', meaning: 'The page URL is not an http(s) URL.' },
  fetch_refused: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'The address is refused (private network, loopback, link-local).',
  },
  fetch_dns: { status: 400, outcome: 'retry', meaning: 'The host name did not resolve.' },
  fetch_network: { status: 400, outcome: 'retry', meaning: 'The connection failed or was reset.' },
  fetch_timeout: { status: 400, outcome: 'retry', meaning: 'The page did not answer in time.' },
  fetch_aborted: {
    status: 400,
    outcome: 'retry',
    meaning: 'The fetch was aborted (a job paused or stopped).',
  },
  fetch_http_status: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'The page answered an error status (429 and 5xx: retried).',
  },
  fetch_redirect_loop: { status: 400, outcome: 'fail-record', meaning: 'A redirect loop.' },
  fetch_too_many_redirects: { status: 400, outcome: 'fail-record', meaning: 'More than 5 redirects.' },
  not_html: { status: 400, outcome: 'fail-record', meaning: 'The page (fetched or posted) is not HTML.' },
  fetch_too_large: { status: 400, outcome: 'fail-record', meaning: 'The page is larger than the limit.' },
  fetch_bad_response: {
    status: 400,
    outcome: 'fail-record',
    meaning: 'The page is not HTML, or could not be decoded.',
  },
  fetch_robots_disallowed: {
    status: 400,
    outcome: 'fail-record',
    meaning: "robots.txt of the page's origin (or of a redirect hop's) disallows it; not fetched.",
  },
  extraction_timeout: {
    status: 422,
    outcome: 'fail-record',
    meaning: 'Extracting the page took longer than its time budget (10 s); its thread was replaced.',
  },
  extraction_too_large: {
    status: 422,
    outcome: 'fail-record',
    meaning: "Extracting the page needed more memory than a thread's heap; its thread was replaced.",
  },
  extraction_failed: {
    status: 500,
    outcome: 'fail-record',
    meaning:
      'Extracting the page failed inside its thread (the extractor threw, or the thread died and was replaced); logged.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * HTTP statuses of a remote answer worth retrying later: 429 (the server is overloaded, though
 * a 4xx) and 5xx. The one rule for page fetches, their retries and robots.txt.
 */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

const OUTCOMES: ReadonlySet<unknown> = new Set<ErrorOutcome>(['retry', 'fail-record', 'stop-job']);

/**
 * What a job does next when it meets `error`: the registered `outcome` of a `QuarryError` (or of
 * an error that carries one across a thread boundary, `threads/worker-pool.ts`), or `undefined`
 * for any other error — a bug or a crashed thread, which each runner handles in its own way and
 * says why. Runners act on this, never on classes or messages.
 */
export function outcomeOf(error: unknown): ErrorOutcome | undefined {
  const outcome = (error as { outcome?: unknown } | null | undefined)?.outcome;
  return error instanceof Error && OUTCOMES.has(outcome) ? (outcome as ErrorOutcome) : undefined;
}

export abstract class QuarryError extends Error {
  /** Stable machine-readable identifier, e.g. `invalid_parameter` (a key of `ERROR_CODES`). */
  abstract readonly code: ErrorCode;
  /** HTTP status of the response (`ERROR_CODES`). */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
  /** Code carried in area B/C bodies (`ERROR_CODES`): the HTTP status unless registered apart. */
  get errorCode(): number {
    return (ERROR_CODES[this.code] as ErrorCodeInfo).errorCode ?? this.status;
  }
  /** What a job does next (`ERROR_CODES`). */
  get outcome(): ErrorOutcome {
    return ERROR_CODES[this.code]?.outcome ?? 'stop-job';
  }
  /** Extra fields merged into the area A general error body (e.g. `bulkjobStatus`). */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.extra = extra;
  }
}

/**
 * The base of an error class with one registered code, which gives its status, area B/C code
 * and outcome (`ERROR_CODES`): `class ConflictError extends registered('conflict') {}`.
 */
function registered<const C extends ErrorCode>(code: C) {
  abstract class Registered extends QuarryError {
    readonly code: C = code;
  }
  return Registered;
}

/** 400: a request parameter or body field is missing, malformed or out of range. */
export class InvalidParameterError extends registered('invalid_parameter') {
  /** Name of the offending parameter (query name, body path or `body`). */
  readonly parameter: string;
  constructor(parameter: string, message: string, extra: Record<string, unknown> = {}) {
    super(message.includes(parameter) ? message : `Invalid parameter '${parameter}': ${message}`, extra);
    this.parameter = parameter;
  }
}

/** 401: no token was sent. */
export class MissingTokenError extends registered('missing_token') {
  constructor() {
    super('Unauthorized. Token is missing: pass it as the token query parameter.');
  }
}

/** 401: the token is unknown or revoked. */
export class InvalidTokenError extends registered('invalid_token') {
  constructor() {
    super('Unauthorized. Incorrect token.');
  }
}

/** 429: the token's balance cannot pay for the operation. */
export class InsufficientCreditsError extends registered('insufficient_credits') {
  constructor() {
    super('Insufficient credits');
  }
}

/** 404: the object does not exist or belongs to another token (indistinguishable on purpose). */
export class NotFoundError extends registered('not_found') {
  readonly #errorCode: number;
  constructor(message: string, options: { errorCode?: number; extra?: Record<string, unknown> } = {}) {
    super(message, options.extra);
    this.#errorCode = options.errorCode ?? 404;
  }
  override get errorCode(): number {
    return this.#errorCode;
  }
}

/** 409-free conflict on creation, reported as 400 as the reference service does. */
export class ConflictError extends registered('conflict') {}

/** 413: the request body exceeds the configured limit. */
export class PayloadTooLargeError extends registered('payload_too_large') {}

/** 507: a file could not be written for lack of disk space; asking again later may succeed. */
export class InsufficientStorageError extends registered('insufficient_storage') {}

/** True when `message` (a stored error or an errno message) says the disk was full. */
export function isDiskFull(message: string | null | undefined): boolean {
  // SQLite says `database or disk is full` (SQLITE_FULL); PostgreSQL and the OS, ENOSPC's text.
  return (
    message != null &&
    /ENOSPC|no space left on device|EDQUOT|quota exceeded|database or disk is full|SQLITE_FULL/i.test(message)
  );
}

/**
 * True when a store's or the OS's `error` says the disk was full: PostgreSQL's SQLSTATE 53100
 * (`disk_full`, whatever language the server's messages are in), or a message `isDiskFull` knows.
 * The other class 53 states are not the disk: 53200 is the server's memory, 53300 its
 * connections, 53400 a configured limit.
 */
export function isDiskFullError(error: unknown): boolean {
  if (error == null || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '53100' || code === 'ENOSPC' || isDiskFull(typeof message === 'string' ? message : null);
}

/** 414: a path parameter is longer than the router accepts. */
export class UriTooLongError extends registered('uri_too_long') {}

/** 201 "not ready yet": a job or export is still running (area A bulk endpoints). */
export class NotReadyError extends registered('not_ready') {}

/** 457 in the body, 404 on the wire: the extraction API name is neither built in nor defined. */
export class InvalidApiError extends registered('invalid_api') {
  constructor() {
    super('Invalid API');
  }
}

/** 505 in the body, 400 on the wire: a bulk extract job name with forbidden characters. */
export class InvalidJobNameError extends registered('invalid_job_name') {
  constructor() {
    super('Crawl names can consist only of letters, numbers, underscores or hyphens.');
  }
}

/** An outbound fetch was refused or failed; becomes an extraction error, never a crash. */
export class FetchError extends QuarryError {
  readonly code: ErrorCode;
  /** True when retrying later may succeed (network error, timeout, 429, 5xx). */
  readonly transient: boolean;
  /** HTTP status of the remote answer when there was one. */
  readonly httpStatus: number | undefined;
  constructor(
    code: Extract<ErrorCode, `fetch_${string}` | 'not_html'>,
    message: string,
    options: { transient?: boolean; httpStatus?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.transient = options.transient ?? false;
    this.httpStatus = options.httpStatus;
  }
  /** Retried when transient, whatever its code's usual outcome; else the record fails. */
  override get outcome(): ErrorOutcome {
    return this.transient ? 'retry' : 'fail-record';
  }
}

/** 503: the service is not able to answer now (shutting down, store unavailable). */
export class UnavailableError extends registered('unavailable') {}

/** 400: a bulk job's coverage report is still being generated (docs/api.md#coverage-reports). */
export class ReportNotReadyError extends registered('report_not_ready') {}

/** 422: extracting a page took longer than its time budget; the thread doing it was replaced. */
export class ExtractionTimeoutError extends registered('extraction_timeout') {}

/** 422: extracting a page needed more than a thread's heap; the thread was replaced. */
export class ExtractionTooLargeError extends registered('extraction_too_large') {}

/**
 * 500, outcome fail-record: extracting a page failed inside its extraction thread — the extractor
 * threw an error of its own (a bug, logged) or the thread died and was replaced. The page (or
 * request) fails; a crawl goes on with its other pages.
 */
export class ExtractionFailedError extends registered('extraction_failed') {}
