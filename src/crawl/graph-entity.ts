/**
 * Extracted `organization` and `person` objects as knowledge-graph statements (`kgIngest=1`).
 * The extractors already name and shape their fields like the graph's entities
 * (`extract/entity-facts.ts`); this keeps those fields, adds the page as the statement's
 * origin, and names the entity. Pure.
 */
import { createHash } from 'node:crypto';
import type { EntityType } from '../kg/index.ts';
import type { ExtractedObject } from './dependencies.ts';

/**
 * The knowledge graph's fields (`kg/entity.ts`) a page may state: only these reach the graph.
 * Custom API fields (`copyright`), page metadata, social-profile shortcuts and provenance stay
 * with the extracted object (issue 24 §1).
 */
const STATED_FIELDS = new Set([
  'allNames',
  'description',
  'homepageUri',
  'allUris',
  'location',
  'locations',
  'phoneNumbers',
  'emailAddresses',
  'nbEmployees',
  'industries',
  'foundingDate',
  'birthDate',
  'gender',
  'employments',
  'educations',
  'nameDetail',
  'images',
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
    if (!STATED_FIELDS.has(field) || value === undefined || value === null) continue;
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

/** Contacts that say who an entity is: the page's own, never the site's header or footer. */
export interface IdentityEvidence {
  readonly emails: string[];
  readonly phones: string[];
}

/**
 * The e-mails and phones of `object` that identify its entity: those its `provenance` does not
 * mark `site-wide` (a newsroom's footer phone on every team page identifies no one).
 */
export function identityEvidence(object: ExtractedObject): IdentityEvidence {
  const provenance = (object.provenance ?? {}) as Record<string, unknown>;
  const pick = (field: string, value: (item: Record<string, unknown>) => unknown): string[] => {
    const list = Array.isArray(object[field]) ? (object[field] as unknown[]) : [];
    const sources = Array.isArray(provenance[field]) ? (provenance[field] as unknown[]) : [];
    return list
      .filter((_, i) => sources[i] !== 'site-wide')
      .map((item) => (item && typeof item === 'object' ? value(item as Record<string, unknown>) : undefined))
      .filter((item): item is string => typeof item === 'string' && item !== '');
  };
  return {
    emails: pick('emailAddresses', (item) => item.contactString),
    phones: pick('phoneNumbers', (item) => item.digits ?? item.string),
  };
}
