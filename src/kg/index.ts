export type {
  ContactString,
  DateFact,
  Education,
  Employment,
  Entity,
  EntityType,
  Image,
  LinkedEntity,
  Location,
  NameDetail,
  NonCanonicalFact,
  PhoneNumber,
} from './entity.ts';
export { ENTITY_TYPES, isEntityType } from './entity.ts';
export { DERIVED_FIELDS, LIST_FIELDS } from './entity.ts';
export type { QueryField, QueryFieldKind, QueryListField, QueryScalarField } from './query-fields.ts';
export {
  CUSTOM_ID_FIELD,
  QUERY_FIELD_KINDS,
  QUERY_FIELDS,
  QUERY_LIST_FIELDS,
  QUERY_RECORD_FIELDS,
  QUERY_SCALAR_FIELDS,
} from './query-fields.ts';
export type { CleanOptions, Validation } from './validate-entity.ts';
export {
  cleanEntity,
  cleanEntityTracked,
  EntityRejection,
  MAX_ID_LENGTH,
  normalizeText,
  validateEntity,
} from './validate-entity.ts';
export type { FactLedger, LedgerEntry, LedgerState, SourceStatement } from './fact-ledger.ts';
export {
  applyStatement,
  canonicalizeInPlace,
  canonicalStatement,
  elementOriginsOf,
  factOriginsOf,
  ledgerFor,
  mergeStatements,
  originsKey,
  sourceOf,
  statementsOf,
  structuralKey,
  TypeConflict,
} from './fact-ledger.ts';
export type { DemoExamples, DemoGraphOptions } from './demo-data.ts';
export {
  DEFAULT_DEMO_SEED,
  DEFAULT_DEMO_SIZES,
  DEMO_FILE_NAME,
  demoExamples,
  demoOrganizationId,
  demoPersonId,
  demoRecords,
  writeDemoGraph,
} from './demo-data.ts';
export * from './normalize/index.ts';
