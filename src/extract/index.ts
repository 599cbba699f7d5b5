/**
 * Extraction: a fetcher that refuses non-public destinations, HTML parsing with charset
 * detection, built-in extractors (analyze, article, product, organization, person), Custom API
 * rule sets (jsoup selector dialect) and the services that tie them together.
 */
export type { AddressPolicy, LookupAll, UrlRefusal } from './address-policy.ts';
export {
  AddressGuard,
  checkUrlAllowed,
  isPublicAddress,
  isUrlAllowed,
  systemLookup,
} from './address-policy.ts';
export type { ArticleFields, ExtractedImage } from './article-extractor.ts';
export type { BuiltInApi, ObjectType } from './built-in-apis.ts';
export { BUILT_IN_APIS, isBuiltInApi } from './built-in-apis.ts';
export { decodeHtml, detectCharset, parseMediaType } from './charset.ts';
export type { CustomApiListing } from './custom-api-service.ts';
export { CustomApiService } from './custom-api-service.ts';
export type {
  ExtractedObject,
  ExtractionResponse,
  PageContent,
  PageInput,
  StoredDocuments,
} from './extract-page.ts';
export { extractPage, storedDocuments } from './extract-page.ts';
export type {
  ExtractRequest,
  FetchedPageToExtract,
  PreviewRequest,
  PreviewResponse,
} from './extraction-service.ts';
export { ExtractionService } from './extraction-service.ts';
export type { ExtractionPriority, ExtractionThreadsOptions } from './extraction-threads.ts';
export {
  DEFAULT_EXTRACTION_BUDGET_MS,
  ExtractionThreads,
} from './extraction-threads.ts';
export { MAX_DOM_DEPTH } from './element-index.ts';
export type { FetchedPage, Fetcher, FetcherOptions, FetchOptions } from './fetcher.ts';
export {
  createFetcher,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  ensureSuccess,
  observedFetcher,
} from './fetcher.ts';
export type { CompiledSelector } from './jsoup-selector.ts';
export { compileSelector, SelectorError } from './jsoup-selector.ts';
export type { OrganizationFields } from './organization-extractor.ts';
export type { PageType } from './page-type.ts';
export type { PersonFields } from './person-extractor.ts';
export type { ProductFields, ProductOffer } from './product-extractor.ts';
export type { CompiledRuleset, Rule, RuleFilter, Ruleset } from './ruleset.ts';
export { apiNameOf, parseRuleset } from './ruleset.ts';
