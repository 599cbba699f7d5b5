/**
 * Custom API rows as both adapters store them (the same columns in PostgreSQL and in SQLite),
 * mapped to the port's record in one place, as bulk-rows.ts is for bulk jobs.
 */
import type { CustomApiRecord } from './ports.ts';

export interface CustomApiRow {
  hash: string;
  token_id: string;
  api: string;
  url_pattern: string;
  ruleset: string;
  created_at: number;
  updated_at: number;
}

/** The columns of `custom_apis`, in the order `toRecord` reads and the adapters insert them. */
export const COLUMNS = 'hash, token_id, api, url_pattern, ruleset, created_at, updated_at';

export function toRecord(row: CustomApiRow): CustomApiRecord {
  return Object.freeze({
    hash: row.hash,
    tokenId: row.token_id,
    api: row.api,
    urlPattern: row.url_pattern,
    ruleset: JSON.parse(row.ruleset) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}
