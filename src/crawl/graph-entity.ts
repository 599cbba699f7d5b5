/**
 * Extracted `organization` and `person` objects as knowledge-graph statements (`kgIngest=1`).
 * The extractors already name and shape their fields like the graph's entities
 * (`extract/entity-facts.ts`); this keeps those fields, adds the page as the statement's
 * origin, and names the entity. Pure.
 */
import { createHash } from 'node:crypto';
import type { EntityType } from '../kg/index.ts';
import type { ExtractedObject } from './dependencies.ts';

/** Fields of an extracted object that describe the page, not the entity. */
const PAGE_FIELDS = new Set([
  'type',
  'pageUrl',
  'resolvedPageUrl',
  'timestamp',
  'humanLanguage',
  'logo',
  'image',
]);

/** An entity as one page states it (no `id` yet): the graph's fields, `origins` = the page. */
export interface EntityStatement {
  readonly type: EntityType;
  readonly name: string;
  readonly homepageUri?: string;
  readonly origins: readonly string[];
  readonly [field: string]: unknown;
}

/** The entity type an extracted object stands for; `undefined` for other objects. */
export function entityTypeOf(object: ExtractedObject): EntityType | undefined {
  const type = String(object.type ?? '').toLowerCase();
  if (type === 'organization') return 'Organization';
  if (type === 'person') return 'Person';
  return undefined;
}

function normalizedName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * A stable id for an entity first seen on a crawled page: the same organization (same name and
 * homepage) or person (same name and page) gets the same id on every crawl, so later crawls
 * update it instead of adding duplicates. `crawl-o-…` / `crawl-p-…`, 20 hex digits.
 */
export function crawledEntityId(type: EntityType, name: string, anchor: string): string {
  const digest = createHash('sha256')
    .update(`${type}\n${normalizedName(name)}\n${anchor}`)
    .digest('hex');
  return `crawl-${type === 'Organization' ? 'o' : 'p'}-${digest.slice(0, 20)}`;
}

/**
 * The statement of `object` by the page at `origin`: the object's entity fields, `origins`
 * holding the page URL, and an image from `logo`/`image` when the object has no `images`.
 * `undefined` when the object is not an organization or a person, or has no name.
 */
export function entityStatement(object: ExtractedObject, origin: string): EntityStatement | undefined {
  const type = entityTypeOf(object);
  if (!type) return undefined;
  const name = typeof object.name === 'string' ? object.name.trim() : '';
  if (name === '') return undefined;
  const statement: Record<string, unknown> = { type, name };
  for (const [field, value] of Object.entries(object)) {
    if (PAGE_FIELDS.has(field) || field === 'name' || value === undefined || value === null) continue;
    statement[field] = value;
  }
  const picture =
    typeof object.logo === 'string'
      ? object.logo
      : typeof object.image === 'string'
        ? object.image
        : undefined;
  if (picture && !Array.isArray(statement.images)) statement.images = [{ url: picture, primary: true }];
  statement.origins = [origin];
  return statement as unknown as EntityStatement;
}

/** What identifies a new entity besides its name: its homepage, else the page it was found on. */
export function entityAnchor(statement: EntityStatement, origin: string): string {
  return typeof statement.homepageUri === 'string' ? statement.homepageUri : origin;
}
