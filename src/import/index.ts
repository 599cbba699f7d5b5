export type { ColumnMapping } from './csv-mapping.ts';
export { parseColumnMapping, parseCsvRecord } from './csv-mapping.ts';
export type { ImportOptions, ImportSummary } from './import-entities.ts';
export { formatFor, importEntities } from './import-entities.ts';
export type { ImportCounts, SessionOptions } from './import-session.ts';
export { ImportSession } from './import-session.ts';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './line-splitter.ts';
export type { SplitLine } from './line-splitter.ts';
export type {
  ImportFormat,
  PreparedChunk,
  PreparedRecord,
  PrepareJob,
  PrepareOptions,
  Rejection,
} from './record-preparer.ts';
export { ImportInputError, JobPreparer, LineBatcher, prepareRecord } from './record-preparer.ts';
export type { DemoLoadSummary } from './demo-graph-loader.ts';
export { loadDemoGraph } from './demo-graph-loader.ts';
export type { MapOptions } from './wikidata/entity-mapper.ts';
export { DEFAULT_LANGUAGES, mapEntity } from './wikidata/entity-mapper.ts';
export { DumpInputError } from './wikidata/dump-input.ts';
export { ClassListError, loadOrganizationClasses, shippedOrganizationClasses } from './wikidata/selection.ts';
export type {
  WikidataImportOptions,
  WikidataImportSummary,
  WikidataPhase,
  WikidataProgress,
} from './wikidata/wikidata-import.ts';
export { importWikidataDump } from './wikidata/wikidata-import.ts';
export type { ReindexProgress, ReindexSummary } from './reindex-keys.ts';
export { reindexKeys } from './reindex-keys.ts';
