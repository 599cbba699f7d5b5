import type { Migration } from './index.ts';

/** Knowledge-graph import (kg/import): bulk loading with deferred key indexing. */
export const KG_IMPORT_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    name: 'entities whose retrieval keys are not indexed yet',
    // Written in the same transaction as the entity rows, removed in the one that indexes their
    // keys: a crash between the two leaves the list, and the next indexing run completes it.
    sql: 'CREATE TABLE entity_keys_pending (ref INTEGER PRIMARY KEY);',
  },
];
