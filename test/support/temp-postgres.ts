/**
 * A PostgreSQL database of its own for a test: created fresh on the server the tests use
 * (`QUARRY_TEST_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/test — the database
 * named there is only used to create and drop others), dropped afterwards. Several worktrees
 * and CI run tests at once: nothing is shared between them.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Storage } from '../../src/storage/index.ts';
import { openStorage } from '../../src/storage/index.ts';

const ADMIN_URL = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database made for one test; `drop()` removes it, ending its connections first. */
export interface TempDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `the tests need PostgreSQL at ${ADMIN_URL} (set QUARRY_TEST_DATABASE_URL): ${(error as Error).message}`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A tablespace at `directory` (empty, owned by the server's user: the server is local), for a
 * database whose files should live there (a small file system, to fill); `drop()` removes it
 * once its databases are dropped.
 */
export async function createTempTablespace(
  directory: string,
): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `quarry_ts_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((client) =>
    client.query(`CREATE TABLESPACE ${name} LOCATION '${directory.replaceAll("'", "''")}'`),
  );
  return {
    name,
    drop: () => admin((client) => client.query(`DROP TABLESPACE IF EXISTS ${name}`)).then(() => {}),
  };
}

/** Creates an empty database with a unique name (its files in `tablespace`, if given). */
export async function createTempDatabase(tablespace?: string): Promise<TempDatabase> {
  const name = `quarry_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((client) =>
    client.query(`CREATE DATABASE ${name}${tablespace ? ` TABLESPACE ${tablespace}` : ''}`),
  );
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** A fresh PostgreSQL store in a database of its own; `cleanup()` closes it and drops the database. */
export async function openTempPostgresStorage(): Promise<{ storage: Storage; cleanup(): Promise<void> }> {
  const database = await createTempDatabase();
  const storage = openStorage({ adapter: 'postgres', url: database.url });
  return {
    storage,
    cleanup: async () => {
      await storage.close();
      await database.drop();
    },
  };
}

/**
 * The database a whole-app test runs on: with `QUARRY_TEST_STORE=postgres` a fresh PostgreSQL
 * database (so any app test can run against PostgreSQL), else `undefined` (the embedded store).
 */
export async function testDatabase(): Promise<TempDatabase | undefined> {
  return process.env.QUARRY_TEST_STORE === 'postgres' ? createTempDatabase() : undefined;
}
