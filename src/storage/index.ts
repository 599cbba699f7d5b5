export type {
  CandidateProfile,
  CustomApiRecord,
  CustomApiStore,
  CustomApiWrite,
  EntityCounts,
  EntityStore,
  EntityWrite,
  SerializedEntityWrite,
  Storage,
  StoredEntity,
  TokenRecord,
  TokenStore,
  WriteBatchOptions,
} from './ports.ts';
export { openSqliteStorage, sqliteFileFor, SQLITE_FILE_NAME } from './sqlite/index.ts';
