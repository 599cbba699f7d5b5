/**
 * Validation of a bulk extract job creation request (`POST /v3/bulk`, docs/api.md#creating-a-job).
 * Pure: takes the submitted fields (form-encoded or JSON, merged with the query string) and
 * returns the job's name, settings and URL list, or throws a 400 naming the parameter.
 */
import { InvalidJobNameError, InvalidParameterError } from '../errors.ts';
import type { CrawlJobSettings, NewCrawlUrl } from '../storage/index.ts';

/** Most URLs one job may hold (docs/api.md#limits: 1,000,000). */
export const MAX_JOB_URLS = 1_000_000;
/** Longest accepted job name. */
export const MAX_NAME_LENGTH = 128;
/** Longest URL kept (longer ones are reported invalid). */
export const MAX_URL_LENGTH = 8_192;
/** Upper bound on `crawlDelay`, in seconds. */
export const MAX_CRAWL_DELAY_SECONDS = 3_600;
/** Default `crawlDelay` (docs/api.md#creating-a-job). */
export const DEFAULT_CRAWL_DELAY_SECONDS = 0.25;

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
/** RFC 9110 `token`, the grammar of a header field name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Extraction API paths: `/v3/<name>` (also `/api/<name>`, the Custom API spelling). */
const API_PATH = /^\/(?:v3|api)\/([A-Za-z0-9_-]+)\/?$/;

/** The fields `POST /v3/bulk` accepts; anything else is refused so typos do not pass silently. */
export const CREATION_FIELDS: readonly string[] = [
  'token',
  'name',
  'urls',
  'apiUrl',
  'customHeaders',
  'notifyWebhook',
  'notifyEmail',
  'obeyRobots',
  'repeat',
  'maxRounds',
  'pageProcessPattern',
  'crawlDelay',
  'kgIngest',
];

/** A validated creation request. */
export interface JobCreation {
  readonly name: string;
  readonly settings: Omit<CrawlJobSettings, 'publicBaseUrl'>;
  /** Distinct URLs in submitted order; invalid entries carry the reason. */
  readonly urls: NewCrawlUrl[];
}

/** Checks a job name: 400 naming `name` when missing, error 505 when it has other characters. */
export function validateJobName(value: unknown): string {
  if (value === undefined || value === null || value === '') {
    throw new InvalidParameterError('name', "Invalid parameter 'name': is required");
  }
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) throw new InvalidJobNameError();
  if (value.length > MAX_NAME_LENGTH) {
    throw new InvalidParameterError(
      'name',
      `Invalid parameter 'name': at most ${MAX_NAME_LENGTH} characters`,
    );
  }
  return value;
}

/** One value of a field that may be given once only; arrays of length 1 come from form parsing. */
function single(fields: Record<string, unknown>, name: string): unknown {
  const value = fields[name];
  if (Array.isArray(value)) {
    if (value.length > 1)
      throw new InvalidParameterError(name, `Invalid parameter '${name}': given more than once`);
    return value[0];
  }
  return value;
}

function optionalString(fields: Record<string, unknown>, name: string): string {
  const value = single(fields, name);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string')
    throw new InvalidParameterError(name, `Invalid parameter '${name}': must be a string`);
  return value.trim();
}

function optionalNumber(
  fields: Record<string, unknown>,
  name: string,
  fallback: number,
  check: { min: number; max: number; integer?: boolean },
): number {
  const value = single(fields, name);
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  const kind = check.integer ? 'an integer' : 'a number';
  if (!Number.isFinite(n) || (check.integer && !Number.isInteger(n)) || n < check.min || n > check.max) {
    throw new InvalidParameterError(
      name,
      `Invalid parameter '${name}': must be ${kind} between ${check.min} and ${check.max}`,
    );
  }
  return n;
}

function optionalFlag(fields: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = single(fields, name);
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  throw new InvalidParameterError(name, `Invalid parameter '${name}': must be 0 or 1`);
}

/** The API name that `apiUrl` designates (`/v3/article`, `https://host/v3/article?x=1`). */
export function apiNameOf(apiUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(apiUrl, 'http://quarry.invalid').pathname;
  } catch {
    return undefined;
  }
  return API_PATH.exec(path)?.[1];
}

function parseApiUrl(fields: Record<string, unknown>): { apiUrl: string; api: string } {
  const apiUrl = optionalString(fields, 'apiUrl');
  if (apiUrl === '') throw new InvalidParameterError('apiUrl', "Invalid parameter 'apiUrl': is required");
  const api = apiNameOf(apiUrl);
  if (!api) {
    throw new InvalidParameterError(
      'apiUrl',
      `Invalid parameter 'apiUrl': must name an extraction API, such as /v3/article (got "${apiUrl}")`,
    );
  }
  return { apiUrl, api };
}

/** `Name:Value` strings (repeatable, or newline-separated) or a JSON object of headers. */
export function parseCustomHeaders(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (name: string, headerValue: string) => {
    const trimmed = name.trim();
    if (!HEADER_NAME.test(trimmed)) {
      throw new InvalidParameterError(
        'customHeaders',
        `Invalid parameter 'customHeaders': "${trimmed}" is not a header name`,
      );
    }
    if (/[\r\n\0]/.test(headerValue)) {
      throw new InvalidParameterError(
        'customHeaders',
        `Invalid parameter 'customHeaders': the value of ${trimmed} has a line break`,
      );
    }
    headers[trimmed] = headerValue.trim();
  };
  if (value === undefined || value === null || value === '') return headers;
  if (typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, headerValue] of Object.entries(value)) {
      if (typeof headerValue !== 'string') {
        throw new InvalidParameterError(
          'customHeaders',
          `Invalid parameter 'customHeaders': ${name} must be a string`,
        );
      }
      add(name, headerValue);
    }
    return headers;
  }
  const entries = Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      throw new InvalidParameterError(
        'customHeaders',
        "Invalid parameter 'customHeaders': each must be a Name:Value string",
      );
    }
    for (const line of entry.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      const colon = line.indexOf(':');
      if (colon <= 0) {
        throw new InvalidParameterError(
          'customHeaders',
          `Invalid parameter 'customHeaders': "${line}" is not Name:Value`,
        );
      }
      add(line.slice(0, colon), line.slice(colon + 1));
    }
  }
  return headers;
}

function parseWebhook(fields: Record<string, unknown>): string {
  const value = optionalString(fields, 'notifyWebhook');
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidParameterError(
      'notifyWebhook',
      "Invalid parameter 'notifyWebhook': must be an absolute http(s) URL",
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidParameterError(
      'notifyWebhook',
      "Invalid parameter 'notifyWebhook': must be an absolute http(s) URL",
    );
  }
  return url.href;
}

/** Why `text` is not a URL Quarry fetches, or the parsed URL. */
function checkUrl(text: string): URL | string {
  if (text.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are fetched';
  if (url.hostname === '') return 'the URL has no host';
  url.hash = '';
  return url;
}

/**
 * The submitted URLs: whitespace-separated text (or an array of such strings), de-duplicated
 * (first occurrence kept, fragments ignored). Entries that are not absolute http(s) URLs are
 * kept as invalid so the per-URL report says why they were not fetched; when no entry is valid
 * (`file://`, `javascript:`, garbage), the request is refused (issue 28): a job that can fetch
 * nothing is a mistake to report, not a job to create.
 */
export function parseUrls(value: unknown): NewCrawlUrl[] {
  const parts: string[] = [];
  const entries = Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    if (entry === undefined || entry === null) continue;
    if (typeof entry !== 'string') {
      throw new InvalidParameterError(
        'urls',
        "Invalid parameter 'urls': must be a space-separated string of URLs",
      );
    }
    for (const part of entry.split(/\s+/)) if (part !== '') parts.push(part);
  }
  if (parts.length === 0) {
    throw new InvalidParameterError(
      'urls',
      "Invalid parameter 'urls': is required and must list at least one URL",
    );
  }
  if (parts.length > MAX_JOB_URLS) {
    throw new InvalidParameterError('urls', `Invalid parameter 'urls': at most ${MAX_JOB_URLS} URLs per job`);
  }
  const seen = new Set<string>();
  const urls: NewCrawlUrl[] = [];
  for (const part of parts) {
    const checked = checkUrl(part);
    const key = typeof checked === 'string' ? part : checked.href;
    if (seen.has(key)) continue;
    seen.add(key);
    urls.push(
      typeof checked === 'string'
        ? { url: part, invalid: checked }
        : { url: checked.href, host: checked.host },
    );
  }
  if (urls.every((url) => url.invalid !== undefined)) {
    const examples = urls
      .slice(0, 3)
      .map((url) => `"${url.url.slice(0, 100)}" (${url.invalid})`)
      .join(', ');
    throw new InvalidParameterError(
      'urls',
      `Invalid parameter 'urls': none of the URLs can be fetched (absolute http and https URLs only): ${examples}`,
    );
  }
  return urls;
}

/** Validates a creation request (every field named in `CREATION_FIELDS`). */
export function parseJobCreation(fields: Record<string, unknown>): JobCreation {
  const unknown = Object.keys(fields).filter((key) => !CREATION_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new InvalidParameterError(
      unknown[0],
      `Invalid parameter '${unknown[0]}': is not a bulk job parameter (accepted: ${CREATION_FIELDS.join(', ')})`,
    );
  }
  const name = validateJobName(single(fields, 'name'));
  const { apiUrl, api } = parseApiUrl(fields);
  const urls = parseUrls(fields.urls);
  const settings: JobCreation['settings'] = {
    apiUrl,
    api,
    customHeaders: parseCustomHeaders(fields.customHeaders),
    notifyWebhook: parseWebhook(fields),
    notifyEmail: optionalString(fields, 'notifyEmail'),
    obeyRobots: optionalFlag(fields, 'obeyRobots', true),
    repeat: optionalNumber(fields, 'repeat', 0, { min: 0, max: 3_650 }),
    maxRounds: optionalNumber(fields, 'maxRounds', 0, { min: -1, max: 1_000_000, integer: true }),
    pageProcessPattern: optionalString(fields, 'pageProcessPattern'),
    crawlDelay: optionalNumber(fields, 'crawlDelay', DEFAULT_CRAWL_DELAY_SECONDS, {
      min: 0,
      max: MAX_CRAWL_DELAY_SECONDS,
    }),
    kgIngest: optionalFlag(fields, 'kgIngest', false),
  };
  return { name, settings, urls };
}

/**
 * Whether a page is processed (extracted) under `pageProcessPattern`: `||`-separated
 * substrings, any of which the URL must contain; an empty pattern processes every page.
 */
export function matchesProcessPattern(pattern: string, url: string): boolean {
  if (pattern === '') return true;
  const parts = pattern.split('||').filter((part) => part !== '');
  return parts.length === 0 || parts.some((part) => url.includes(part));
}
