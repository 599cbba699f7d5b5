import type { Migration } from './migration.ts';

/** Knowledge-graph import (kg/import): bulk loading with deferred key indexing. */
export const KG_IMPORT_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    name: 'entities whose retrieval keys are not indexed yet',
    // Written in the same transaction as the entity rows, removed in the one that indexes their
    // keys: a crash between the two leaves the list, and the next indexing run completes it.
    sql: 'CREATE TABLE entity_keys_pending (ref INTEGER PRIMARY KEY);',
  },
  {
    version: 21,
    name: 'entity counts per type kept by triggers',
    // Matchers read the counts of every type at start-up; counting 2M rows scanned the whole
    // table (seconds on a cold cache). Triggers keep them exact in every transaction.
    sql: `
      CREATE TABLE entity_counts (type TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO entity_counts (type, n)
        SELECT t.type, (SELECT count(*) FROM entities WHERE type = t.type)
        FROM (SELECT 'Organization' AS type UNION ALL SELECT 'Person') AS t;
      CREATE TRIGGER entity_counts_insert AFTER INSERT ON entities BEGIN
        UPDATE entity_counts SET n = n + 1 WHERE type = NEW.type;
      END;
      CREATE TRIGGER entity_counts_delete AFTER DELETE ON entities BEGIN
        UPDATE entity_counts SET n = n - 1 WHERE type = OLD.type;
      END;
      CREATE TRIGGER entity_counts_retype AFTER UPDATE OF type ON entities
        WHEN NEW.type IS NOT OLD.type BEGIN
        UPDATE entity_counts SET n = n - 1 WHERE type = OLD.type;
        UPDATE entity_counts SET n = n + 1 WHERE type = NEW.type;
      END;`,
  },
];
