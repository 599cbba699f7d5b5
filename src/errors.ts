/**
 * The one registry of errors Quarry reports. Each class has a stable `code`, an HTTP `status`
 * and, for areas B and C, the `errorCode` that goes in their `{errorCode, error}` body
 * (docs/api.md#errors). Mapping to response bodies happens in one place: `http/error-mapping.ts`.
 * Services throw these; anything else that escapes is a bug and becomes a 500.
 */
export abstract class QuarryError extends Error {
  /** Stable machine-readable identifier, e.g. `invalid_parameter`. */
  abstract readonly code: string;
  /** HTTP status of the response. */
  abstract readonly status: number;
  /** Code carried in area B/C bodies; defaults to the HTTP status. */
  get errorCode(): number {
    return this.status;
  }
  /** Extra fields merged into the area A general error body (e.g. `bulkjobStatus`). */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.extra = extra;
  }
}

/** 400: a request parameter or body field is missing, malformed or out of range. */
export class InvalidParameterError extends QuarryError {
  readonly code = 'invalid_parameter';
  readonly status = 400;
  /** Name of the offending parameter (query name, body path or `body`). */
  readonly parameter: string;
  constructor(parameter: string, message: string, extra: Record<string, unknown> = {}) {
    super(message.includes(parameter) ? message : `Invalid parameter '${parameter}': ${message}`, extra);
    this.parameter = parameter;
  }
}

/** 401: no token was sent. */
export class MissingTokenError extends QuarryError {
  readonly code = 'missing_token';
  readonly status = 401;
  constructor() {
    super('Unauthorized. Token is missing: pass it as the token query parameter.');
  }
}

/** 401: the token is unknown or revoked. */
export class InvalidTokenError extends QuarryError {
  readonly code = 'invalid_token';
  readonly status = 401;
  constructor() {
    super('Unauthorized. Incorrect token.');
  }
}

/** 429: the token's balance cannot pay for the operation. */
export class InsufficientCreditsError extends QuarryError {
  readonly code = 'insufficient_credits';
  readonly status = 429;
  constructor() {
    super('Insufficient credits');
  }
}

/** 404: the object does not exist or belongs to another token (indistinguishable on purpose). */
export class NotFoundError extends QuarryError {
  readonly code = 'not_found';
  readonly status = 404;
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
export class ConflictError extends QuarryError {
  readonly code = 'conflict';
  readonly status = 400;
}

/** 413: the request body exceeds the configured limit. */
export class PayloadTooLargeError extends QuarryError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

/** 507: a file could not be written for lack of disk space; asking again later may succeed. */
export class InsufficientStorageError extends QuarryError {
  readonly code = 'insufficient_storage';
  readonly status = 507;
}

/** True when `message` (a stored error or an errno message) says the disk was full. */
export function isDiskFull(message: string | null | undefined): boolean {
  return message != null && /ENOSPC|no space left on device|EDQUOT|quota exceeded/i.test(message);
}

/** 414: a path parameter is longer than the router accepts. */
export class UriTooLongError extends QuarryError {
  readonly code = 'uri_too_long';
  readonly status = 414;
}

/** 201 "not ready yet": a job or export is still running (area A bulk endpoints). */
export class NotReadyError extends QuarryError {
  readonly code = 'not_ready';
  readonly status = 201;
}

/** 457 in the body, 404 on the wire: the extraction API name is neither built in nor defined. */
export class InvalidApiError extends QuarryError {
  readonly code = 'invalid_api';
  readonly status = 404;
  override get errorCode(): number {
    return 457;
  }
  constructor() {
    super('Invalid API');
  }
}

/** 505 in the body, 400 on the wire: a bulk extract job name with forbidden characters. */
export class InvalidJobNameError extends QuarryError {
  readonly code = 'invalid_job_name';
  readonly status = 400;
  override get errorCode(): number {
    return 505;
  }
  constructor() {
    super('Crawl names can consist only of letters, numbers, underscores or hyphens.');
  }
}

/** An outbound fetch was refused or failed; becomes an extraction error, never a crash. */
export class FetchError extends QuarryError {
  readonly code: string;
  readonly status = 400;
  /** True when retrying later may succeed (network error, timeout, 429, 5xx). */
  readonly transient: boolean;
  /** HTTP status of the remote answer when there was one. */
  readonly httpStatus: number | undefined;
  constructor(code: string, message: string, options: { transient?: boolean; httpStatus?: number } = {}) {
    super(message);
    this.code = code;
    this.transient = options.transient ?? false;
    this.httpStatus = options.httpStatus;
  }
}

/** 503: the service is not able to answer now (shutting down, store unavailable). */
export class UnavailableError extends QuarryError {
  readonly code = 'unavailable';
  readonly status = 503;
}

/** 400: a bulk job's coverage report is still being generated (docs/api.md#coverage-reports). */
export class ReportNotReadyError extends QuarryError {
  readonly code = 'report_not_ready';
  readonly status = 400;
}
