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
}

export const DEFAULT_PORT = 8080;

/** Parses a boolean-ish environment value: `1`, `true`, `yes`, `on` are true. */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

/**
 * Builds the configuration from the environment, with explicit overrides (CLI flags) winning.
 * Throws with a message naming the variable when a value is malformed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const cores = (globalThis.navigator?.hardwareConcurrency as number | undefined) ?? 2;
  const config: Config = {
    port: envInt(env, 'PORT', DEFAULT_PORT),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.QUARRY_DATA_DIR ?? 'data'),
    allowPrivateNetwork: envFlag(env.QUARRY_ALLOW_PRIVATE_NETWORK),
    logLevel: env.LOG_LEVEL ?? 'info',
    credits: Object.freeze({
      perMatch: envInt(env, 'QUARRY_CREDITS_PER_MATCH', 25),
      perMatchRefresh: envInt(env, 'QUARRY_CREDITS_PER_REFRESH_MATCH', 100),
    }),
    limits: Object.freeze({
      enhanceBodyBytes: envInt(env, 'QUARRY_ENHANCE_BODY_LIMIT', 10 * 1024 * 1024),
      bulkBodyBytes: envInt(env, 'QUARRY_BULK_BODY_LIMIT', 200 * 1024 * 1024),
      bulkMaxRecords: envInt(env, 'QUARRY_BULK_MAX_RECORDS', 1_000_000),
      maxSize: 100,
    }),
    workerThreads: envInt(env, 'QUARRY_WORKERS', Math.max(1, cores)),
    enhanceThreads: envInt(env, 'QUARRY_ENHANCE_THREADS', Math.max(1, cores)),
    ...overrides,
  };
  if (overrides.dataDir !== undefined) {
    return Object.freeze({ ...config, dataDir: path.resolve(overrides.dataDir) });
  }
  return Object.freeze(config);
}
