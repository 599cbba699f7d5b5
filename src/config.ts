import { isIP } from 'node:net';
import path from 'node:path';

/** Credit costs charged per operation (docs/api.md#credits). All values are whole credits. */
export interface CreditCosts {
  /** Charged per matched entity returned by enhance/combine (and per bulk record with a match). */
  readonly perMatch: number;
  /** Charged per matched entity instead of `perMatch` when `refresh=true`. */
  readonly perMatchRefresh: number;
}

/** Size limits (docs/api.md#limits). Bytes unless stated. */
export interface Limits {
  readonly enhanceBodyBytes: number;
  readonly bulkBodyBytes: number;
  readonly bulkMaxRecords: number;
  readonly maxSize: number;
}

/** Refresh and search (docs/api.md#refresh-and-search). */
export interface WebEvidenceConfig {
  /** An origin fetched less than this long ago is not fetched again (`QUARRY_REFRESH_MAX_AGE`). */
  readonly refreshMaxAgeMs: number;
  /**
   * Least time between the end of one refresh or search fetch on a host and the start of the
   * next (`QUARRY_REFRESH_CRAWL_DELAY`); a robots.txt `Crawl-delay` may ask for more.
   */
  readonly crawlDelayMs: number;
  /** The SearXNG-compatible search endpoint (`QUARRY_SEARCH_URL`); `undefined`: no search. */
  readonly searchUrl: string | undefined;
}

/** Immutable service configuration, built once in the composition root. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Directory holding the embedded store and other state (`QUARRY_DATA_DIR`, default `./data`). */
  readonly dataDir: string;
  /**
   * The PostgreSQL database every process of a deployment shares (`QUARRY_DATABASE_URL`,
   * `postgres://…`); `undefined`: the embedded store in `dataDir`.
   */
  readonly databaseUrl: string | undefined;
  /**
   * MiB of the embedded store's file that each thread reading the graph (enhance threads, bulk
   * workers, export threads) maps into memory (`QUARRY_SQLITE_MMAP_MIB`, default 0: off, reads
   * go through `pread`; SQLite caps the map at 2,048). See `SqliteOpenOptions.mmapMiB`.
   */
  readonly sqliteMmapMiB: number;
  /** When true, outbound fetches may target loopback/private/link-local addresses (tests only). */
  readonly allowPrivateNetwork: boolean;
  /**
   * Addresses or CIDR ranges outbound fetches may reach although they are not public (an
   * internal mirror, a local fixture web), `QUARRY_ALLOWED_ADDRESSES`; everything else stays
   * refused.
   */
  readonly allowedAddresses: readonly string[];
  readonly logLevel: string;
  readonly credits: CreditCosts;
  readonly limits: Limits;
  /** Worker threads used by CPU-bound jobs; defaults to the number of cores. */
  readonly workerThreads: number;
  /**
   * Threads that answer single enhance requests (`QUARRY_ENHANCE_THREADS`, default: the number
   * of cores); 0 answers them on the main thread.
   */
  readonly enhanceThreads: number;
  /** Finished bulk jobs are deleted this long after they end; 0 keeps them until deleted. */
  readonly bulkRetentionMs: number;
  readonly web: WebEvidenceConfig;
  /** Request timeouts of the HTTP server (milliseconds; 408 and the connection closed). */
  readonly timeouts: Timeouts;
  /**
   * The secret a scraper must send to read `GET /metrics` (`QUARRY_METRICS_TOKEN`, bearer or
   * `token` parameter); `undefined`: the metrics are open (docs/metrics.md).
   */
  readonly metricsToken: string | undefined;
}

/** How long the server waits for a client (milliseconds). */
export interface Timeouts {
  /** For the request line and headers. */
  readonly headersMs: number;
  /** For the whole request, body included. */
  readonly requestMs: number;
  /** Longest silence within a request body. */
  readonly bodyIdleMs: number;
}

/** Where the command-line clients (`quarry bulk`, `quarry extract-job`) find the service. */
export interface ClientConfig {
  /** Base URL of the service, without a trailing slash. */
  readonly url: string;
  /** The token secret, when one is set. */
  readonly token: string | undefined;
}

export const DEFAULT_PORT = 8080;

/** Parses a boolean-ish environment value: `1`, `true`, `yes`, `on` are true. */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** One environment variable: the option it sets, its default and how its text is read. */
export interface EnvVariable<T> {
  readonly name: string;
  /** The option it sets (a `Config` or `ClientConfig` field path). */
  readonly option: string;
  /** The default as a reader would write it (`8080`, `number of cores`, `unset`). */
  readonly defaultText: string;
  readonly description: string;
  /** The value from `env`: the default when unset or blank; throws naming the variable if malformed. */
  read(env: NodeJS.ProcessEnv): T;
}

function variable<T>(
  name: string,
  option: string,
  fallback: () => T,
  parse: (raw: string, name: string) => T,
  defaultText: string,
  description: string,
): EnvVariable<T> {
  return {
    name,
    option,
    defaultText,
    description,
    read(env) {
      const raw = env[name];
      return raw === undefined || raw.trim() === '' ? fallback() : parse(raw, name);
    },
  };
}

function nonNegativeInt(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

function days(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a non-negative number of days, got "${raw}"`);
  }
  return Math.round(value * 86_400_000);
}

/** A duration: seconds, or a number with a unit (`ms`, `s`, `m`, `h`, `d`), in milliseconds. */
export function parseDuration(raw: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(raw);
  if (!match) {
    throw new Error(`${name} must be a duration (seconds, or with a unit: 90s, 30m, 24h, 7d), got "${raw}"`);
  }
  const unit = (match[2] ?? 's').toLowerCase();
  const scale = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return Math.round(Number(match[1]) * scale);
}

function seconds(raw: string, name: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a non-negative number of seconds, got "${raw}"`);
  }
  return Math.round(value * 1_000);
}

function addressList(raw: string, name: string): readonly string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !validBits || rest.length > 0) {
      throw new Error(`${name} must be IP addresses or CIDR ranges separated by commas, got "${entry}"`);
    }
  }
  return Object.freeze(entries);
}

function postgresUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`${name} must be a postgres:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`${name} must be a postgres:// URL, got "${raw}"`);
  }
  return raw.trim();
}

function httpUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  return url.href;
}

const text = (raw: string) => raw;
const cores = () => Math.max(1, (globalThis.navigator?.hardwareConcurrency as number | undefined) ?? 2);

/**
 * Every environment variable Quarry reads, in one table: the variable, the option it sets, its
 * default. Nothing else reads `process.env` for settings; the README's table mirrors this one
 * (a test checks that it names every variable).
 */
export const ENV = {
  port: variable('PORT', 'port', () => DEFAULT_PORT, nonNegativeInt, '8080', 'HTTP port'),
  host: variable('HOST', 'host', () => '0.0.0.0', text, '0.0.0.0', 'Address the server listens on'),
  dataDir: variable(
    'QUARRY_DATA_DIR',
    'dataDir',
    () => path.resolve('data'),
    (raw) => path.resolve(raw),
    './data',
    'The embedded store (SQLite, WAL) and job files',
  ),
  databaseUrl: variable(
    'QUARRY_DATABASE_URL',
    'databaseUrl',
    () => undefined as string | undefined,
    postgresUrl,
    'unset (embedded store)',
    'PostgreSQL database shared by every process of a deployment (postgres://user@host:port/db)',
  ),
  allowPrivateNetwork: variable(
    'QUARRY_ALLOW_PRIVATE_NETWORK',
    'allowPrivateNetwork',
    () => false,
    envFlag,
    'off',
    'Allow fetching from loopback/private addresses (tests only)',
  ),
  allowedAddresses: variable(
    'QUARRY_ALLOWED_ADDRESSES',
    'allowedAddresses',
    () => Object.freeze([]) as readonly string[],
    addressList,
    'none',
    'Addresses or CIDR ranges (comma-separated) fetches may reach although not public',
  ),
  logLevel: variable('LOG_LEVEL', 'logLevel', () => 'info', text, 'info', 'pino level; logs are JSON lines'),
  perMatch: variable(
    'QUARRY_CREDITS_PER_MATCH',
    'credits.perMatch',
    () => 25,
    nonNegativeInt,
    '25',
    'Credits per returned match',
  ),
  perMatchRefresh: variable(
    'QUARRY_CREDITS_PER_REFRESH_MATCH',
    'credits.perMatchRefresh',
    () => 100,
    nonNegativeInt,
    '100',
    'Credits per returned match with refresh=true',
  ),
  enhanceBodyBytes: variable(
    'QUARRY_ENHANCE_BODY_LIMIT',
    'limits.enhanceBodyBytes',
    () => 10 * 1024 * 1024,
    nonNegativeInt,
    '10 MiB',
    'Request body limit (bytes) of every route but the bulk submit and bulk extract create',
  ),
  bulkBodyBytes: variable(
    'QUARRY_BULK_BODY_LIMIT',
    'limits.bulkBodyBytes',
    () => 200 * 1024 * 1024,
    nonNegativeInt,
    '200 MiB',
    'Request body limit (bytes) of a bulk submit and a bulk extract create',
  ),
  bulkMaxRecords: variable(
    'QUARRY_BULK_MAX_RECORDS',
    'limits.bulkMaxRecords',
    () => 1_000_000,
    nonNegativeInt,
    '1,000,000',
    'Records per bulk job',
  ),
  workerThreads: variable(
    'QUARRY_WORKERS',
    'workerThreads',
    cores,
    nonNegativeInt,
    'number of cores',
    'Worker threads for bulk jobs',
  ),
  sqliteMmapMiB: variable(
    'QUARRY_SQLITE_MMAP_MIB',
    'sqliteMmapMiB',
    () => 0,
    nonNegativeInt,
    '0 (off)',
    "MiB of the embedded store's file each graph-reading thread maps into memory (at most 2048)",
  ),
  enhanceThreads: variable(
    'QUARRY_ENHANCE_THREADS',
    'enhanceThreads',
    cores,
    nonNegativeInt,
    'number of cores',
    'Threads answering single enhance requests (0: the main thread answers)',
  ),
  bulkRetentionMs: variable(
    'QUARRY_BULK_RETENTION_DAYS',
    'bulkRetentionMs',
    () => 0,
    days,
    'unset (keep)',
    'Delete finished bulk jobs this many days after they end (fractions allowed; 0 keeps them)',
  ),
  refreshMaxAgeMs: variable(
    'QUARRY_REFRESH_MAX_AGE',
    'web.refreshMaxAgeMs',
    () => 86_400_000,
    parseDuration,
    '24h',
    'refresh: an origin fetched more recently is not fetched again (seconds, or 90s, 30m, 24h, 7d)',
  ),
  refreshCrawlDelayMs: variable(
    'QUARRY_REFRESH_CRAWL_DELAY',
    'web.crawlDelayMs',
    () => 250,
    seconds,
    '0.25',
    'refresh and search: seconds between two fetches on one host (robots.txt Crawl-delay may ask more)',
  ),
  searchUrl: variable(
    'QUARRY_SEARCH_URL',
    'web.searchUrl',
    () => undefined as string | undefined,
    httpUrl,
    'unset (no search)',
    'A SearXNG-compatible search endpoint (`GET <url>?q=…&format=json`) for `search`',
  ),
  headersTimeoutMs: variable(
    'QUARRY_HEADERS_TIMEOUT_MS',
    'timeouts.headersMs',
    () => 20_000,
    nonNegativeInt,
    '20000',
    'Time a client has to send the request line and headers (then 408)',
  ),
  requestTimeoutMs: variable(
    'QUARRY_REQUEST_TIMEOUT_MS',
    'timeouts.requestMs',
    () => 600_000,
    nonNegativeInt,
    '600000',
    'Time a client has to send a whole request, body included (then 408)',
  ),
  bodyIdleTimeoutMs: variable(
    'QUARRY_BODY_IDLE_TIMEOUT_MS',
    'timeouts.bodyIdleMs',
    () => 30_000,
    nonNegativeInt,
    '30000',
    'Longest silence within a request body (then 408; 0: no limit)',
  ),
  metricsToken: variable(
    'QUARRY_METRICS_TOKEN',
    'metricsToken',
    () => undefined as string | undefined,
    (raw) => raw.trim(),
    'unset (open)',
    '`GET /metrics` answers only requests sending this secret (bearer or `token` parameter)',
  ),
  clientUrl: variable(
    'QUARRY_URL',
    'url (CLI clients)',
    () => 'http://localhost:8080',
    (raw) => raw.replace(/\/+$/, ''),
    'http://localhost:8080',
    'The service `quarry bulk` and `quarry extract-job` talk to (`--url` wins)',
  ),
  clientToken: variable(
    'QUARRY_TOKEN',
    'token (CLI clients)',
    () => undefined as string | undefined,
    text,
    'unset',
    'The token `quarry bulk` and `quarry extract-job` send (`--token` wins)',
  ),
} as const;

/** The rows of `ENV`, in table order. */
export const ENVIRONMENT: readonly EnvVariable<unknown>[] = Object.values(ENV);

/**
 * Builds the configuration from the environment, with explicit overrides (CLI flags) winning.
 * Throws with a message naming the variable when a value is malformed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const config: Config = {
    port: ENV.port.read(env),
    host: ENV.host.read(env),
    dataDir: ENV.dataDir.read(env),
    databaseUrl: ENV.databaseUrl.read(env),
    sqliteMmapMiB: ENV.sqliteMmapMiB.read(env),
    allowPrivateNetwork: ENV.allowPrivateNetwork.read(env),
    allowedAddresses: ENV.allowedAddresses.read(env),
    logLevel: ENV.logLevel.read(env),
    credits: Object.freeze({
      perMatch: ENV.perMatch.read(env),
      perMatchRefresh: ENV.perMatchRefresh.read(env),
    }),
    limits: Object.freeze({
      enhanceBodyBytes: ENV.enhanceBodyBytes.read(env),
      bulkBodyBytes: ENV.bulkBodyBytes.read(env),
      bulkMaxRecords: ENV.bulkMaxRecords.read(env),
      maxSize: 100,
    }),
    workerThreads: ENV.workerThreads.read(env),
    enhanceThreads: ENV.enhanceThreads.read(env),
    bulkRetentionMs: ENV.bulkRetentionMs.read(env),
    web: Object.freeze({
      refreshMaxAgeMs: ENV.refreshMaxAgeMs.read(env),
      crawlDelayMs: ENV.refreshCrawlDelayMs.read(env),
      searchUrl: ENV.searchUrl.read(env),
    }),
    timeouts: Object.freeze({
      headersMs: ENV.headersTimeoutMs.read(env),
      requestMs: ENV.requestTimeoutMs.read(env),
      bodyIdleMs: ENV.bodyIdleTimeoutMs.read(env),
    }),
    metricsToken: ENV.metricsToken.read(env),
    ...overrides,
  };
  if (overrides.dataDir !== undefined) {
    return Object.freeze({ ...config, dataDir: path.resolve(overrides.dataDir) });
  }
  return Object.freeze(config);
}

/** Where the CLI clients connect: flags win over `QUARRY_URL` / `QUARRY_TOKEN`. */
export function loadClientConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: { url?: string; token?: string } = {},
): ClientConfig {
  return {
    url: overrides.url !== undefined ? overrides.url.replace(/\/+$/, '') : ENV.clientUrl.read(env),
    token: overrides.token ?? ENV.clientToken.read(env),
  };
}
