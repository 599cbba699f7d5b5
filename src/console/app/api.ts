/**
 * Calls to Quarry's public HTTP API (docs/api.md), the only way the console reaches the server:
 * the token goes in an `Authorization: Bearer` header, or in the query of download links (a
 * browser download cannot send headers).
 */

/** An answer with an error status, with the message the API gave. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, message: string, body: unknown) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

export interface CallOptions {
  readonly method?: string;
  readonly query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  readonly json?: unknown;
  /** A raw body with its content type. */
  readonly text?: { readonly body: string; readonly type: string };
}

/** `path` with `query` (undefined and empty values left out). */
export function urlOf(path: string, query: CallOptions['query'] = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** The message of an error body of area A (`message`) or of areas B and C (`error`). */
function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.message === 'string') return record.message;
    if (typeof record.error === 'string') return record.error;
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 300);
  return `HTTP ${status}`;
}

/** Calls the API; resolves with status and parsed body (JSON when it is JSON), rejects with ApiError at 4xx/5xx. */
export async function call<T>(token: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.text) {
    headers['Content-Type'] = options.text.type;
    body = options.text.body;
  }
  const response = await fetch(urlOf(path, options.query), {
    method: options.method ?? 'GET',
    headers,
    body,
  });
  const raw = await response.text();
  let parsed: unknown = raw;
  if ((response.headers.get('content-type') ?? '').includes('json') && raw !== '') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      // A body that says JSON but is not: keep the text.
    }
  }
  if (response.status >= 400) throw new ApiError(response.status, messageOf(response.status, parsed), parsed);
  return { status: response.status, body: parsed as T };
}

/** A link a browser can download directly: the token rides in the query. */
export function downloadUrl(token: string, path: string, query: CallOptions['query'] = {}): string {
  return urlOf(path, { ...query, token });
}

/** What to show for a failed call. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (HTTP ${error.status})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
