export type {
  CandidateProfile,
  CustomApiRecord,
  CustomApiStore,
  CustomApiWrite,
  EntityCounts,
  EntityStore,
  EntityWrite,
  Storage,
  StoredEntity,
  TokenRecord,
  TokenStore,
} from './ports.ts';
export { openSqliteStorage, sqliteFileFor, SQLITE_FILE_NAME } from './sqlite/index.ts';
