/**
 * A fetched page as a statement about an entity: the built-in extractor of the entity's type
 * (`organization` or `person`) runs on the page, and the object it finds becomes a statement
 * whose origin is the page (as bulk extract jobs state what they ingest, `crawl/graph-entity.ts`).
 * Custom API rule sets never apply here: the graph is shared by every token, and one token's
 * rules must not shape what all of them read.
 */
import { entityStatement, type EntityStatement, type PageExtractor } from '../crawl/index.ts';
import {
  cleanEntity,
  type Entity,
  EntityRejection,
  type EntityType,
  normalizeOrganizationName,
  normalizePersonName,
} from '../kg/index.ts';
import type { OriginPage } from './origin-fetcher.ts';

/** A page that was fetched. */
export type FetchedOriginPage = Extract<OriginPage, { ok: true }>;

/** Reads the entity a page states. */
export interface EntityPageReader {
  /**
   * The statement of the `type` entity on `page`, its origin `page.url`; `undefined` when the
   * extractor finds none with a name. Rejects when the page cannot be parsed.
   */
  read(type: EntityType, page: FetchedOriginPage): Promise<EntityStatement | undefined>;
}

/** Token id owning no Custom API rule set: extraction with the built-in rules alone. */
const NO_RULES_TOKEN = '';

/** An `EntityPageReader` over the crawl's extractor (worker threads, or this thread). */
export function builtInPageReader(extractor: Pick<PageExtractor, 'extract'>): EntityPageReader {
  return {
    async read(type, page) {
      const extraction = await extractor.extract({
        tokenId: NO_RULES_TOKEN,
        api: type === 'Organization' ? 'organization' : 'person',
        pageUrl: page.url,
        finalUrl: page.finalUrl,
        body: page.body,
        contentType: page.contentType,
        timestamp: page.fetchedAt,
      });
      for (const document of extraction.documents) {
        const statement = entityStatement(JSON.parse(document) as Record<string, unknown>, page.url);
        if (statement && statement.type === type) return statement;
      }
      return undefined;
    },
  };
}

/**
 * The statement as a valid entity of id `id` (the graph's validation and canonical form), or
 * the reason it is refused.
 */
export function statementEntity(
  statement: EntityStatement,
  id: string,
): { entity: Entity } | { refused: string } {
  try {
    return { entity: cleanEntity({ ...statement, id }) };
  } catch (error) {
    if (error instanceof EntityRejection) return { refused: error.message };
    throw error;
  }
}

function nameTokens(type: EntityType, name: string): string[] {
  if (type === 'Organization') {
    const normalized = normalizeOrganizationName(name);
    return [...(normalized.significant.length > 0 ? normalized.significant : normalized.tokens)];
  }
  return [...normalizePersonName(name).tokens];
}

function namesOf(entity: Pick<Entity, 'name' | 'allNames'>): string[] {
  const names = new Set<string>();
  if (typeof entity.name === 'string') names.add(entity.name);
  if (Array.isArray(entity.allNames))
    for (const n of entity.allNames) if (typeof n === 'string') names.add(n);
  return [...names];
}

/**
 * Whether a page's statement still speaks of `entity`: one of its names shares a significant
 * word with one of the entity's names (for a person, a word of the name). A domain that changed
 * hands, or a page about someone else, must not rewrite the entity.
 */
export function describesEntity(statement: Pick<Entity, 'name' | 'allNames'>, entity: Entity): boolean {
  const known = new Set(namesOf(entity).flatMap((name) => nameTokens(entity.type, name)));
  if (known.size === 0) return true;
  return namesOf(statement).some((name) => nameTokens(entity.type, name).some((token) => known.has(token)));
}
