/**
 * The W3C Entity Reconciliation API 0.2 service (docs/reconcile.md): OpenRefine and other
 * clients reconcile their lists against the graph through the enhance matcher.
 */
export { DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERIES } from './batch.ts';
export type { ExtendRequest, ExtendResponse, PropertyEntry } from './extension.ts';
export {
  extendResponse,
  MAX_EXTEND_IDS,
  parseExtendRequest,
  proposeProperties,
  suggestProperties,
  suggestTypes,
} from './extension.ts';
export type { ManifestLinks } from './manifest.ts';
export { identifierSpaceOf, manifestOf, schemaSpaceOf, withToken } from './manifest.ts';
export { escapeHtml, PREVIEW_SIZE, previewHtml } from './preview.ts';
export type { ExtensionValue, QueryField, ReconcileProperty } from './properties.ts';
export { isoDateOf, PROPERTIES, propertyOf } from './properties.ts';
export type {
  ReconcileCandidate,
  ReconcileDeps,
  ReconcileResults,
  ReconcileType,
  SuggestedEntity,
} from './reconcile-service.ts';
export { MAX_SUGGEST, ReconcileService, RUNNER_UP_MAX_SHARE } from './reconcile-service.ts';
