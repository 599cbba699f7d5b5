import { extractArticle } from './article-extractor.ts';
import { extractOrganization } from './organization-extractor.ts';
import type { PageContext } from './page-context.ts';
import { detectPageType, type PageType } from './page-type.ts';
import { extractPerson } from './person-extractor.ts';
import { extractProduct } from './product-extractor.ts';
import { extractTeam, isTeamPage } from './team-extractor.ts';

/** Names of the built-in extraction APIs (`GET /v3/<name>`). */
export const BUILT_IN_APIS = Object.freeze([
  'analyze',
  'article',
  'product',
  'organization',
  'person',
] as const);

export type BuiltInApi = (typeof BUILT_IN_APIS)[number];

/** Whether `name` is a built-in extraction API. */
export function isBuiltInApi(name: string): name is BuiltInApi {
  return (BUILT_IN_APIS as readonly string[]).includes(name);
}

/** The object type an extractor produces, as the reference API spells it (lowercase). */
export type ObjectType = Exclude<PageType, 'other' | 'team' | 'listing'>;

const EXTRACTORS: Record<ObjectType, (context: PageContext) => object> = {
  article: extractArticle,
  product: extractProduct,
  organization: extractOrganization,
  person: extractPerson,
};

/** The fields the built-in extractor for `type` finds on the page. */
export function runExtractor(type: ObjectType, context: PageContext): Record<string, unknown> {
  return EXTRACTORS[type](context) as Record<string, unknown>;
}

/**
 * Runs a built-in API on a page: the page type (`analyze` detects it; the others are their own
 * type) and the objects found, each with its type: one of that type, none for an `other` or
 * `listing` page, one `person` per member for a team page (with `analyze` or `person`).
 */
export function runBuiltInApi(
  api: BuiltInApi,
  context: PageContext,
): { type: PageType; objects: { type: ObjectType; fields: Record<string, unknown> }[] } {
  const type: PageType = api === 'analyze' ? detectPageType(context) : api;
  if (type === 'team' || (type === 'person' && isTeamPage(context))) {
    const members = extractTeam(context).map((fields) => ({
      type: 'person' as const,
      fields: fields as Record<string, unknown>,
    }));
    return { type: api === 'analyze' ? 'team' : type, objects: members };
  }
  if (type === 'other' || type === 'listing') return { type, objects: [] };
  return { type, objects: [{ type, fields: runExtractor(type, context) }] };
}
