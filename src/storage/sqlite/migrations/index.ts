/**
 * Versioned schema migrations of the embedded store. Each area owns a range of versions so that
 * areas can add migrations independently: 1–99 core (accounts, knowledge graph), 100–199 bulk
 * enhance, 200–299 extraction and Custom APIs, 300–399 bulk extract jobs.
 * A migration, once released, is never edited: add a new one.
 */
import { BULK_MIGRATIONS } from './bulk.ts';
import { CORE_MIGRATIONS } from './core.ts';
import { CRAWL_MIGRATIONS } from './crawl.ts';
import { EXTRACT_MIGRATIONS } from './extract.ts';
import { KG_IMPORT_MIGRATIONS } from './kg-import.ts';
import type { Migration } from './migration.ts';
import { REFRESH_MIGRATIONS } from './refresh.ts';

export type { Migration } from './migration.ts';

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  ...CORE_MIGRATIONS,
  ...BULK_MIGRATIONS,
  ...EXTRACT_MIGRATIONS,
  ...KG_IMPORT_MIGRATIONS,
  ...REFRESH_MIGRATIONS,
  ...CRAWL_MIGRATIONS,
]);
