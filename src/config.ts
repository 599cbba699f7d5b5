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

/** Immutable service configuration, built once in the composition root. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Directory holding the embedded store and other state (`QUARRY_DATA_DIR`, default `./data`). */
  readonly dataDir: string;
  /** When true, outbound fetches may target loopback/private/link-local addresses (tests only). */
  readonly allowPrivateNetwork: boolean;
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
  allowPrivateNetwork: variable(
    'QUARRY_ALLOW_PRIVATE_NETWORK',
    'allowPrivateNetwork',
    () => false,
    envFlag,
    'off',
    'Allow fetching from loopback/private addresses (tests only)',
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
    allowPrivateNetwork: ENV.allowPrivateNetwork.read(env),
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
